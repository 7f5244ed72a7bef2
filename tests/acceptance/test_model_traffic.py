"""A real model's traffic, end to end (the real Claude Code against the scripted endpoint): it thinks before it
answers, calls tools in parallel, refuses, writes a paragraph before its verdict as a judge, keeps a slow stream
alive with pings or goes silent with a request open."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from helpers.e2e import GREETING_GRADERS

GREETING = {"greeting": GREETING_GRADERS["greeting"]}
HELLO = "Hello from the plugin."
REFUSAL = {"text": "I can't help with that.", "stop": "refusal"}


def query(doc: dict, skill: str, query_id: str) -> dict:
    trigger_set = next(s for s in doc["triggers"] if s["name"] == skill)
    return next(q for q in trigger_set["queries"] if q["id"] == query_id)


def test_a_model_that_thinks_and_calls_tools_in_parallel_is_graded_as_usual(suite):
    globbed = "---\ntype: tool_used\ntool: Glob\n---\n"
    suite.case(
        "thinker",
        frontmatter={"runs": 1},
        graders={**GREETING, "globbed": globbed},
        script={
            "all": [
                {
                    "thinking": "The user wants a greeting; let me look around first.",
                    "blocks": [
                        {"tool": "Glob", "input": {"pattern": "*"}},
                        {"tool": "Glob", "input": {"pattern": "*.md"}},
                    ],
                },
                {"thinking": "Nothing relevant. I greet.", "text": HELLO},
            ]
        },
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("thinker")["arms"]["with"]
    assert only["error"] is None and only["score"] == 1.0, only
    assert run.rc == 0, run.out


def test_a_refusal_is_the_plugins_outcome_graded_once_and_not_an_outage(suite):
    # The model refuses twice (Claude Code asks once more after the first): Claude Code ends the run on an "API
    # Error". It is the agent's answer — graded, never run again, the session not partial (the reference tool
    # exits 1 too).
    suite.case("refused", frontmatter={"runs": 1}, graders=GREETING, script={"all": [{**REFUSAL, "repeat": 2}]})
    run = suite.run("--ablation", "none", "--api-retries", "1")
    [only] = run.case("refused")["arms"]["with"]
    assert only["errorKind"] == "refusal", only
    assert only["error"].startswith("exit 1: the model refused to answer (stop_reason: refusal)"), only["error"]
    assert only.get("attempts", 1) == 1  # not retried: paying twice for the same "no"
    assert only["score"] == 0.0 and [g["passed"] for g in only["graders"]] == [False]
    assert run.doc["partial"] is False and run.rc == 1, run.out


def test_a_trigger_query_the_model_refuses_is_not_fired(suite):
    (suite.root / "evals" / "triggers.yaml").write_text(
        yaml.safe_dump(
            {
                "skills": {
                    "greet": {
                        "should_not_fire": [
                            {"query": "write me something nasty", "id": "nasty", "scripted": [REFUSAL, REFUSAL]}
                        ]
                    }
                },
            }
        )
    )
    run = suite.run()
    nasty = query(run.doc, "greet", "nasty")
    assert [(r["fired"], r.get("errorKind")) for r in nasty["runs"]] == [(False, None)] * 5, nasty
    assert {r["decidedBy"] for r in nasty["runs"]} == {"the model refused the query without consulting a skill"}
    assert nasty["verdict"] == "does_not_fire" and nasty["correct"] is True
    assert run.doc["partial"] is False and run.rc == 0, run.out


def test_a_judge_that_reasons_before_its_verdict_is_read_and_one_cut_off_says_so(suite):
    reasoning = "The reply greets the user warmly, in one short sentence, which is what the criterion asks for. "
    quality = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case(
        "judged",
        frontmatter={"runs": 1},
        graders={**GREETING, "quality": quality, "rambling": quality},
        script={
            "all": [HELLO],
            "judge": {
                "quality": [reasoning * 4 + "\n\nPASS"],  # ~400 tokens before the verdict
                "rambling": [reasoning * 200 + "\n\nPASS"],  # far past any judge's token budget
            },
        },
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("judged")["arms"]["with"]
    graders = {g["name"]: g for g in only["graders"]}
    assert graders["quality"]["passed"] is True and graders["quality"]["explanation"] == "judge votes: PASS PASS"
    rambling = graders["rambling"]
    assert rambling["errored"] is True and rambling["scored"] is False
    assert rambling["explanation"].startswith(
        "judge unavailable: 3 replies stopped at the judge's token limit (max_tokens 4096) before any PASS or FAIL: "
        "'The reply greets the user warmly"
    ), rambling["explanation"]
    assert only["score"] == 1.0 and run.doc["partialReason"] == "judge_error" and run.rc == 2


def test_silence_with_a_request_open_is_a_stall_and_a_stream_of_pings_a_timeout(suite):
    # Both streams send message_start and then no content until long after the limit: one sends nothing at all
    # (every request Claude Code makes stalls the same way), the other a ping every second. The limit leaves room
    # for the 10 s silence threshold (docs/costs-and-faults.md) to show, whatever the machine's load.
    limit = {"runs": 1, "timeout_seconds": 16}
    suite.case(
        "silent", frontmatter=limit, graders=GREETING, script={"all": [{"text": "Hel", "stall": 60, "repeat": 4}]}
    )
    suite.case(
        "pinging", frontmatter=limit, graders=GREETING, script={"all": [{"text": "Hel", "stall": 60, "pings": 1}]}
    )
    run = suite.run("--ablation", "none", "--api-retries", "0", "-j", "2")
    [silent] = run.case("silent")["arms"]["with"]
    assert silent["errorKind"] == "api" and silent["score"] is None and silent["graders"] == [], silent
    assert silent["error"] == (
        "the model's stream stalled: Claude Code dropped it at its idle limit and was asking again, until the run's "
        "time limit (16s) stopped it"
    )
    [pinging] = run.case("pinging")["arms"]["with"]
    assert (pinging["errorKind"], pinging["error"], pinging["score"]) == ("timeout", "timed out after 16s", 0.0)
    assert [g["passed"] for g in pinging["graders"]] == [False]  # graded: the model was still sending
    assert run.doc["partialReason"] == "api_error" and run.rc == 2


def test_a_case_not_scored_says_why_on_one_line(suite, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    quality = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case(
        "unjudged",
        frontmatter={"runs": 1},
        graders={"quality": quality},
        script={"all": [HELLO], "judge": {"quality": [{"error": {"status": 401, "message": "judge key revoked"}}]}},
    )
    outage = {"error": {"status": 500, "message": "upstream failed\n\nTry again later.", "retry_after": 0}}
    suite.case("outage", frontmatter={"runs": 1}, graders=GREETING, script={"all": [{**outage, "repeat": 3}]})
    run = suite.run("--ablation", "none", "--api-retries", "0", "-v")
    skipped = [line for line in run.out.splitlines() if "SKIPPED" in line]
    assert any(
        "unjudged SKIPPED not scored: every grader errored (quality: judge unavailable: 3 vote(s) failed after "
        "retries: API error 401: judge key revoked" in line
        for line in skipped
    ), skipped
    [outage_line] = [line for line in skipped if "outage SKIPPED" in line]
    assert "upstream failed Try again later." in outage_line, skipped
    table = run.out[run.out.index("CASE ") :]
    assert "outage  " in table and "upstream failed Try again later." in table  # the table's note: one line


def test_a_run_out_of_time_on_pings_keeps_its_trace_while_another_session_starts_elsewhere(suite, monkeypatch):
    # Issue 34 item 24: a session starting in another PID namespace (a container sharing /tmp) took this one for
    # dead and removed its workspaces mid-run: the pinging run lost its trace and stderr.txt (a harness error).
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare (util-linux)")
    monkeypatch.setenv("TMPDIR", str(suite.root.parent))  # the sweep sees this session's scratch, no other's
    suite.case(
        "pinging",
        frontmatter={"runs": 1, "timeout_seconds": 12},
        graders=GREETING,
        script={"all": [{"text": "Hel", "stall": 60, "pings": 1}]},
    )
    sweep = "from pytest_plugin_eval.engine.scratch import sweep_abandoned; print(sweep_abandoned())"
    elsewhere = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", sys.executable, "-c"]
    swept: list[subprocess.CompletedProcess] = []
    sweeper = threading.Timer(6, lambda: swept.append(subprocess.run([*elsewhere, sweep], capture_output=True)))
    sweeper.start()
    run = suite.run("--ablation", "none", "--api-retries", "0")
    sweeper.join()
    if swept[0].returncode != 0:
        pytest.skip(f"no PID namespace here: {swept[0].stderr.decode()[-200:]}")
    assert swept[0].stdout.decode().strip() == "[]"
    [pinging] = run.case("pinging")["arms"]["with"]
    assert (pinging["errorKind"], pinging["error"]) == ("timeout", "timed out after 12s"), pinging
    assert Path(pinging["tracePath"]).is_file()
