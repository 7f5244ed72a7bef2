"""A session on the operator's sign-in, with no API key anywhere: a Claude Code login file in the operator's HOME,
a setup token (CLAUDE_CODE_OAUTH_TOKEN) alone, an expired login. The real Claude Code runs the agent and the judges
ask through Claude Code; the scripted endpoint, pointed at as the real API (ANTHROPIC_BASE_URL, no --scripted),
records a hash of the credential each request carries."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import ANY, Suite, bash, needs_sandbox, tool_results

from pytest_plugin_eval.doubles.scripted import NO_SCRIPT_REPLY, ScriptedEndpoint, auth_hash
from pytest_plugin_eval.grade.pairwise_judge import SYSTEM_PROMPT as PAIRWISE_SYSTEM
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run.agent import bundled_claude

pytestmark = pytest.mark.skipif(bundled_claude() is None, reason="needs the bundled Claude Code")

ACCESS = "sk-ant-oat01-made-up-access-token"
REFRESH = "sk-ant-ort01-made-up-refresh-token"
SETUP = "sk-ant-oat01-made-up-setup-token"
GRADERS = {
    "said-it": '---\ntype: regex\npattern: "scripted model"\n---\n',
    "judged": "---\ntype: llm\n---\nThe reply mentions a scripted model.\n",
}
CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR")


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def operator_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "operator"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True, "oauthAccount": {"x": 1}}))
    monkeypatch.setenv("HOME", str(home))
    for name in CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)
    return home


def write_login(home: Path, expires_at: int) -> None:
    login = {"accessToken": ACCESS, "refreshToken": REFRESH, "expiresAt": expires_at, "subscriptionType": "max"}
    (home / ".claude" / ".credentials.json").write_text(json.dumps({"claudeAiOauth": login}))


def session(suite: Suite, monkeypatch, home: Path, credential: str):
    suite.case("hello", graders=GRADERS)
    before = tree_digest(home)
    with ScriptedEndpoint() as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        run = suite.run("--runs", "1", scripted=False)
        calls = endpoint.calls()
    assert run.rc == 0, run.out + run.err
    doc = run.doc
    assert doc is not None and doc["partial"] is False
    case = run.case("hello")
    for arm in ("with", "without"):
        result = case["arms"][arm][0]
        graders = {g["name"]: g for g in result["graders"]}
        assert graders["said-it"]["passed"] and graders["judged"]["passed"], result
        assert graders["judged"]["explanation"] == "judge votes: PASS PASS"
        assert graders["judged"]["evidence"] == NO_SCRIPT_REPLY and result["judgeCostUsd"] > 0
    agents = [c for c in calls if c["kind"] == "agent"]
    judges = [c for c in calls if c["kind"] == "judge"]
    assert len(agents) >= 2 and len(judges) == 4  # two runs, two votes each
    assert {c["auth"] for c in calls if c["kind"] in ("agent", "judge")} == {auth_hash(credential)}
    assert tree_digest(home) == before  # the operator's home is untouched
    kept = "".join(p.read_text(errors="replace") for p in (suite.root / "evals" / "results").rglob("*") if p.is_file())
    assert credential not in kept and REFRESH not in kept  # nothing a run keeps holds what signed it in
    return run


def test_a_login_file_signs_every_run_and_judge_with_its_access_token(suite, operator_home, monkeypatch):
    write_login(operator_home, expires_at=4_000_000_000_000)
    run = session(suite, monkeypatch, operator_home, ACCESS)
    assert "access = Claude Code login (max plan) for runs and judges (judges ask through Claude Code)" in run.out
    checked = "`claude auth status` in a run's config: signed in (oauth_token)"
    assert f"checked with {checked}" in run.out
    assert run.doc["access"] == {
        "runs": "login",
        "judges": "claude-code",
        "label": "Claude Code login (max plan)",
        "plan": True,
        "checked": checked,
    }
    assert REFRESH not in run.out and ACCESS not in run.out


def test_a_setup_token_alone_signs_every_run_and_judge(suite, operator_home, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", SETUP)
    run = session(suite, monkeypatch, operator_home, SETUP)
    assert run.doc["access"]["runs"] == "setup-token" and run.doc["access"]["judges"] == "claude-code"


def test_an_expired_login_is_said_and_never_refreshed_in_a_run(suite, operator_home, monkeypatch):
    write_login(operator_home, expires_at=1_000)
    run = session(suite, monkeypatch, operator_home, ACCESS)  # the endpoint still takes the token: the run goes on
    assert "your Claude Code login has expired" in run.out and "run `claude` once" in run.out
    assert run.doc["access"]["notes"][0].startswith("your Claude Code login has expired")


@needs_sandbox
def test_the_agent_can_neither_read_nor_print_the_login_that_signs_it_in(suite, operator_home, monkeypatch):
    write_login(operator_home, expires_at=4_000_000_000_000)
    login = operator_home / ".claude" / ".credentials.json"
    probes = {
        "all": [
            bash(f"cat {login} 2>&1 | tail -1"),
            bash("env | sort"),
            bash('echo "token=$CLAUDE_CODE_OAUTH_TOKEN"'),
            bash("cat $CLAUDE_CONFIG_DIR/.credentials.json 2>&1 | tail -1; ls -a $CLAUDE_CONFIG_DIR 2>&1 | tail -3"),
            {"tool": "Read", "input": {"file_path": str(login)}},
            "done",
        ]
    }
    suite.case("probe", frontmatter={"runs": 1, "max_turns": 20}, graders=ANY)
    with ScriptedEndpoint(keep_bodies=True) as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url(parse_script(probes)))
        run = suite.run("--ablation", "none", "--allow-tools", "Bash", "Read", scripted=False)
        calls = endpoint.calls("agent")
    [only] = run.case("probe")["arms"]["with"]
    results = tool_results(only)
    assert len(results) == 5 and "denied" in results[4]
    assert "token=\n" in results[2] or results[2].strip() == "token="
    seen = json.dumps([c["body"] for c in calls])  # what the model was shown, before any redaction
    assert "sk-ant-o" not in seen and ACCESS not in seen and REFRESH not in seen


def run_with_an_agent_mock(suite: Suite, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[dict]]:
    """A case whose agent calls a wiki's tool, stood in for by an agent mock (its model asked under the judge's
    `mock:` answers), run against the scripted endpoint: the session and every request the endpoint saw."""
    (suite.root / ".mcp.json").write_text(json.dumps({"mcpServers": {"wiki": {"command": "false"}}}))
    wiki = suite.root / "evals" / "mocks" / "wiki"
    wiki.mkdir(parents=True)
    (wiki / "_server.md").write_text("---\ntype: agent\ntools: [get_page]\n---\nA wiki holding one page, Home.\n")
    script = {
        "all": [{"tool": "mcp__plugin_greeter_wiki__get_page", "input": {"page": "Home"}}, "done"],
        "judge": {"mock": ["Welcome (from the mock's model)"]},
    }
    suite.case("wiki", frontmatter={"runs": 1}, graders=ANY)
    with ScriptedEndpoint() as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url(parse_script(script)))
        run = suite.run("--ablation", "none", scripted=False)
        calls = endpoint.calls()
    return run, calls


def test_an_agent_mock_asks_its_model_through_claude_code_signed_in_as_the_run(suite, operator_home, monkeypatch):
    write_login(operator_home, expires_at=4_000_000_000_000)
    run, calls = run_with_an_agent_mock(suite, monkeypatch)
    [only] = run.case("wiki")["arms"]["with"]
    assert tool_results(only)[0] == "Welcome (from the mock's model)", run.out
    mocks = [c for c in calls if c["kind"] == "mock"]
    assert len(mocks) == 1 and mocks[0]["auth"] == auth_hash(ACCESS)
    assert only["mocks"]["calls"]["costUsd"] > 0
    kept = [p for p in (suite.root / "evals" / "results").rglob("*") if p.is_file()]
    assert not any(ACCESS in p.read_text(errors="replace") for p in kept)


def test_a_login_refused_at_the_first_run_stops_the_session_with_the_fix_for_a_login(suite, operator_home, monkeypatch):
    write_login(operator_home, expires_at=1_000)
    refused = {"all": [{"error": {"status": 401, "message": "OAuth token has expired"}, "repeat": 20}]}
    for name in ("a-first", "b-second"):
        suite.case(name, frontmatter={"runs": 1}, graders=GRADERS)
    with ScriptedEndpoint() as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url(parse_script(refused)))
        run = suite.run("--ablation", "none", scripted=False)
    assert run.rc == 2 and run.doc["partial"] is True and run.doc["partialReason"] == "auth_failed"
    assert [c["name"] for c in run.doc["cases"]] == ["a-first"]
    [stop] = [n for n in run.doc["notices"] if "credentials were rejected" in n]
    assert "`claude /login`" in stop and "set ANTHROPIC_API_KEY" not in stop
    assert "your Claude Code login has expired" in run.out  # said before the first run


def test_compare_pairwise_asks_its_judge_through_the_claude_code_binary_it_is_given(suite, operator_home, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", SETUP)
    suite.case("hello", frontmatter={"runs": 1}, graders={"said-it": GRADERS["said-it"]})
    log = suite.root / "claude.log"
    wrapper = suite.root / "my-claude"  # the binary the user names: it logs each start, then runs the real one
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {bundled_claude()} "$@"\n')
    wrapper.chmod(0o755)
    with ScriptedEndpoint(keep_bodies=True) as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        for folder in ("s1", "s2"):
            assert suite.run("--ablation", "none", "--output-dir", folder, scripted=False).rc == 0
        log.unlink(missing_ok=True)
        compared = subprocess.run(
            [sys.executable, "-m", "pytest_plugin_eval.cli.main", "compare", "s1", "s2", "--pairwise"]
            + ["--claude", str(wrapper), "--json"],
            cwd=suite.root,
            capture_output=True,
            text=True,
            timeout=300,
        )
        said = PAIRWISE_SYSTEM.split(".")[0]  # the pairwise judge's own system prompt
        asked = [c for c in endpoint.calls() if said in json.dumps((c.get("body") or {}).get("system"))]
    assert compared.returncode == 0, compared.stderr
    assert len(json.loads(compared.stdout)["pairwise"]["cases"][0]["pairs"]) == 1
    started = [line for line in log.read_text().splitlines() if line.startswith("-p ")]
    assert len(started) >= 2 and all("--tools" in line for line in started)  # the two orders, and any started ahead
    assert len(asked) == 2 and {c["auth"] for c in asked} == {auth_hash(SETUP)}


def test_a_login_that_expires_during_the_session_is_said_once_with_the_fix_and_the_session_goes_on(
    suite, operator_home, monkeypatch
):
    write_login(operator_home, expires_at=4_000_000_000_000)
    for name in ("a-first", "b-second", "c-third"):
        suite.case(name, frontmatter={"runs": 1}, graders={"said-it": GRADERS["said-it"]})
    before = tree_digest(operator_home)
    with ScriptedEndpoint(expire_after=1) as endpoint:  # the token is refused from the second run's request on
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        run = suite.run("--ablation", "none", scripted=False)
        calls = endpoint.calls("agent")
    assert run.rc == 2 and run.doc["partial"] is True
    assert [c["name"] for c in run.doc["cases"]] == ["a-first", "b-second", "c-third"]  # as the reference tool: on
    assert run.case("a-first")["arms"]["with"][0]["passed"]
    assert [run.case(c)["arms"]["with"][0]["errorKind"] for c in ("b-second", "c-third")] == ["auth", "auth"]
    [said] = [n for n in run.doc["notices"] if "credentials were rejected" in n]
    assert "after 1 run(s) had been answered" in said and "run `claude` once" in said
    assert "set ANTHROPIC_API_KEY" not in said
    assert {c["auth"] for c in calls} == {auth_hash(ACCESS)}  # never another credential, never a refresh
    assert tree_digest(operator_home) == before  # nothing rewrote the operator's login


def test_a_login_that_expires_during_trigger_runs_is_said_once_and_each_refused_trigger_run_is_a_run_error(
    suite, operator_home, monkeypatch
):
    write_login(operator_home, expires_at=4_000_000_000_000)
    suite.case("a-first", frontmatter={"runs": 1}, graders={"said-it": GRADERS["said-it"]})
    queries = {"should_fire": [{"query": "hi there!", "id": "hi"}], "should_not_fire": [{"query": "what time?"}]}
    (suite.root / "evals" / "triggers.yaml").write_text(json.dumps({"runs": 2, "skills": {"greet": queries}}))
    with ScriptedEndpoint(expire_after=1) as endpoint:  # one run is answered, whichever comes first
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        run = suite.run("--ablation", "none", scripted=False)
    assert run.rc == 2 and run.doc["partial"] is True, run.out
    trigger_runs = [r for q in run.doc["triggers"][0]["queries"] for r in q["runs"]]
    case_run = run.case("a-first")["arms"]["with"][0]
    refused = [r for r in [*trigger_runs, case_run] if r.get("errorKind") == "auth"]
    assert len(trigger_runs) == 4 and len(refused) == 4, [r.get("errorKind") for r in [*trigger_runs, case_run]]
    assert all(r["fired"] is None for r in refused if r in trigger_runs)  # a refused run decides nothing
    [said] = [n for n in run.doc["notices"] if "credentials were rejected" in n]  # once, shared by both kinds
    assert "after 1 run(s) had been answered" in said and "run `claude` once" in said
    assert run.out.count("credentials were rejected") == 1


def test_a_login_refused_at_the_first_trigger_run_stops_the_session_as_at_a_first_case_run(
    suite, operator_home, monkeypatch
):
    write_login(operator_home, expires_at=4_000_000_000_000)
    queries = {"should_fire": [{"query": f"hi number {n}!", "id": f"hi-{n}"} for n in range(4)]}
    (suite.root / "evals" / "triggers.yaml").write_text(json.dumps({"runs": 2, "skills": {"greet": queries}}))
    with ScriptedEndpoint(expire_after=0) as endpoint:  # refused from the first request on
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.session_url())
        run = suite.run("--concurrency", "1", scripted=False)  # one at a time: none started ahead of the stop
    assert run.rc == 2 and run.doc["partial"] is True and run.doc["partialReason"] == "auth_failed", run.out
    ran = [r for q in run.doc["triggers"][0]["queries"] for r in q["runs"]]
    assert ran and len(ran) < 8 and all(r["errorKind"] == "auth" for r in ran)  # stopped: not every run started
    [stop] = [n for n in run.doc["notices"] if "credentials were rejected" in n]
    assert "the session stops here" in stop and "`claude /login`" in stop


def test_an_agent_mock_on_an_api_key_helper_asks_its_model_with_the_helpers_key(suite, operator_home, monkeypatch):
    helper_key = "sk-ant-api03-made-up-helper-key"
    settings = {"apiKeyHelper": f"echo {helper_key}"}
    (operator_home / ".claude" / "settings.json").write_text(json.dumps(settings))
    run, calls = run_with_an_agent_mock(suite, monkeypatch)
    assert run.doc["access"]["runs"] == "api-key-helper" and run.doc["access"]["judges"] == "direct"
    [only] = run.case("wiki")["arms"]["with"]
    assert tool_results(only)[0] == "Welcome (from the mock's model)", run.out
    [mock] = [c for c in calls if c["kind"] == "mock"]
    assert mock["auth"] == auth_hash(helper_key)  # the key the helper printed, handed over by the run
    assert {c["auth"] for c in calls if c["kind"] == "agent"} == {auth_hash(helper_key)}
    kept = [p for p in (suite.root / "evals" / "results").rglob("*") if p.is_file()]
    assert not any(helper_key in p.read_text(errors="replace") for p in kept)
