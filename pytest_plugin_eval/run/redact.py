"""Credential values out of what a run keeps.

The child needs the operator's credentials to reach the model; nothing it starts gets them, but should one still
show up in what the run produced, it is replaced by `[redacted: NAME]` in the run's workspace as soon as the child
has exited — before graders, the judge, the results folder or the report read any of it: the trace, Claude Code's
stderr, the stand-ins' call log, the names and contents of the working-tree files a run folder keeps. A value is
found verbatim or as it is spelled inside a JSON string.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .artefacts import kept_files
from .output import tree_files
from .workspace import secret_values

MIN_SECRET_CHARS = 8  # shorter values ("1", "true", a region) would redact ordinary text


def spellings(value: str) -> list[str]:
    """How a value can appear in a file: as it is, and escaped inside a JSON string (both ways of writing
    non-ASCII)."""
    forms = [value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]]
    return list(dict.fromkeys(forms))


@dataclass(frozen=True)
class Redactor:
    secrets: dict[str, str] = field(default_factory=dict)  # value → the name it is redacted as

    @classmethod
    def of(cls, env: dict[str, str]) -> Redactor:
        """The secrets of `env` (see workspace.secret_values) long enough to be told apart from ordinary text."""
        return cls({value: name for value, name in secret_values(env).items() if len(value) >= MIN_SECRET_CHARS})

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def _pairs(self) -> list[tuple[bytes, bytes]]:
        pairs = {
            form.encode("utf-8"): f"[redacted: {name}]".encode()
            for value, name in self.secrets.items()
            for form in spellings(value)
        }
        return sorted(pairs.items(), key=lambda pair: -len(pair[0]))  # a longer secret before one it contains

    def text(self, text: str) -> str:
        return self.data(text.encode("utf-8")).decode("utf-8")

    def data(self, data: bytes) -> bytes:
        for secret, replacement in self._pairs():
            data = data.replace(secret, replacement)
        return data

    def file(self, path: Path) -> bool:
        """Rewrite `path` without its secrets; whether it held any. A link is left alone."""
        if not self or path.is_symlink() or not path.is_file():
            return False
        try:
            data = path.read_bytes()
            clean = self.data(data)
            if clean == data:
                return False
            mode = path.stat().st_mode
            os.chmod(path, mode | 0o200)  # the agent may have left it read-only
            path.write_bytes(clean)
            os.chmod(path, mode)
            return True
        except OSError:
            return False

    def files(self, paths: Iterable[Path]) -> None:
        for path in paths:
            self.file(path)

    def names(self, cwd: Path) -> None:
        """Rename the files and folders under `cwd` whose name holds a secret (deepest first, `.git/` left out)."""
        if not self:
            return
        folders = {cwd / rel for name in tree_files(cwd) for rel in parents_of(name)}
        for path in sorted({*folders, *(cwd / name for name in tree_files(cwd))}, key=lambda p: -len(p.parts)):
            clean = self.text(path.name)
            if clean != path.name:
                try:
                    os.rename(path, path.with_name(clean.replace("/", "_")))
                except OSError:
                    continue

    def tree(self, cwd: Path, first: tuple[str, ...]) -> None:
        """The working-tree files a run folder keeps (artefacts.kept_files), rewritten without their secrets."""
        if not self:
            return
        for _ in kept_files(cwd, first, prepare=self.file):
            pass

    def run_output(self, out: Path) -> None:
        """The files the run wrote beside its trace: the trace, stderr, the stand-ins' call log."""
        if self:
            self.files(sorted(out.iterdir()))


def parents_of(rel: str) -> list[str]:
    """`a/b/c.txt` → [`a`, `a/b`]."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
