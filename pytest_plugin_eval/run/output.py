"""What a run produced, as graders see it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .transcript import ToolCall, Transcript


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
