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

from ..core.errors import HarnessError, InvalidSpec
from ..core.run_id import run_folder_name
from ..run.artefacts import RunFolder
from .jsonmap import Document, problems
from .model import SCHEMA_VERSION, SuiteResult
from .suites import SuitesDocument, is_several

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
        return RunFolder(self.path / RUNS_DIR / case_in_eval_dir / run_folder_name(arm, index))

    def read(self) -> SuiteResult:
        """The results document. Raises OSError or ValueError when it is missing or unreadable."""
        return read_results(self.results_file)


class InvalidDocument(InvalidSpec, ValueError):
    """A file that is not a results document this version reads: the message names the file, the path of the
    first bad field in it, and what is wrong."""


def document_problem(data: Any, whole: bool = True) -> str | None:
    """What makes `data` no results document this version reads, as `path: what is wrong` (the first problem, and
    how many more), or None. The one check every reader of a stored results document makes. `whole`: a session's
    document, which always has its cases list (the public `read_results` also reads a hand-made `{}`)."""
    if not isinstance(data, dict):
        return "not a results document (the JSON is not an object)"
    if "old" in data and "new" in data and "cases" in data:
        return "a comparison document (plugin-eval compare --json), not a results document"
    if is_several(data):
        return "holds several suites (the --json document of a session over several eval dirs), not one suite's"
    version = data.get("schemaVersion", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        return f"schemaVersion {version!r}: this plugin-eval reads version {SCHEMA_VERSION}"
    if whole and data.get("cases") is None:
        return "not a results document (no cases list)"
    found = problems(SuiteResult, data)
    if not found:
        return None
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"{found[0]}{more}"


def parse_document(data: Any, source: Path | str, whole: bool = True) -> SuiteResult:
    """The results document `data` read from `source`; raises InvalidDocument naming `source` and the bad field."""
    problem = document_problem(data, whole)
    if problem is not None:
        raise InvalidDocument(f"{source}: {problem}")
    try:
        return SuiteResult.from_json(data)
    except Exception as e:  # a value the types allow that the document's own rules do not
        raise InvalidDocument(f"{source}: not a results document this version reads ({type(e).__name__}: {e})") from e


def read_results(path: Path) -> SuiteResult:
    """A stored results document (aggregate-result.json, or a session's --json file of one suite). Raises OSError
    when the file cannot be read, InvalidDocument (a ValueError) when it is not JSON or not a results document."""
    return parse_document(_json_of(path), path, whole=False)


def suites_problem(data: Any) -> str | None:
    """What makes `data` neither one suite's results document nor the document of several (results.suites), as
    `path: what is wrong` (`suites[1].cases[0].arms.with[0].score: must be a number`), or None."""
    if not is_several(data):
        return document_problem(data, whole=False)
    version = data.get("schemaVersion", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        return f"schemaVersion {version!r}: this plugin-eval reads version {SCHEMA_VERSION}"
    found = problems(SuitesDocument, data)
    if found:
        return f"{found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
    for i, suite in enumerate(data["suites"] or []):
        problem = document_problem(suite)
        if problem is not None:
            return f"suites[{i}]: {problem}"
    return None


def parse_suites(data: Any, source: Path | str) -> list[SuiteResult]:
    """The suites of `data` read from `source`: one suite's document, or each of several; raises InvalidDocument
    naming `source` and the bad field."""
    problem = suites_problem(data)
    if problem is not None:
        raise InvalidDocument(f"{source}: {problem}")
    try:
        return SuitesDocument.from_json(data).suites if is_several(data) else [SuiteResult.from_json(data)]
    except Exception as e:  # a value the types allow that the document's own rules do not
        raise InvalidDocument(f"{source}: not a results document this version reads ({type(e).__name__}: {e})") from e


def read_suites(path: Path) -> list[SuiteResult]:
    """The suites of a session's --json file (or an aggregate-result.json): one, or each of several eval dirs' or
    models'. Raises OSError when the file cannot be read, InvalidDocument when it is not JSON or holds no suite this
    version reads."""
    return parse_suites(_json_of(path), path)


def _json_of(path: Path) -> Any:
    text = Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidDocument(f"{path}: nested too deeply to be a results document") from None
    except ValueError as e:
        raise InvalidDocument(f"{path}: not valid JSON ({e})") from None


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


def document_text(document: dict | Document) -> str:
    """A document as the tool writes it to a file or stdout."""
    data = document.to_json() if isinstance(document, Document) else document
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_json(path: Path, document: dict | Document) -> None:
    write_atomic(path, document_text(document))
