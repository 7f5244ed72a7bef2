"""What a run produced, as graders see it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .transcript import ToolCall, Transcript


def tree_files(root: Path) -> set[str]:
    """Every file under a working directory (relative paths, `.git/` excluded; symlinks to folders listed too)."""
    out = set()
    for folder, subdirs, names in os.walk(root):
        if folder == str(root):
            subdirs[:] = [d for d in subdirs if d != ".git"]
        rel = os.path.relpath(folder, root)
        for name in names:
            out.add(name if rel == "." else f"{rel}/{name}")
        for name in subdirs:
            if os.path.islink(os.path.join(folder, name)):
                out.add(name if rel == "." else f"{rel}/{name}")
    return out


@dataclass(frozen=True)
class Changes:
    """What a run did to its working directory: files it created, modified and deleted (relative paths)."""

    created: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"created": list(self.created), "modified": list(self.modified), "deleted": list(self.deleted)}

    @classmethod
    def from_json(cls, data: dict) -> Changes:
        return cls(*(tuple(str(p) for p in data.get(key) or ()) for key in ("created", "modified", "deleted")))


@dataclass(frozen=True)
class RunOutput:
    """What one run produced, as graders see it: the trace, the files it created, the mock calls it made."""

    transcript: Transcript
    cwd: Path
    created_files: tuple[str, ...] = ()
    mock_calls: tuple[dict, ...] | None = None  # None: no mock stand-ins were active
    arm: str = "with"

    @property
    def last_message(self) -> str:
        return self.transcript.last_message

    @property
    def tool_calls(self) -> list[ToolCall]:
        return self.transcript.tool_calls

    def mock_calls_text(self) -> list[str]:
        """One compact JSON line per mocked call (tool, input, output, verdict)."""
        return [json.dumps(call, ensure_ascii=False, separators=(",", ":")) for call in self.mock_calls or ()]
