"""Faults, costs and interruptions, end to end: the scripted endpoint injects rate limits, overload, server
errors, broken and stalled streams and rejected credentials into the real Claude Code."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS

GREETING = {"greeting": GREETING_GRADERS["greeting"]}
HELLO = "Hello from the plugin."


@pytest.mark.parametrize("status", [429, 529, 500])
def test_a_transient_error_is_retried_and_the_run_scores_normally(suite, status):
    suite.case(
        "flaky",
        frontmatter={"runs": 1},
        graders=GREETING,
        script={"all": [{"error": {"status": status, "retry_after": 0}, "repeat": 2}, HELLO]},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("flaky")["arms"]["with"]
    assert only["error"] is None and only["score"] == 1.0
    assert run.rc == 0 and run.doc["partial"] is False


def test_retry_after_is_honoured(suite):
    suite.case(
        "throttled",
        frontmatter={"runs": 1},
        graders=GREETING,
        script={"all": [{"error": {"status": 429, "retry_after": 3}}, HELLO]},
    )
    started = time.monotonic()
    run = suite.run("--ablation", "none")
    assert run.case("throttled")["arms"]["with"][0]["score"] == 1.0
    assert time.monotonic() - started >= 3


def test_a_persistent_error_is_an_infrastructure_error_after_bounded_retries(suite):
    # Claude Code makes 1 + 3 attempts per request; the harness then runs the whole run once more.
    suite.case(
        "down",
        frontmatter={"runs": 1},
        graders=GREETING,
        script={"all": [{"error": {"status": 529, "retry_after": 0}, "repeat": 50}]},
    )
    started = time.monotonic()
    run = suite.run("--ablation", "none")
    [only] = run.case("down")["arms"]["with"]
    assert only["errorKind"] == "api" and only["attempts"] == 2
    assert only["score"] is None and only["graders"] == []
    assert run.doc["partialReason"] == "api_error" and run.rc == 2
    assert time.monotonic() - started < 60  # not the reference tool's minutes per run


def test_the_second_attempt_of_a_run_can_succeed(suite):
    # 4 failures exhaust Claude Code's own retries in the first attempt; the second attempt gets through.
    suite.case(
        "recovers",
        frontmatter={"runs": 1},
        graders=GREETING,
        script={"all": [{"error": {"status": 500, "retry_after": 0}, "repeat": 4}, HELLO]},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("recovers")["arms"]["with"]
    assert only["attempts"] == 2 and only["error"] is None and only["score"] == 1.0
    assert run.rc == 0


def test_a_connection_cut_mid_stream_is_retried(suite):
    suite.case("cut", frontmatter={"runs": 1}, graders=GREETING, script={"all": [{"text": "Hel", "drop": True}, HELLO]})
    run = suite.run("--ablation", "none")
    assert run.case("cut")["arms"]["with"][0]["score"] == 1.0 and run.rc == 0


def test_a_stalled_stream_is_dropped_and_retried(suite, monkeypatch):
    monkeypatch.setenv("CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS", "2000")  # the operator's setting wins over ours
    suite.case(
        "stall",
        frontmatter={"runs": 1, "timeout_seconds": 60},
        graders=GREETING,
        script={"all": [{"text": "Hel", "stall": 120}, HELLO]},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("stall")["arms"]["with"]
    assert only["error"] is None and only["score"] == 1.0


def test_rejected_credentials_on_the_first_run_stop_the_session(suite):
    for name in ("a-first", "b-second", "c-third"):
        suite.case(
            name,
            frontmatter={"runs": 1},
            graders=GREETING,
            script={"all": [{"error": {"status": 401, "message": "invalid x-api-key"}, "repeat": 20}]},
        )
    run = suite.run("--ablation", "none")
    assert run.rc == 2 and run.doc["partialReason"] == "auth_failed"
    assert [c["name"] for c in run.doc["cases"]] == ["a-first"]
    assert run.case("a-first")["arms"]["with"][0]["errorKind"] == "auth"
    assert any("credentials were rejected" in n for n in run.doc["notices"])


def test_a_zero_cost_ceiling_runs_nothing(suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING, script={"all": [HELLO]})
    run = suite.run("--max-cost-usd", "0")
    assert run.rc == 2 and run.doc["partialReason"] == "cost_ceiling"
    assert run.doc["cases"] == [] and len(run.doc["skippedRuns"]) == 4
    assert "4 skipped" in run.out


def test_the_cost_ceiling_holds_across_two_workers(suite):
    # Each run costs $0.0008 (100 input + 20 output tokens at claude-opus-5-5 prices, one request).
    for name in ("a", "b", "c", "d"):
        suite.case(name, frontmatter={"runs": 2}, graders=GREETING, script={"all": [HELLO]})
    cap = 0.0025
    run = suite.run("--max-cost-usd", str(cap), "-n", "2", "--ablation", "none")
    ran = [r for c in run.doc["cases"] for r in c["arms"]["with"]]
    assert run.rc == 2 and run.doc["partialReason"] == "cost_ceiling"
    assert len(ran) + len(run.doc["skippedRuns"]) == 8
    # A run starts only below the cap; at most one more per worker may be in flight when it is crossed.
    assert 4 <= len(ran) <= 5
    assert run.doc["costUsd"] <= cap + 2 * 0.0008 + 1e-9
    assert all(s["reason"] == "cost_ceiling" for s in run.doc["skippedRuns"])


def test_a_run_that_crosses_the_ceiling_leaves_its_paid_graders_out(suite):
    rubric = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case(
        "judged",
        frontmatter={"runs": 1},
        graders={**GREETING, "quality": rubric},
        script={"all": [{"text": HELLO, "usage": {"input_tokens": 1000, "output_tokens": 20}}]},
    )
    run = suite.run("--max-cost-usd", "0.001", "--ablation", "none")
    [only] = run.case("judged")["arms"]["with"]
    quality = next(g for g in only["graders"] if g["name"] == "quality")
    assert (
        quality["skipped"] is True and quality["scored"] is False and quality["explanation"] == "skipped: cost ceiling"
    )
    assert only["skippedPaidGraders"] is True and only["score"] == 1.0  # scored on the free grader alone
    assert run.doc["partialReason"] == "cost_ceiling" and run.rc == 2


def test_a_regrade_holds_the_cost_ceiling_over_its_judges(suite):
    """--regrade spends only judges: they count against --max-cost-usd, so a regrade under a ceiling one run's
    judge crosses stops there (before, its judges were never counted and every run was judged)."""
    rubric = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case("judged", frontmatter={"runs": 3}, graders={**GREETING, "quality": rubric}, script={"all": [HELLO]})
    first = suite.run("--ablation", "none")
    assert first.rc == 0, first.out
    runs = first.case("judged")["arms"]["with"]
    judge_cost = runs[0]["judgeCostUsd"]
    assert judge_cost > 0
    stored = Path(runs[0]["tracePath"]).parents[3]
    again = suite.run("--regrade", str(stored), "--max-cost-usd", str(judge_cost / 2), "-j", "1")
    regraded = again.case("judged")["arms"]["with"]
    assert again.rc == 2 and again.doc["partialReason"] == "cost_ceiling", again.out
    # the first run is judged (below the cap when it began); no later one asks a judge
    assert len(regraded) + len(again.doc["skippedRuns"]) == 3
    assert sum(r["judgeCostUsd"] for r in regraded) == pytest.approx(judge_cost)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_session_writes_partial_results(suite, sig, code):
    for name in ("a", "b", "c"):
        suite.case(name, frontmatter={"runs": 2}, graders=GREETING, script={"all": [{"text": HELLO, "delay": 1.5}]})
    out = suite.root / "result.json"
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals",
            "-p",
            "no:cacheprovider",
            "--trust-plugin",
            "--scripted",
            "--ablation",
            "none",
            "--json",
            str(out),
        ],
        cwd=suite.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    runs = suite.root / "evals" / "results"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(runs.glob("*/runs/*/with-*/trace.jsonl"))) < 3:
        time.sleep(0.2)
    child.send_signal(sig)
    output, _ = child.communicate(timeout=60)
    assert child.returncode == code, output
    doc = json.loads(out.read_text())
    assert doc["partial"] is True and doc["partialReason"] == "interrupted"
    runs_recorded = [r for c in doc["cases"] for r in c["arms"]["with"]]
    finished = [r for r in runs_recorded if r.get("errorKind") != "interrupted"]
    interrupted = [r for r in runs_recorded if r.get("errorKind") == "interrupted"]
    # A run in flight, if the signal came during one (not between two), is recorded, not lost — see
    # test_robustness for a signal that is sure to land mid-run.
    assert 1 <= len(finished) < 6 and len(interrupted) <= 1
    assert all(r["score"] == 1.0 for r in finished)
    assert all(r["score"] is None for r in interrupted)  # left out of the score, not counted as 0
    assert all(c["aggregates"]["score"] == 1.0 for c in doc["cases"] if any(r in finished for r in c["arms"]["with"]))
    assert list(runs.glob("*/report.html"))
    assert not list(suite.root.glob("evals/results/*/.tmp-*"))
