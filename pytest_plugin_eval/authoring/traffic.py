"""Real traffic for `plugin-eval init --from FILE`: the prompts users actually typed.

A file is either a list of prompts, one a line (blank lines skipped), or a Claude Code session transcript
(`.jsonl`, as Claude Code keeps them under ~/.claude/projects/, or a `claude -p --output-format stream-json`
trace), from which the user's own prompts are taken: not tool results, not meta or subagent messages, not slash
command echoes, hook feedback or system reminders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from ..core.errors import UsageError

PROMPT_CAP = 2_000  # characters kept of one prompt
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
# Texts Claude Code writes into the user's turn that the user did not type.
NOT_TYPED = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "Caveat: The messages below",
    "[Request interrupted",
    "Stop hook feedback",
    "This session is being continued",
)


class TrafficError(UsageError):
    """A --from file that cannot be read."""


def user_prompt(entry: object) -> str | None:
    """The prompt a transcript line holds, or None when it is not one the user typed."""
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return None
    if entry.get("isMeta") or entry.get("isSidechain") or entry.get("isCompactSummary"):
        return None
    if entry.get("parent_tool_use_id"):  # a subagent's turn in a stream-json trace
        return None
    origin = entry.get("origin")
    if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        return None
    text = SYSTEM_REMINDER.sub("", text).strip()
    if not text or text.startswith(NOT_TYPED):
        return None
    return text


def prompts_of_transcript(lines: Iterable[str]) -> list[str]:
    out = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        prompt = user_prompt(entry)
        if prompt is not None:
            out.append(prompt)
    return out


def prompts_of_list(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_traffic(paths: Iterable[Path]) -> list[str]:
    """Every prompt of every file, in order, without repeats; each cut at PROMPT_CAP characters."""
    prompts: list[str] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise TrafficError(f"{path}: cannot be read ({e})") from None
        found = prompts_of_transcript(text.splitlines()) if path.suffix == ".jsonl" else prompts_of_list(text)
        prompts += [p if len(p) <= PROMPT_CAP else p[:PROMPT_CAP] + " […]" for p in found]
    return list(dict.fromkeys(prompts))
