"""Claude Code's stream-json output (trace.jsonl), and the views graders read from it.

The stream holds one JSON object per line: a `system/init` line, one `assistant` line per content block,
`user` lines with tool results, and a final `result` line. The text is kept verbatim, because the `trace`
target matches against it byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..core.prices import Usage


@dataclass(frozen=True)
class ToolCall:
    """One tool_use block, in trace order (subagent calls included; `parent` names their Agent call)."""

    index: int
    name: str
    input: dict
    parent: str | None


class Transcript:
    """A parsed trace. Lines that are not JSON objects are kept in the text but not interpreted."""

    def __init__(self, text: str):
        self.text = text.rstrip("\n")
        self.events: list[dict] = []
        for line in self.text.split("\n"):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                self.events.append(event)

    @classmethod
    def from_file(cls, path: Path) -> Transcript:
        try:
            return cls(path.read_text(encoding="utf-8", errors="replace"))
        except FileNotFoundError:
            return cls("")

    def _content_blocks(self) -> Iterator[tuple[dict, dict]]:
        for event in self.events:
            if event.get("type") != "assistant":
                continue
            message = event.get("message") or {}
            for block in message.get("content") or []:
                if isinstance(block, dict):
                    yield event, block

    @cached_property
    def last_message(self) -> str:
        """The text of the last assistant text block ('' when the agent never wrote text)."""
        last = ""
        for _, block in self._content_blocks():
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                last = block["text"]
        return last

    @cached_property
    def tool_calls(self) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for event, block in self._content_blocks():
            if block.get("type") == "tool_use":
                data = block.get("input")
                calls.append(
                    ToolCall(
                        index=len(calls),
                        name=str(block.get("name", "")),
                        input=data if isinstance(data, dict) else {},
                        parent=event.get("parent_tool_use_id"),
                    )
                )
        return calls

    def failed_calls(self, tool: str) -> list[tuple[dict, str]]:
        """The calls of `tool` that Claude Code answered with an error: (their input, the error's text)."""
        return [(data, error) for name, data, error in self.tool_errors if name == tool]

    @cached_property
    def tool_errors(self) -> list[tuple[str, dict, str]]:
        """Every tool call Claude Code answered with an error, in trace order: (tool, its input, the error's text)."""
        calls: dict[object, tuple[str, dict]] = {
            block.get("id"): (
                str(block.get("name", "")),
                block["input"] if isinstance(block.get("input"), dict) else {},
            )
            for _, block in self._content_blocks()
            if block.get("type") == "tool_use"
        }
        failed: list[tuple[str, dict, str]] = []
        for event in self.events:
            content = (event.get("message") or {}).get("content") if event.get("type") == "user" else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("is_error") and block.get("tool_use_id") in calls:
                    name, data = calls[block["tool_use_id"]]
                    failed.append((name, data, _text_of(block.get("content"))))
        return failed

    @cached_property
    def result(self) -> dict | None:
        """The final `result` line, if the child lived long enough to write it."""
        for event in reversed(self.events):
            if event.get("type") == "result":
                return event
        return None

    @cached_property
    def init(self) -> dict:
        for event in self.events:
            if event.get("type") == "system" and event.get("subtype") == "init":
                return event
        return {}

    @property
    def num_turns(self) -> int:
        """The agent's turns: Claude Code's count on its result line — added up over a conversation's result lines
        (one per user message)."""
        counts = [
            e["num_turns"] for e in self.events if e.get("type") == "result" and isinstance(e.get("num_turns"), int)
        ]
        if counts:
            return sum(counts)
        return len(
            {
                e.get("message", {}).get("id")
                for e in self.events
                if e.get("type") == "assistant" and e.get("parent_tool_use_id") is None
            }
        )

    def usage_by_model(self) -> dict[str, Usage]:
        """Tokens per model. From the result line when present; otherwise (a killed child) from the assistant
        lines, counting each message once with its last reported usage."""
        out: dict[str, Usage] = {}
        if self.result and isinstance(self.result.get("modelUsage"), dict):
            for model, data in self.result["modelUsage"].items():
                out[model] = Usage(
                    int(data.get("inputTokens") or 0),
                    int(data.get("outputTokens") or 0),
                    int(data.get("cacheReadInputTokens") or 0),
                    int(data.get("cacheCreationInputTokens") or 0),
                )
            return out
        last: dict[str, tuple[str, Usage]] = {}
        for event in self.events:
            message = event.get("message") or {}
            if event.get("type") == "assistant" and message.get("id"):
                last[message["id"]] = (str(message.get("model", "")), Usage.from_json(message.get("usage")))
        for model, usage in last.values():
            out[model] = out.get(model, Usage()) + usage
        return out


def _text_of(content: object) -> str:
    """A tool result's content as text: a string, or the text of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""
