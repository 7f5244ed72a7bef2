"""The results folder on disk: where a session's document, report and run artefacts go, and writing them so that
a kill never leaves half a file.

    evals/results/<timestamp>/
      aggregate-result.json        the results document (SuiteResult)
      report.html                  the HTML report
      runs/<case>/<arm>-<n>/       each run's artefacts (run.artefacts.RunFolder)
      mock-recordings/<server>/    agent-mock answers, to copy into mocks/.replay/
      .plugin-eval.lock            held by the session writing the folder
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import HarnessError
from ..run.artefacts import RunFolder
from .model import SuiteResult

RESULTS_DIR = "results"  # in the eval dir: a folder per session
RESULTS_FILE = "aggregate-result.json"
REPORT_FILE = "report.html"
RUNS_DIR = "runs"
RECORDINGS_DIR = "mock-recordings"
LOCK_FILE = ".plugin-eval.lock"


class FolderInUse(HarnessError, OSError):
    """Another session is writing to this results folder."""

    def __init__(self, path: Path):
        super().__init__(f"{path} is being written by another session that is still running")
        self.path = path


def timestamp_dirname(iso: str) -> str:
    """`2026-11-29T19:14:00.123Z` → `2026-11-29T19-14-00-123Z` (safe as a folder name)."""
    return iso.replace(":", "-").replace(".", "-")


@dataclass(frozen=True)
class ResultsFolder:
    path: Path

    @classmethod
    def for_session(cls, eval_root: Path, started_at: str) -> ResultsFolder:
        """<eval dir>/results/<session timestamp>/."""
        return cls(eval_root / RESULTS_DIR / timestamp_dirname(started_at))

    @property
    def results_file(self) -> Path:
        return self.path / RESULTS_FILE

    @property
    def report_file(self) -> Path:
        return self.path / REPORT_FILE

    @property
    def recordings(self) -> Path:
        return self.path / RECORDINGS_DIR

    def claim(self) -> Any:
        """Make the folder this session's: created, writable, and locked against another session writing to it
        at the same time (held until the returned handle is closed or the process ends). What an earlier
        session left in a reused folder (its runs and recordings) is cleared, so the folder describes one
        session. Raises OSError (not writable) or FolderInUse."""
        self.path.mkdir(parents=True, exist_ok=True)
        handle = open(self.path / LOCK_FILE, "a+")  # noqa: SIM115  (held for the session)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise FolderInUse(self.path) from None
        self.clear_runs()
        probe = self.path / f".probe-{os.getpid()}"
        probe.write_text("")  # not writable, or a full disk: said now, before any run
        probe.unlink()
        return handle

    def clear_runs(self) -> None:
        """Remove the runs and recordings an earlier session left here (a model's folder of a matrix is cleared
        with the matrix's folder, which is the one claimed)."""
        for name in (RUNS_DIR, RECORDINGS_DIR):
            shutil.rmtree(self.path / name, ignore_errors=True)

    def run_folder(self, case_in_eval_dir: str, arm: str, index: int) -> RunFolder:
        """A run's artefacts; `case_in_eval_dir` is the case folder relative to the eval dir."""
        return RunFolder(self.path / RUNS_DIR / case_in_eval_dir / f"{arm}-{index}")

    def read(self) -> SuiteResult:
        """The results document. Raises OSError or ValueError when it is missing or unreadable."""
        return read_results(self.results_file)


def read_results(path: Path) -> SuiteResult:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a results document (a JSON object)")
    return SuiteResult.from_json(data)


def write_atomic(path: Path, text: str) -> None:
    """Write a file atomically (a temp file beside it, then a rename): a kill mid-write never leaves half a
    file behind. The file gets the usual permissions (mkstemp alone would make it owner-only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def document_text(document: dict) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def write_json(path: Path, document: dict) -> None:
    write_atomic(path, document_text(document))
