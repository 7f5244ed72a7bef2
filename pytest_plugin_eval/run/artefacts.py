"""A run's kept artefacts: the one place that names the files of a run folder.

Every run keeps, under `results/<ts>/runs/<case>/<arm>-<n>/`, its raw trace, Claude Code's stderr, its working
tree as the run left it (`files/`, up to a size budget: the files it created or modified first, then the others,
such as untouched scaffold files), what it changed (`changes.json`: created, modified, deleted), the list of the
files it created, and the calls its MCP stand-ins answered. The HTML report reads the trace from there;
`--regrade` rebuilds what graders read from the whole folder. Folders written before changes.json existed hold
the created files only, and regrade as they did.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import code_units, inside
from .output import Changes, RunOutput, tree_files
from .transcript import Transcript

TRACE = "trace.jsonl"
STDERR = "stderr.txt"
FILES = "files"
CREATED_FILES = "created-files.json"
CHANGES = "changes.json"  # written by the run beside its trace (Workspace.record_changes), kept with it
MOCK_CALLS = "mock-calls.jsonl"
MAX_COPIED_BYTES = 20 * 1024 * 1024  # working-tree files kept per run, in total


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
        """Copy what a finished run produced out of its workspace (an earlier attempt's files are replaced): the
        trace and stderr, its working tree — what it created or modified first — and the changes it recorded
        beside its trace."""
        self.path.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.files, ignore_errors=True)
        shutil.copyfile(trace, self.trace)
        shutil.copyfile(stderr, self.stderr)
        changes = read_changes(trace.parent / CHANGES)
        _copy_tree(cwd, (*created, *(changes.modified if changes else ())), self.files)
        (self.path / CREATED_FILES).write_text(json.dumps(list(created)))
        if changes is not None:
            (self.path / CHANGES).write_text(json.dumps(changes.to_json()))
        else:
            (self.path / CHANGES).unlink(missing_ok=True)
        if mock_calls is not None:
            (self.path / MOCK_CALLS).write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in mock_calls))

    def copy_to(self, other: RunFolder) -> None:
        """Everything kept here, into `other` (a regraded session keeps its own copy)."""
        other.path.mkdir(parents=True, exist_ok=True)
        for name in (TRACE, STDERR, CREATED_FILES, CHANGES, MOCK_CALLS):
            if (self.path / name).exists():
                shutil.copyfile(self.path / name, other.path / name)
        if self.files.is_dir():
            shutil.copytree(self.files, other.files, symlinks=True, dirs_exist_ok=True)

    def created_files(self) -> tuple[str, ...]:
        try:
            return tuple(json.loads((self.path / CREATED_FILES).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return ()

    def changes(self) -> Changes | None:
        """What the run created, modified and deleted; None for a folder kept before changes.json existed."""
        return read_changes(self.path / CHANGES)

    def mock_calls(self) -> tuple[dict, ...] | None:
        """The calls the run's stand-ins answered; None when it had none."""
        path = self.path / MOCK_CALLS
        if not path.exists():
            return None
        return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())

    def output(self, arm: str) -> RunOutput:
        """What graders read, rebuilt from the kept files: the working tree as the run left it (within the size
        budget; an older folder holds only the created files), and the created files as the `files` target."""
        return RunOutput(
            transcript=Transcript.from_file(self.trace),
            cwd=self.files,
            created_files=self.created_files(),
            arm=arm,
            mock_calls=self.mock_calls(),
        )


def read_changes(path: Path) -> Changes | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Changes.from_json(data) if isinstance(data, dict) else None


def kept_files(
    cwd: Path, first: tuple[str, ...], prepare: Callable[[Path], object] | None = None
) -> Iterator[tuple[str, bool]]:
    """Which files of the working tree a run folder keeps, within MAX_COPIED_BYTES, as (relative path, is a link):
    `first` (what the run changed), then the rest. A file over what is left of the budget is skipped; symlinks are
    kept when they point inside the tree. `prepare` is called on each regular file that may be kept before its size
    counts (redaction rewrites it there, so that the choice made afterwards by `keep` is the same)."""
    budget = MAX_COPIED_BYTES
    rest = sorted(tree_files(cwd) - set(first), key=code_units)
    for rel in dict.fromkeys((*first, *rest)):
        src = cwd / rel
        try:
            if src.is_symlink():
                if inside(os.path.realpath(src), cwd):
                    yield rel, True
                continue
            if not src.is_file():
                continue
            if prepare is not None and src.lstat().st_size <= budget + PREPARE_SLACK:
                prepare(src)
            size = src.lstat().st_size
            if size > budget:
                continue
            yield rel, False
            budget -= size
        except OSError:
            continue


PREPARE_SLACK = 64 * 1024  # a file a little over the budget may shrink into it once prepared


def _copy_tree(cwd: Path, first: tuple[str, ...], dest: Path) -> None:
    """The working tree into `dest`: the files `kept_files` chooses; a link is kept as a relative link."""
    for rel, link in kept_files(cwd, first):
        src, target = cwd / rel, dest / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if link:
                target.symlink_to(os.path.relpath(os.path.realpath(src), os.path.realpath(src.parent)))
            else:
                shutil.copyfile(src, target)
        except OSError:
            continue
