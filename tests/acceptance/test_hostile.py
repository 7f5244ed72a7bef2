"""Trustworthy under attack, faults and bad input, end to end (the real Claude Code against the scripted endpoint):
a fault is never read as the plugin's failure (nor the plugin's failure as a fault), graders cannot hang a session,
hostile case files are load errors of bounded cost, and regrade is safe on whatever it is given."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time

import pytest
from helpers.e2e import GREETING_GRADERS

GREETING = {"greeting": GREETING_GRADERS["greeting"]}
HELLO = "Hello from the plugin."
BACKTRACKS = "a" * 41 + "b"


# ---- 5. a fault is never read as the plugin's failure -----------------------------------------------------------


def test_a_stream_stalled_until_the_time_limit_is_an_outage_and_a_busy_agent_a_timeout(suite, monkeypatch):
    # Claude Code drops a stream silent for its idle limit (10 s at the least) and asks again without streaming;
    # that request stalls too: its own evidence that the API stalled when the run's limit strikes at 20 s.
    monkeypatch.setenv("CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS", "10000")
    suite.case(
        "stalled",
        frontmatter={"runs": 1, "timeout_seconds": 20},
        graders=GREETING,
        script={"all": [{"text": "Hel", "stall": 60, "repeat": 3}]},
    )
    suite.case(
        "busy",
        frontmatter={"runs": 1, "timeout_seconds": 8},
        graders=GREETING,
        script={"all": [{"tool": "Glob", "input": {"pattern": "*"}, "delay": 1, "repeat": 40}, HELLO]},
    )
    run = suite.run("--ablation", "none", "--api-retries", "0", "-j", "2")
    [stalled] = run.case("stalled")["arms"]["with"]
    assert stalled["errorKind"] == "api" and stalled["score"] is None and stalled["graders"] == []
    assert stalled["error"] == (
        "the model's stream stalled: Claude Code dropped it at its idle limit and was asking again, until the run's "
        "time limit (20s) stopped it"
    )
    [busy] = run.case("busy")["arms"]["with"]
    assert (busy["errorKind"], busy["error"], busy["score"]) == ("timeout", "timed out after 8s", 0.0)
    assert run.doc["partialReason"] == "api_error" and run.rc == 2


def test_a_reply_still_streaming_at_the_time_limit_is_graded_on_what_the_run_produced(suite):
    # The model's last reply comes one character every 0.5 s: still streaming when the 8 s limit strikes.
    suite.case(
        "streaming",
        frontmatter={"runs": 1, "timeout_seconds": 8},
        graders={**GREETING, "globbed": "---\ntype: tool_used\ntool: Glob\n---\n"},
        script={"all": [{"tool": "Glob", "input": {"pattern": "*"}}, {"text": HELLO * 2, "trickle": 0.5}]},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("streaming")["arms"]["with"]
    assert (only["errorKind"], only["error"]) == ("timeout", "timed out after 8s")
    assert {g["name"]: g["passed"] for g in only["graders"]} == {"greeting": False, "globbed": True}
    assert run.doc["partial"] is False and run.rc == 1  # the plugin's failure, not an outage
    [trace] = (suite.root / "evals" / "results").glob("*/runs/streaming/with-1/trace.jsonl")
    assert '"Glob"' in trace.read_text() and '"stream_event"' not in trace.read_text()


def test_a_judge_that_never_says_pass_or_fail_errors_its_grader(suite):
    suite.case(
        "judged",
        frontmatter={"runs": 1},
        graders={**GREETING, "quality": "---\ntype: llm\n---\nThe reply greets the user.\n"},
        script={"all": [HELLO], "judge": {"quality": ["lorem ipsum dolor sit amet"]}},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("judged")["arms"]["with"]
    quality = next(g for g in only["graders"] if g["name"] == "quality")
    assert quality["errored"] is True and quality["scored"] is False and quality["passed"] is False
    assert quality["explanation"] == (
        "judge unavailable: 3 replies with no PASS or FAIL in it: 'lorem ipsum dolor sit amet'"
    )
    assert only["score"] == 1.0  # scored on the grader that could judge
    assert run.doc["partialReason"] == "judge_error" and run.rc == 2


FULL_DISK = """
from pytest_plugin_eval.run import artefacts


def keep(self, *args):
    raise OSError(28, "No space left on device")


