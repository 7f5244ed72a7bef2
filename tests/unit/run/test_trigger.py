"""Deciding a trigger run from its trace (pytest_plugin_eval.run.trigger): which event fires a skill, which ends a
run unfired, which decide nothing; and the hooks that hold the agent at the deciding call."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from pytest_plugin_eval.load.skills import TriggerTarget, components_of
from pytest_plugin_eval.run import trigger
from pytest_plugin_eval.run.transcript import Transcript
from pytest_plugin_eval.run.trigger import Firing, decide, hold_hooks


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    for name in ("greet", "farewell"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\ndescription: {name}\n---\n")
    (root / "commands").mkdir()
    (root / "commands" / "hello.md").write_text("Say hello.\n")
    return root


@pytest.fixture
def target(root) -> TriggerTarget:
    components = tuple(components_of(root))
    greet = next(c for c in components if c.name == "greet")
    return TriggerTarget(greet, True, components, "hi", root / "evals" / "triggers.yaml")


def trace(*events: dict) -> Transcript:
    return Transcript("\n".join(json.dumps(e) for e in events))


def call(name: str, **data) -> dict:
    block = {"type": "tool_use", "id": f"t-{name}", "name": name, "input": data}
    return {"type": "assistant", "message": {"content": [block]}}


def result(subtype: str = "success", is_error: bool = False) -> dict:
    return {"type": "result", "subtype": subtype, "is_error": is_error}


INIT = {"type": "system", "subtype": "init"}


def test_a_skill_call_of_the_sets_skill_fires(target):
    assert decide(trace(INIT, call("Skill", skill="greeter:greet")), target) == Firing(
        True, "greeter:greet", "Skill call", 0
    )


def test_a_skill_call_of_a_sibling_does_not_fire_and_names_it(target):
    assert decide(trace(call("Skill", skill="farewell")), target) == Firing(False, "greeter:farewell", "Skill call", 0)


def test_a_call_of_one_of_the_plugins_commands_names_the_command(target):
    assert decide(trace(call("Skill", skill="greeter:hello")), target) == Firing(
        False, "greeter:hello", "Skill call", 0
    )


def test_a_skill_not_the_plugins_is_another_skill(target):
    firing = decide(trace(call("Skill", skill="other:thing")), target)
    assert firing == Firing(False, "other:thing", "called another skill (other:thing)", 0)


def test_reading_the_skills_skill_md_fires(target, root):
    firing = decide(trace(call("Read", file_path=str(root / "skills" / "greet" / "SKILL.md"))), target)
    assert firing == Firing(True, "greeter:greet", "read its SKILL.md", 0)


def test_reading_another_file_decides_nothing(target, root):
    assert decide(trace(call("Read", file_path=str(root / "README.md"))), target) is None


def test_exploring_first_does_not_decide_and_the_skill_call_after_it_does(target):
    events = [call("Glob", pattern="**/*"), call("Bash", command="ls"), call("Skill", skill="greeter:greet")]
    assert decide(trace(*events[:2]), target) is None
    assert decide(trace(*events), target) == Firing(True, "greeter:greet", "Skill call", 2)


def test_finishing_without_a_skill_does_not_fire(target):
    firing = decide(trace(call("Bash", command="ls"), result()), target)
    assert firing == Firing(False, None, "finished without consulting a skill")


def test_reaching_the_turn_limit_does_not_fire(target):
    firing = decide(trace(call("Bash", command="ls"), result("error_max_turns", is_error=True)), target)
    assert firing == Firing(False, None, "reached the turn limit without consulting a skill")


def test_a_query_the_model_refuses_does_not_fire(target):
    refused = {**result("success", is_error=True), "stop_reason": "refusal", "terminal_reason": "api_error"}
    firing = decide(trace(refused), target)
    assert firing == Firing(False, None, "the model refused the query without consulting a skill")


@pytest.mark.parametrize("line", [result("success", is_error=True), result("error_during_execution", True)])
def test_an_error_result_decides_nothing(target, line):
    assert decide(trace(line), target) is None


def test_an_open_trace_decides_nothing(target):
    assert decide(trace(INIT, call("Bash", command="ls")), target) is None
    assert decide(Transcript(""), target) is None


def test_a_slash_command_call_counts_like_a_skill_call(target):
    assert decide(trace(call("SlashCommand", command="/greeter:greet")), target) == Firing(
        True, "greeter:greet", "Skill call", 0
    )


def test_a_slash_command_call_with_arguments_counts_for_its_command(target):
    assert decide(trace(call("SlashCommand", command="/greeter:greet Bob")), target).fired is True


# ---- the hooks that hold the agent ---------------------------------------------------------------------------


def test_hold_hooks_list_the_plugins_files_and_hold_skill_calls_and_reads(target, tmp_path):
    hooks = hold_hooks(target, tmp_path)
    listed = (tmp_path / trigger.PATHS_FILE).read_text().splitlines()
    assert listed == [json.dumps(str(c.path)) for c in target.components]  # quoted, as the hook's input has them
    skill, read = hooks["PreToolUse"]
    assert skill == {
        "matcher": "Skill|SlashCommand",
        "hooks": [{"type": "command", "command": trigger.HOLD, "timeout": 600}],
    }
    assert read["matcher"] == "Read"
    assert read["hooks"][0]["timeout"] == 600 and str(tmp_path / trigger.PATHS_FILE) in read["hooks"][0]["command"]


def run_read_hook(command: str, file_path: str) -> int:
    stdin = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": file_path}})
    return subprocess.run(["sh", "-c", command], input=stdin, text=True, timeout=30).returncode


def test_the_read_hook_holds_a_read_of_a_listed_file_and_lets_others_through(target, tmp_path, root):
    [hook] = hold_hooks(target, tmp_path)["PreToolUse"][1]["hooks"]
    command = hook["command"].replace(trigger.HOLD, "exit 7")  # 7: held
    assert run_read_hook(command, str(root / "skills" / "farewell" / "SKILL.md")) == 7
    assert run_read_hook(command, str(root / "commands" / "hello.md")) == 7
    assert run_read_hook(command, str(root / "README.md")) == 0
    assert run_read_hook(command, str(root / "skills" / "farewell" / "SKILL.md.bak")) == 0  # not the file itself


def test_the_hold_ends_when_its_parent_does():
    # the hold's parent is a shell that lives a moment: the hold must not outlive it by more than a poll
    started = time.monotonic()
    subprocess.run(["sh", "-c", f"sh -c '{trigger.HOLD}' & sleep 0.5; exit 0"], timeout=30)
    deadline = time.monotonic() + 10
    while (
        time.monotonic() < deadline and subprocess.run(["pgrep", "-f", "kill -0 \\$PPID"], capture_output=True).stdout
    ):
        time.sleep(0.1)
    assert not subprocess.run(["pgrep", "-f", "kill -0 \\$PPID"], capture_output=True).stdout
    assert time.monotonic() - started < 10
