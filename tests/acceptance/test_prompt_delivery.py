"""A run started ahead gives Claude Code its prompt as a run started at its turn does: the first model request is
the same, byte for byte, for every kind of prompt and case (request bodies from the scripted endpoint compared).

The old delivery writes the whole prompt at once when the run begins; the new one writes its first character when
the child starts and the rest when the run begins — here 4 s later, longer than Claude Code waits for a first byte
(run/agent.py, prompt_parts)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.plugin import Suite

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.case import Case, Context
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run import agent, execute, permissions
from pytest_plugin_eval.run.agent import bundled_claude, missed_its_prompt
from pytest_plugin_eval.run.execute import RunPlan, RunSettings, start_agent
from pytest_plugin_eval.run.workspace import Workspace

CLAUDE = bundled_claude()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason="the bundled Claude Code binary is not installed")

AHEAD_SECONDS = 4.0  # Claude Code gives up on a piped prompt that has not begun after 3 s
HOOKS = {
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo HOOK-SAYS-HELLO"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo SESSION-HOOK-CONTEXT"}]}],
    }
}


@pytest.fixture(scope="module")
def endpoint():
    with ScriptedEndpoint(keep_bodies=True) as ep:
        yield ep


@pytest.fixture(scope="module")
def base_case(tmp_path_factory) -> Case:
    """A case of plugin `p` (skill `s`, prompt-submit and session-start hooks), with context files to stage."""
    suite = Suite(tmp_path_factory.mktemp("delivery"))
    (suite.plugin / "hooks").mkdir()
    (suite.plugin / "hooks" / "hooks.json").write_text(json.dumps(HOOKS))
    case = suite.loaded("c", files={"data/in.txt": "INPUT-FILE-CONTENT\n", "setup.sh": "#!/bin/sh\necho S > s.txt\n"})
    (case.dir / "setup.sh").chmod(0o755)
    return case


def run(plan: RunPlan, endpoint: ScriptedEndpoint, ws: Workspace, ahead: float | None) -> list[dict[str, Any]]:
    """Make the run in `ws`: started `ahead` seconds before its prompt is given (new delivery), or, with None, the
    whole prompt written at once as it starts (the old delivery). Returns the bodies of its agent requests."""
    urls: list[str] = []
    script = parse_script({"all": ["Done."]}, "test")

    def base_url(cwd: Path) -> str:
        urls.append(endpoint.agent_url(script, arm=plan.arm, run=plan.index, cwd=str(cwd), prompt=plan.case.prompt))
        return urls[-1]

    plan = dataclasses.replace(plan, base_url=base_url)
    if ahead is None:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(agent, "prompt_parts", lambda prompt: (b"", prompt.encode("utf-8")))
            started = start_agent(plan, ws)
    else:
        extra: list[Workspace] = []
        first = ws
        for attempt in range(3):
            if attempt:  # on a loaded machine Claude Code can miss the prompt's first byte and stop waiting; the
                ws = Workspace.create()  # session then makes the run afresh (engine/evaluate.py), so try again here
                extra.append(ws)
            started = start_agent(plan, ws)
            time.sleep(ahead)
            assert endpoint.calls(kind="agent", token=urls[-1]) == [], "the model was asked before the prompt was given"
            if not started.child.alive and attempt < 2:  # it gave up waiting: the session starts such a run afresh
                started.child.kill()  # (its workspace is removed with the others)
                continue
            done = started.finish()
            if not missed_its_prompt(done):
                break
        assert done.error is None, (done.error, ws.stderr.read_text())
        bodies = json.dumps([call["body"] for call in endpoint.calls(kind="agent", token=urls[-1])])
        for made in extra:  # the caller normalizes the workspace it gave: the retry's own path is put back to it
            for spelling in (str, lambda root: re.sub(r"[^A-Za-z0-9]", "-", str(root))):  # as is, and as a project key
                bodies = bodies.replace(spelling(made.root), spelling(first.root))
            made.remove()
        return json.loads(bodies)
    done = started.finish()
    assert done.error is None, (done.error, ws.stderr.read_text())
    return [call["body"] for call in endpoint.calls(kind="agent", token=urls[0])]


def comparable(body: dict[str, Any], ws: Workspace) -> str:
    """A request body with what differs between two runs of the same case taken out: the workspace's paths
    (as written and as Claude Code names its project folder), session and device ids."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=False)
    for root in {str(ws.root), str(ws.root.resolve())}:
        text = text.replace(root, "<ws>").replace(re.sub(r"[^A-Za-z0-9]", "-", root), "<ws>")
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", text)
    return re.sub(r"\b[0-9a-f]{32,}\b", "<id>", text)


def last_user_text(body: dict[str, Any]) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else content[-1]["text"]


KINDS = {
    "plain": ("Say hello.", {}),
    "slash command": ("/p:s please go", {}),
    "multi-line": ("First line.\n\n  indented second line\n\ttabbed third\n", {}),
    "unicode": ("Grüße — 日本語 🙂 ÿ\u00a0nbsp and \u200bzero-width", {}),
    "leading dash": ("-p --help is not an option here", {}),
    "context files and scaffold": ("Read data/in.txt.", {"context": True, "scaffold": True}),
    "without the plugin": ("Say hello.", {"arm": "without"}),
    "a shell offered": ("Say hello.", {"bash": True}),
}