artefacts.RunFolder.keep = keep  # the fault: keeping a run's artefacts fails
"""


def test_a_harness_fault_is_a_run_error_in_the_results_not_a_vanished_case(suite):
    suite.case("kept", frontmatter={"runs": 1}, graders=GREETING, script={"all": [HELLO]})
    (suite.root / "conftest.py").write_text(FULL_DISK)
    run = suite.run("--ablation", "none")
    [only] = run.case("kept")["arms"]["with"]
    assert only["errorKind"] == "harness" and only["score"] is None and only["passed"] is False
    assert only["error"] == "harness error: OSError: [Errno 28] No space left on device (conftest.py:6, in keep)"
    assert run.rc != 0


def test_a_prompt_too_long_only_with_the_plugin_is_the_plugins_failure(suite):
    too_long = {"error": {"status": 400, "message": "prompt is too long: 250000 tokens > 200000 maximum"}}
    suite.case("bloated", frontmatter={"runs": 1}, graders=GREETING, script={"with": [too_long], "without": [HELLO]})
    run = suite.run()
    case = run.case("bloated")
    [with_run], [without] = case["arms"]["with"], case["arms"]["without"]
    assert with_run["errorKind"] == "prompt_too_long" and with_run["score"] == 0.0
    assert [g["passed"] for g in with_run["graders"]] == [False]  # graded on what the run produced
    assert with_run.get("attempts", 1) == 1  # not retried as an outage
    assert without["score"] == 1.0
    assert run.doc["partial"] is False and run.rc == 1  # a regression, not partial results


# ---- 6. graders cannot hang a session ----------------------------------------------------------------------------

CATASTROPHIC = "---\ntype: regex\npattern: '^(a+)+$'\n---\n"
MARKER = """
from pathlib import Path

def grade(run):
    (Path(__file__).resolve().parents[3] / "grading-started").touch()
