"""A run's judges at the same time, through the real Claude Code and the scripted endpoint pointed at as the real API
(ANTHROPIC_BASE_URL, no --scripted): judges asking the API directly (a key) and judges asking through Claude Code
(a setup token alone: one `claude -p` per vote). Each grader's first two votes are split and answered slowly, so a
grader asks a third vote only once its first two have been answered: judged one after the other, the graders'
requests would come grader by grader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.e2e import Suite

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run.agent import bundled_claude

pytestmark = pytest.mark.skipif(bundled_claude() is None, reason="needs the bundled Claude Code")

CRITERIA = {"a-names": "The reply names a number.", "b-short": "The reply is short.", "c-polite": "The reply is calm."}
SLOW = 5  # seconds each judge reply takes: longer than a grader's other requests take to start, however loaded
SCRIPT = {
    "with": ["The answer is 42."],
    # counted per judge prompt (per grader): PASS, FAIL (asked together), then the third vote decides
    "judge": {"default": [{"text": "PASS", "delay": SLOW}, {"text": "FAIL", "delay": SLOW}, "PASS"]},
}
TRANSPORTS = {
    "api": {"ANTHROPIC_API_KEY": "sk-ant-api03-made-up-key"},
    "claude-code": {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-made-up-setup-token"},
}


@pytest.fixture
def operator_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "operator"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
    monkeypatch.setenv("HOME", str(home))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


def grader_of(call: dict) -> str:
    said = json.dumps(call["body"]["messages"])
    [name] = [name for name, criterion in CRITERIA.items() if criterion in said]
    return name


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_runs_judges_are_asked_together_and_reported_in_grader_order(
    suite: Suite, operator_home, monkeypatch, transport
):
    graders = {name: f"---\ntype: llm\n---\n{criterion}\n" for name, criterion in CRITERIA.items()}
    graders["said-it"] = "---\ntype: regex\npattern: '42'\n---\n"
    suite.case("judged", frontmatter={"runs": 1}, graders=graders)
    for name, value in TRANSPORTS[transport].items():
        monkeypatch.setenv(name, value)
    with ScriptedEndpoint(keep_bodies=True) as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url(parse_script(SCRIPT)))
        run = suite.run("--ablation", "none", scripted=False)
        judges = [grader_of(c) for c in endpoint.calls("judge")]
    assert run.rc == 0, run.out + run.err
    [only] = run.case("judged")["arms"]["with"]
    assert [g["name"] for g in only["graders"]] == ["a-names", "b-short", "c-polite", "said-it"]
    for grader in only["graders"][:3]:
        assert grader["passed"] and sorted(grader["judgeVotes"][:2]) == [False, True], grader
        assert grader["judgeVotes"][2] is True and grader["scored"]
    assert sorted(judges) == sorted(list(CRITERIA) * 3)
    # every grader's first two votes were asked before any grader's third: the three were judged together
    assert sorted(judges[:6]) == sorted(list(CRITERIA) * 2), judges
