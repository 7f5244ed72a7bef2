"""Refused tools read from a trace (run/refusals.py): the tool results Claude Code 2.1 writes when it refuses a
call (recorded from real runs against the scripted endpoint), and near-misses that are the agent's own errors."""

from __future__ import annotations

import json

import pytest

from pytest_plugin_eval.run.refusals import describe, refused_tools, why_refused
from pytest_plugin_eval.run.transcript import Transcript

# Verbatim tool results of Claude Code 2.1.327 (headless, --permission-mode dontAsk).
NOT_GRANTED = (
    "<tool_use_error>Error: No such tool available: Write. Write is disabled for this session, in subagents as "
    "well as here.</tool_use_error>"
)
DONT_ASK = "Permission to use Write has been denied because Claude Code is running in don't ask mode. IMPORTANT: …"
DENIED_PATH = "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"
QUESTION = (
    "<tool_use_error>Error: No such tool available: AskUserQuestion. AskUserQuestion is disabled for this "
    "session, in subagents as well as here.</tool_use_error>"
)


def trace(*calls: tuple[str, dict, str | None]) -> Transcript:
    """A stream with one tool call per entry and its result (an error when the text is given)."""
    lines: list[dict] = [{"type": "system", "subtype": "init"}]
    for i, (tool, data, error) in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{i}", "name": tool, "input": data}
        lines.append({"type": "assistant", "message": {"id": f"m{i}", "content": [use]}})
        result: dict = {"type": "tool_result", "tool_use_id": f"t{i}", "content": error or "ok"}
        if error is not None:
            result["is_error"] = True
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    lines.append({"type": "result", "subtype": "success", "is_error": False, "permission_denials": []})
    return Transcript("\n".join(json.dumps(line) for line in lines))


@pytest.mark.parametrize(
    ("tool", "error", "why"),
    [
        ("Write", NOT_GRANTED, "not granted"),
        ("Write", DONT_ASK, "permission denied"),
        ("Read", DENIED_PATH, "permission denied"),
        ("AskUserQuestion", QUESTION, "unanswerable"),
        ("Bash", "touch: cannot touch '/etc/x': Read-only file system", "sandbox"),
        ("Skill", "Shell command permission check failed: Permission to use Bash has been denied", "permission denied"),
    ],
)
def test_a_refusal_is_told_by_its_text(tool, error, why):
    assert refused_tools(trace((tool, {}, error))) == [{"tool": tool, "why": why}]


@pytest.mark.parametrize(
    ("tool", "error"),
    [
        ("Bash", "Exit code 127\n/bin/bash: line 1: sudo: command not found"),  # the command failed, not a refusal
        ("Read", "<tool_use_error>File does not exist.</tool_use_error>"),
        ("Skill", "<tool_use_error>Unknown skill: greeter:nope</tool_use_error>"),  # the agent's typo: a run note
        ("Write", "Read-only file system"),  # the sandbox words only count for a shell
    ],
)
def test_an_error_of_the_agents_own_is_no_refusal(tool, error):
    assert refused_tools(trace((tool, {}, error))) == []
    assert why_refused(tool, error) is None


def test_a_call_that_succeeded_is_no_refusal():
    assert refused_tools(trace(("Write", {"file_path": "x"}, None))) == []


def test_refusals_are_counted_in_trace_order():
    refused = refused_tools(trace(("Write", {}, NOT_GRANTED), ("Read", {}, None), ("Write", {}, NOT_GRANTED)))
    assert refused == [{"tool": "Write", "why": "not granted"}] * 2
    assert describe(refused) == "Write refused ×2 (not granted)"