"""


def test_a_catastrophic_regex_is_errored_by_its_time_limit(suite):
    suite.case("backtracks", frontmatter={"runs": 1}, graders={"slow": CATASTROPHIC}, script={"all": [BACKTRACKS]})
    started = time.monotonic()
    run = suite.run("--ablation", "none")
    assert time.monotonic() - started < 60  # minutes without the limit (>25 s for this pattern alone)
    [only] = run.case("backtracks")["arms"]["with"]
    [slow] = only["graders"]
    assert slow["errored"] is True and slow["scored"] is False
    # 5 s of wall time at the most, however little of a core the loaded machine gives the engine.
    assert "stopped after 5 s" in slow["explanation"] and "(the limit)" in slow["explanation"]
    assert run.rc == 2 and run.doc["partial"] is True


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_catastrophic_regex_stops_the_session_at_once(suite, sig, code):
    folder = suite.case(
        "backtracks", frontmatter={"runs": 1}, graders={"slow": CATASTROPHIC}, script={"all": [BACKTRACKS]}
    )
    (folder / "graders" / "a_marker.py").write_text(MARKER)  # graded first: says when grading starts
    out = suite.root / "result.json"
    argv = [sys.executable, "-m", "pytest", "evals", "-p", "no:cacheprovider", "--trust-plugin", "--scripted"]
    child = subprocess.Popen(
        [*argv, "--ablation", "none", "--json", str(out)],
        cwd=suite.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    marker = suite.root / "grading-started"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not marker.exists() and child.poll() is None:
        time.sleep(0.05)
    assert marker.exists()
    time.sleep(0.5)  # the regex is running now
    signalled = time.monotonic()
    child.send_signal(sig)
    output, _ = child.communicate(timeout=60)
    # Stopped while its grader ran, not after the grader's 5 s limit (the run would then be graded, its regex
    # errored by the limit); the time is only a guard against a hang, since a loaded machine is slow to exit.
    assert "the session was stopped while the run was graded" in output, output
    assert "stopped after 5 s" not in out.read_text(), output
    assert time.monotonic() - signalled < 30, output
    assert child.returncode == code, output
    doc = json.loads(out.read_text())
    assert doc["partial"] is True and doc["partialReason"] == "interrupted"


# ---- 7. hostile case files are load errors, bounded in cost ------------------------------------------------------

BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
)


def test_hostile_case_files_are_listed_as_load_errors_and_the_good_case_runs(suite):
    suite.case("good", frontmatter={"runs": 1}, graders=GREETING, script={"all": [HELLO]})
    suite.case("unhashable", graders={"g": "---\ntype: [regex]\npattern: x\n---\n"}, script={"all": [HELLO]})
    deep = suite.case("deep", graders=GREETING, script={"all": [HELLO]})
    (deep / "prompt.md").write_text("---\ngrowthbook_overrides: " + "[" * 20_000 + "]" * 20_000 + "\n---\nSay hi.\n")
    twice = suite.case("twice", graders=GREETING, script={"all": [HELLO]})
    (twice / "prompt.md").write_text("---\nruns: 1\nmax_turns: 3\nruns: 2\n---\nSay hi.\n")
    bomb = suite.case("bomb", graders=GREETING, script={"all": [HELLO]})
    (bomb / "graders" / "bomb.md").write_text(f"---\ntype: regex\npattern: x\n{BOMB}---\n")
    repeat = suite.case("repeat", graders=GREETING)
    (repeat / "scripted.yaml").write_text("all:\n  - {text: hi, repeat: 10000000}\n")
    started = time.monotonic()
    run = suite.run("--ablation", "none")
    assert time.monotonic() - started < 60
    assert [c["name"] for c in run.doc["cases"]] == ["good"]
    assert run.case("good")["arms"]["with"][0]["score"] == 1.0
    errors = {e["dir"].split("/")[-1]: e for e in run.doc["loadErrors"]}
    assert sorted(errors) == ["bomb", "deep", "repeat", "twice", "unhashable"]

    def problem(case: str) -> tuple[str, str, str]:
        [p] = errors[case]["problems"]
        return p["file"].split("/", 2)[-1], p["key"], p["message"]

    assert problem("unhashable")[:2] == ("graders/g.md", "type")
    file, key, message = problem("deep")
    assert (file, key) == ("prompt.md", "growthbook_overrides[0][0]…") and "more than 64 levels deep" in message
    file, key, message = problem("twice")
    assert (file, key) == ("prompt.md", "runs") and 'the key "runs" is written twice' in message
    file, key, message = problem("bomb")
    assert file == "graders/bomb.md" and "more than 20,000 values once its aliases are expanded" in message
    file, key, message = problem("repeat")
    assert (file, key) == ("scripted.yaml", "all[0].repeat") and "at most 10,000 turns" in message
    results = next((suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    assert results.stat().st_size < 200_000 and (results.parent / "report.html").stat().st_size < 2_000_000
    assert run.rc == 1


# ---- 9. regrade is safe on whatever it is given ------------------------------------------------------------------


@pytest.fixture
def stored(suite):
    """A session's results folder: one case, one run that passes."""
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING, script={"all": [HELLO]})
    first = suite.run("--ablation", "none")
    assert first.rc == 0
    return next((suite.root / "evals" / "results").iterdir())


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda text: text[: len(text) // 2], "aggregate-result.json is not valid JSON — truncated or damaged?"),
        (
            lambda text: json.dumps({"cases": [{"name": "greets", "arms": []}]}),
            "aggregate-result.json is not a results document: cases[0].arms: must be an object (got a list)",
        ),
    ],
)
def test_a_damaged_document_is_a_clean_option_error(suite, stored, damage, message):
    document = stored / "aggregate-result.json"
    document.write_text(damage(document.read_text()))
    again = suite.run("--regrade", str(stored))
    assert again.rc == 1 and "INTERNALERROR" not in again.out + again.err
    assert f"Error: --regrade {stored}: {message}" in again.out + again.err


def test_regrade_reads_the_folder_it_is_given_and_never_passes_what_it_cannot_read(suite, stored, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(stored, copy)
    trace = copy / "runs" / "greets" / "with-1" / "trace.jsonl"
    trace.write_text(trace.read_text().replace("Hello from the plugin", "Goodbye"))
    again = suite.run("--regrade", str(copy))
    [regraded] = again.case("greets")["arms"]["with"]
    assert regraded["score"] == 0.0  # the copy's trace, not the original's
    assert again.doc["suite"]["regradedFrom"] == str(copy)

    shutil.rmtree(copy / "runs")
    gone = suite.run("--regrade", str(copy))
    [missing] = gone.case("greets")["arms"]["with"]
    assert missing["errorKind"] == "missing_artefacts" and missing["score"] is None and missing["graders"] == []
    assert missing["error"] == "runs/greets/with-1/trace.jsonl is missing — the run cannot be regraded"
    assert gone.rc != 0

    (stored / "runs" / "greets" / "with-1" / "trace.jsonl").write_text("\x00garbage\n")
    corrupt = suite.run("--regrade", str(stored))
    [damaged] = corrupt.case("greets")["arms"]["with"]
    assert damaged["errorKind"] == "missing_artefacts" and damaged["score"] is None
    assert "is not a Claude Code trace: line 1 is not a JSON object" in damaged["error"]
    assert corrupt.rc != 0
