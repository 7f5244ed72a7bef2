"""What `plugin-eval calibrate` reads: each results folder's document with a person's labels of its verdicts."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import UsageError
from ..results.calibration import Session
from ..results.labels import LABELS_FILE, labels_path, read_labels
from ..results.store import RESULTS_FILE
from .compare import CompareError, read_document


def read_sessions(folders: list[str], labels_file: str | None = None) -> list[Session]:
    """Each folder's results document and labels (its labels.json, or `labels_file` for a single folder). Raises
    UsageError naming a folder that holds no results, SpecError naming a bad labels file's key."""
    sessions: list[Session] = []
    for name in folders:
        folder = Path(name)
        if any(folder.resolve() == s.folder.resolve() for s in sessions):
            continue  # the same folder twice (a glob and its name): its labels count once
        if not folder.is_dir():
            raise UsageError(
                f"Error: {name}: not a results folder — calibrate reads a folder's {RESULTS_FILE} and its {LABELS_FILE}"
            )
        try:
            document = read_document(folder)
        except CompareError as e:
            raise UsageError(f"Error: {e}") from None
        labels = read_labels(Path(labels_file) if labels_file else labels_path(folder))
        sessions.append(Session(folder, document, labels))
    return sessions
