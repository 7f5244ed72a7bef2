"""A session under a long TMPDIR (160 characters, as nested CI runners and containers make them): the scratch
folder's owner lock, a conversation's stream-json session, the MCP stand-ins and the sandbox's sockets (a unix
socket path holds at most 107 bytes) the judge's own Claude Code child all work, and nothing is left behind."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers.e2e import ANY, ASK_COLOUR, bash, needs_sandbox, tool_results

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.run.permissions import SESSION_PREFIX

LENGTH = 160


@pytest.fixture
def long_tmpdir(monkeypatch):
    base = Path(tempfile.mkdtemp(prefix="long-", dir="/tmp"))
    folder = base / ("t" * 60) / ("u" * (LENGTH - len(str(base)) - 62))
    folder.mkdir(parents=True)
    assert len(str(folder)) == LENGTH
    monkeypatch.setenv("TMPDIR", str(folder))
    yield folder
    shutil.rmtree(base, ignore_errors=True)


HOLD_LOCK = """
import fcntl, os, sys
f = open(os.path.join(sys.argv[1], "owner"), "w")
fcntl.flock(f, fcntl.LOCK_EX)
f.write(f"{os.getpid()} cafe00000000\\n"); f.flush()
print("locked", flush=True)
sys.stdin.read()
"""


def test_the_scratch_lock_keeps_a_live_sessions_folder_and_frees_a_dead_ones(suite, long_tmpdir):
    # A live session's folder (another process holds its owner lock) and a dead one's (no lock, no process).
    live, dead = long_tmpdir / f"{SESSION_PREFIX}live", long_tmpdir / f"{SESSION_PREFIX}dead"
    live.mkdir()
    dead.mkdir()
    (dead / "owner").write_text("999999999 beef00000000\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(live)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        suite.case("hello", frontmatter={"runs": 1}, graders=ANY, script={"all": ["done"]})
        run = suite.run("--ablation", "none")
        assert run.rc == 0, run.out + run.err
        assert sorted(p.name for p in long_tmpdir.iterdir()) == [live.name]  # its own removed, the dead one swept
    finally:
        holder.communicate("")


def test_a_conversation_runs_under_a_long_tmpdir(suite, long_tmpdir):
    suite.case(
        "asks",
        "Pick a colour for me.",
        frontmatter={"runs": 1, "answers": {"colou?r": "Blue"}, "turns": ["Thanks."]},
        graders=ANY,
        script={"all": [ASK_COLOUR, "Noted.", "You are welcome."]},
    )
    run = suite.run("--ablation", "none")
    [result] = run.case("asks")["arms"]["with"]
    assert result.get("error") is None and run.rc == 0, run.out
    assert [q["answer"] for q in result["conversation"]["questions"]] == ["Blue"]
    assert [m["by"] for m in result["conversation"]["messages"]] == ["prompt", "scripted"]
    assert list(long_tmpdir.iterdir()) == []


def test_mcp_stand_ins_answer_under_a_long_tmpdir(suite, long_tmpdir):
    mocks = suite.root / "evals" / "mocks" / "tracker"
    mocks.mkdir(parents=True)
    (mocks / "create_issue.md").write_text("Created #1: {{input.title}}\n")
    script = {"all": [{"tool": "mcp__tracker__create_issue", "input": {"title": "Bug"}}, "done"]}
    suite.case("files", frontmatter={"runs": 1}, graders=ANY, script=script)
    run = suite.run("--ablation", "none")
    [result] = run.case("files")["arms"]["with"]
    assert result.get("error") is None and run.rc == 0, run.out
    assert tool_results(result)[0] == "Created #1: Bug"
    assert result["mocks"]["calls"]["total"] == 1
    assert list(long_tmpdir.iterdir()) == []


@needs_sandbox
def test_the_sandboxed_shell_runs_under_a_long_tmpdir(suite, long_tmpdir):
    script = {"all": [bash("echo SHELL-WORKS && echo x > $TMPDIR/t && echo TMP-OK"), "done"]}
    suite.case("shell", frontmatter={"runs": 1}, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--allow-tools", "Bash")
    [result] = run.case("shell")["arms"]["with"]
    [said] = tool_results(result)
    assert "SHELL-WORKS" in said and "TMP-OK" in said, said
    assert result.get("error") is None and run.rc == 0
    assert list(long_tmpdir.iterdir()) == []


def test_a_judge_asked_through_claude_code_runs_under_a_long_tmpdir(suite, long_tmpdir, tmp_path, monkeypatch):
    # On a setup token the judge asks through a `claude -p` child of its own, whose TMPDIR is under the session's.
    home = tmp_path / "operator"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
    monkeypatch.setenv("HOME", str(home))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-made-up-setup-token")
    suite.case(
        "judged", frontmatter={"runs": 1}, graders={"judged": "---\ntype: llm\n---\nThe reply says something.\n"}
    )
    with ScriptedEndpoint() as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        run = suite.run("--ablation", "none", scripted=False)
        judged = endpoint.calls("judge")
    [result] = run.case("judged")["arms"]["with"]
    assert run.rc == 0 and run.doc["access"]["judges"] == "claude-code", run.out + run.err
    assert result["graders"][0]["passed"] and len(judged) == 2, result["graders"]
    assert list(long_tmpdir.iterdir()) == []
