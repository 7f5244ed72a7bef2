"""Claude Code's partial-message events (`--include-partial-messages`): the evidence of whether the model's reply
was still arriving when a run's time limit struck.

Without them Claude Code writes an `assistant` line only once a content block is complete, so while a model
thinks or writes for minutes the trace is as silent as if the API had stalled. With them each request opens with
a `system/status: requesting` line and every event of the reply is a `stream_event` line as it arrives, so the
supervisor sees the bytes flowing, and a trace that stays silent while a request is open means the API sent
nothing.

Graders, regrading and the kept trace.jsonl read the trace as Claude Code writes it without the flag: once the
child has ended, these lines are taken out.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FLAG = "--include-partial-messages"
# Lines that hold no partial-message event are kept as they are, without being parsed.
_MARKERS = (b'"stream_event"', b'"requesting"')


def is_partial(event: dict) -> bool:
    """A line Claude Code writes only because of FLAG."""
    if event.get("type") == "stream_event":
        return True
    return event.get("type") == "system" and event.get("subtype") == "status" and event.get("status") == "requesting"


def _partial_line(line: bytes) -> bool:
    if not any(marker in line for marker in _MARKERS):
        return False
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and is_partial(event)


def take_out(trace: Path) -> str:
    """Rewrite the trace without its partial-message lines (every other line byte for byte as it was), and
    return what is left."""
    try:
        raw = trace.read_bytes()
    except FileNotFoundError:
        return ""
    lines = raw.split(b"\n")
    kept = [line for line in lines if not _partial_line(line)]
    text = b"\n".join(kept)
    if len(kept) != len(lines):
        staged = trace.with_name(trace.name + ".partial")
        staged.write_bytes(text)
        os.replace(staged, trace)
    return text.decode("utf-8", errors="replace")
