"""Reading a trace: which tool calls Claude Code answered with an error, and the note a failed Skill call gets."""

from __future__ import annotations

import json

from pytest_plugin_eval.run.execute import skill_failures
from pytest_plugin_eval.run.transcript import Transcript


def trace(*events: dict) -> Transcript:
    return Transcript("\n".join(json.dumps(e) for e in events))


def call(tool_id: str, name: str, **data) -> dict:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": data}
    return {"type": "assistant", "message": {"content": [block]}}


def answer(tool_id: str, content, is_error: bool = True) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "is_error": is_error, "content": content}
    return {"type": "user", "message": {"content": [block]}}


def test_failed_calls_pairs_each_error_with_its_call_of_that_tool():
    t = trace(
        call("a", "Skill", skill="x:gret"),
        answer("a", "<tool_use_error>Unknown skill: x:gret</tool_use_error>"),
        call("b", "Skill", skill="x:greet"),
        answer("b", "Launching skill", is_error=False),
        call("c", "Read", file_path="/nope"),
        answer("c", [{"type": "text", "text": "File does not exist."}]),
    )
    assert t.failed_calls("Skill") == [({"skill": "x:gret"}, "<tool_use_error>Unknown skill: x:gret</tool_use_error>")]
    assert t.failed_calls("Read") == [({"file_path": "/nope"}, "File does not exist.")]
    assert t.failed_calls("Write") == []


def test_a_failed_skill_call_is_named_with_claude_codes_answer():
    t = trace(call("a", "Skill", skill="x:gret"), answer("a", "<tool_use_error>Unknown skill: x:gret</tool_use_error>"))
    [note] = skill_failures(t)
    assert note.startswith('the agent called Skill "x:gret" and Claude Code answered "Unknown skill: x:gret" — ')
    assert skill_failures(trace(call("a", "Skill", skill="x:greet"), answer("a", "ok", is_error=False))) == []


def test_a_skill_whose_shell_line_was_refused_is_not_blamed_on_its_name():
    """plugin-dev's command-development SKILL.md holds !`git diff --name-only`: Claude Code runs it as the skill
    loads and refuses it without Bash; the name was right, so the advice is the grant, not the folder."""
    refused = (
        'Shell command permission check failed for pattern "!`git diff --name-only`": '
        "Permission to use Bash has been denied."
    )
    t = trace(
        call("a", "Skill", skill="x:command-development"), answer("a", f"<tool_use_error>{refused}</tool_use_error>")
    )
    [note] = skill_failures(t)
    assert "grant it (the case's allowed_tools, or --allow-tools)" in note
    assert "name in its SKILL.md" not in note
    [unknown] = skill_failures(trace(call("a", "Skill", skill="x:gret"), answer("a", "Unknown skill: x:gret")))
    assert unknown.endswith("check that the skill's folder and the name in its SKILL.md match what Claude calls")


def test_a_skill_whose_shell_line_failed_is_not_blamed_on_its_name():
    """commit-commands' commit.md runs !`git diff HEAD` as it loads; in a run's fresh repository (no commit) git
    fails. The name was right: the advice is to give the workspace what the command reads, on one line."""
    failed = (
        'Shell command failed for pattern "!`git diff HEAD`": [stderr]\n'
        "fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree."
    )
    t = trace(
        call("a", "Skill", skill="commit-commands:commit"), answer("a", f"<tool_use_error>{failed}</tool_use_error>")
    )
    [note] = skill_failures(t)
    assert "\n" not in note
    assert "[stderr] fatal: ambiguous argument 'HEAD'" in note
    assert "scaffold_script" in note
    assert "name in its SKILL.md" not in note


def test_a_command_with_allowed_tools_refused_as_a_skill_call_names_the_case_grant():
    """commit-commands' commit.md has `allowed-tools:`; Claude Code asks before it runs such a command, and in a
    run with the default tools (Skill offered, not pre-approved) the call is refused: the fix is Skill in the case's
    allowed_tools, not a !`command`'s tool."""
    refused = "Permission to use Skill has been denied because Claude Code is running in don't ask mode."
    t = trace(call("a", "Skill", skill="commit-commands:commit"), answer("a", refused))
    [note] = skill_failures(t)
    assert "list Skill in the case's allowed_tools" in note
    assert "!`command`" not in note