def plan_for(case: Case, prompt: str, how: dict) -> RunPlan:
    context = case.context
    if how.get("context"):
        context = Context(files=((case.dir / "data" / "in.txt", "data/in.txt"),), scaffold_script=case.dir / "setup.sh")
    return RunPlan(
        case=dataclasses.replace(case, prompt=prompt, context=context),
        arm=how.get("arm", "with"),
        index=1,
        settings=RunSettings(scaffold=bool(how.get("scaffold")), allow_tools=("Bash",) if how.get("bash") else ()),
        claude=Path(str(CLAUDE)),
    )


def both(plan: RunPlan, endpoint: ScriptedEndpoint) -> tuple[str, str, dict]:
    """The first request of the run made the old way and the new way (at the same time, in two workspaces)."""
    old_ws, new_ws = Workspace.create(), Workspace.create()
    try:
        found: dict[str, list] = {}
        ahead = threading.Thread(target=lambda: found.setdefault("new", run(plan, endpoint, new_ws, AHEAD_SECONDS)))
        ahead.start()
        found["old"] = run(plan, endpoint, old_ws, None)
        ahead.join(120)
        assert "new" in found, "the run started ahead did not finish"
        return comparable(found["old"][0], old_ws), comparable(found["new"][0], new_ws), found["new"][0]
    finally:
        old_ws.remove()
        new_ws.remove()


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_first_request_is_the_same_whether_the_run_was_started_ahead_or_not(kind, endpoint, base_case, monkeypatch):
    prompt, how = KINDS[kind]
    if how.get("bash"):  # offered unconfined (no sandbox here): the first request comes before any command
        monkeypatch.setattr(permissions, "shell_granted", lambda allowed: False)
    old, new, body = both(plan_for(base_case, prompt, how), endpoint)
    assert old == new
    if kind == "slash command":
        assert "Do it." in json.dumps(body)  # the skill's text: Claude Code expanded the command
    else:
        assert last_user_text(body) == prompt  # byte for byte
    if how.get("arm") != "without":
        assert "HOOK-SAYS-HELLO" in json.dumps(body)  # the plugin's prompt hook ran, in both
    if how.get("bash"):
        assert "Bash" in [tool["name"] for tool in body["tools"]]


def test_a_resumed_history_is_the_same_whether_the_run_was_started_ahead_or_not(endpoint, base_case, tmp_path):
    # Record a short session of the case, then resume it as the next turn's history (--resume).
    first = plan_for(base_case, "Remember the word PINEAPPLE.", {})
    ws = Workspace.create()
    try:
        run(first, endpoint, ws, None)
        [transcript] = list((ws.config / "projects").glob("*/*.jsonl"))
        shutil.copyfile(transcript, tmp_path / "hist.jsonl")
    finally:
        ws.remove()
    resumed = dataclasses.replace(
        plan_for(base_case, "Which word did I ask you to remember?", {}),
    )
    resumed = dataclasses.replace(
        resumed, case=dataclasses.replace(resumed.case, context=Context(history_file=tmp_path / "hist.jsonl"))
    )
    old, new, body = both(resumed, endpoint)
    assert old == new
    assert "PINEAPPLE" in json.dumps(body["messages"]) and last_user_text(body).startswith("Which word")


def test_the_comparison_sees_a_prompt_that_differs_by_one_character(endpoint, base_case):
    old_ws, new_ws = Workspace.create(), Workspace.create()
    try:
        old = run(plan_for(base_case, "Say hello.", {}), endpoint, old_ws, None)[0]
        new = run(plan_for(base_case, "Say hello!", {}), endpoint, new_ws, 0.0)[0]
        assert comparable(old, old_ws) != comparable(new, new_ws)
    finally:
        old_ws.remove()
        new_ws.remove()


def test_stream_json_input_would_change_the_first_request(endpoint, base_case, monkeypatch):
    """Why the prompt is not given as stream-json (which also waits for it): Claude Code then runs a session that
    is not single-shot, and with a shell granted the first request already differs (2.1.327: the Bash tool's
    background time limit), besides how background tasks and monitors then behave. Should this ever fail,
    stream-json input gives the same request and could be considered again. (The shell is offered unconfined
    here, which needs no sandbox on this machine: the first request is made before any command could run.)"""
    monkeypatch.setattr(permissions, "shell_granted", lambda allowed: False)  # no sandbox settings are written
    plan = dataclasses.replace(plan_for(base_case, "Say hello.", {}), settings=RunSettings(allow_tools=("Bash",)))
    old_ws, new_ws = Workspace.create(), Workspace.create()
    try:
        old = run(plan, endpoint, old_ws, None)[0]
        real_argv = execute.build_argv
        monkeypatch.setattr(execute, "build_argv", lambda *a: [*real_argv(*a), "--input-format", "stream-json"])
        message = {"type": "user", "message": {"role": "user", "content": plan.case.prompt}}
        monkeypatch.setattr(agent, "prompt_parts", lambda prompt: (b"", (json.dumps(message) + "\n").encode()))
        streamed = run(plan, endpoint, new_ws, 0.0)[0]
        assert last_user_text(streamed) == last_user_text(old) == "Say hello."  # the prompt itself is the same
        assert "Bash" in [tool["name"] for tool in old["tools"]]
        assert comparable(old, old_ws) != comparable(streamed, new_ws)
    finally:
        old_ws.remove()
        new_ws.remove()
