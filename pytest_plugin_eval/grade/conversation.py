"""Graders over a conversation: the part of a run's trace that is one turn (`turn: N`), and the conversation as
the llm judge reads it.

A turn starts at a user message — the prompt, a scripted turn, a simulated reply — as Claude Code replays it into
the trace (`isReplay`), and runs to the next one: the agent's messages and tool calls in answer to it. A one-prompt
run is one turn."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..run.transcript import Transcript


def _is_user_message(event: dict) -> bool:
    return event.get("type") == "user" and bool(event.get("isReplay"))


def turn_texts(transcript: Transcript) -> list[str]:
    """The trace's lines split into turns (the lines before the first user message belong to the first)."""
    turns: list[list[str]] = [[]]
    seen_user = False
    for line in transcript.text.split("\n"):
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict) and _is_user_message(event):
            if seen_user:
                turns.append([])
            seen_user = True
        turns[-1].append(line)
    return ["\n".join(lines) for lines in turns]


def turn_count(transcript: Transcript) -> int:
    return len(turn_texts(transcript))


def turn_view(output: Any, turn: int) -> Any:
    """The run as a grader of `turn: N` sees it: its trace cut to that turn (an empty trace when the conversation
    never got there); files and mock calls stay the run's."""
    texts = turn_texts(output.transcript)
    text = texts[turn - 1] if turn <= len(texts) else ""
    return dataclasses.replace(output, transcript=Transcript(text))


def is_conversation(transcript: Transcript) -> bool:
    """More than one user message: a conversation rather than a one-prompt run."""
    return sum(1 for event in transcript.events if _is_user_message(event)) > 1


def conversation_lines(transcript: Transcript) -> list[str]:
    """The conversation as the judge reads it: one line per user message and per agent text, in order."""
    lines = []
    for event in transcript.events:
        if _is_user_message(event):
            content = (event.get("message") or {}).get("content")
            lines.append(f"[user] {content if isinstance(content, str) else json.dumps(content)}")
        elif event.get("type") == "assistant" and event.get("parent_tool_use_id") is None:
            for block in (event.get("message") or {}).get("content") or ():
                if isinstance(block, dict) and block.get("type") == "text" and block.get("text"):
                    lines.append(f"[agent] {block['text']}")
                elif isinstance(block, dict) and block.get("type") == "tool_use":
                    lines.append(f"[agent calls {block.get('name')}] {json.dumps(block.get('input'))}")
    return lines
