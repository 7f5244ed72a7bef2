"""A run's kept artefacts: the one place that names the files of a run folder.

Every run keeps, under `results/<ts>/runs/<case>/<arm>-<n>/`, its raw trace, Claude Code's stderr, the files it
created (`files/`, up to a size budget) and their list, and the calls its MCP stand-ins answered. The HTML report
reads the trace from there; `--regrade` rebuilds what graders read from the whole folder.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from .output import RunOutput
from .transcript import Transcript

TRACE = "trace.jsonl"
STDERR = "stderr.txt"
FILES = "files"
CREATED_FILES = "created-files.json"
MOCK_CALLS = "mock-calls.jsonl"
MAX_COPIED_BYTES = 20 * 1024 * 1024  # created files kept per run, in total


@dataclass(frozen=True)
class RunFolder:
    path: Path

    @property
    def trace(self) -> Path:
        return self.path / TRACE

    @property
    def stderr(self) -> Path:
        return self.path / STDERR

    @property
    def files(self) -> Path:
        return self.path / FILES

    def keep(
        self, trace: Path, stderr: Path, cwd: Path, created: tuple[str, ...], mock_calls: tuple[dict, ...] | None
    ) -> None:
        """Copy what a finished run produced out of its workspace (an earlier attempt's files are replaced)."""
        self.path.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.files, ignore_errors=True)
        shutil.copyfile(trace, self.trace)
        shutil.copyfile(stderr, self.stderr)
        _copy_files(cwd, created, self.files)
        (self.path / CREATED_FILES).write_text(json.dumps(list(created)))
        if mock_calls is not None:
            (self.path / MOCK_CALLS).write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in mock_calls))

    def copy_to(self, other: RunFolder) -> None:
        """Everything kept here, into `other` (a regraded session keeps its own copy)."""
        other.path.mkdir(parents=True, exist_ok=True)
        for name in (TRACE, STDERR, CREATED_FILES, MOCK_CALLS):
            if (self.path / name).exists():
                shutil.copyfile(self.path / name, other.path / name)
        if self.files.is_dir():
            shutil.copytree(self.files, other.files, dirs_exist_ok=True)

    def created_files(self) -> tuple[str, ...]:
        try:
            return tuple(json.loads((self.path / CREATED_FILES).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return ()

    def mock_calls(self) -> tuple[dict, ...] | None:
        """The calls the run's stand-ins answered; None when it had none."""
        path = self.path / MOCK_CALLS
        if not path.exists():
            return None
        return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())

    def output(self, arm: str) -> RunOutput:
        """What graders read, rebuilt from the kept files."""
        return RunOutput(
            transcript=Transcript.from_file(self.trace),
            cwd=self.files,
            created_files=self.created_files(),
            arm=arm,
            mock_calls=self.mock_calls(),
        )


def _copy_files(cwd: Path, files: tuple[str, ...], dest: Path) -> None:
    budget = MAX_COPIED_BYTES
    for rel in files:
        src = cwd / rel
        try:
            size = src.lstat().st_size
            if src.is_symlink() or size > budget:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            budget -= size
        except OSError:
            continue
