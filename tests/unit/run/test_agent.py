"""How a finished child is classified: the run's error kind decides whether it counts against the plugin; and the
child process itself, started ahead of its prompt."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from pytest_plugin_eval.run.agent import AgentCommand, Child, ChildExit, classify, prompt_parts, silence_limit
from pytest_plugin_eval.run.transcript import Transcript


def transcript(**result) -> Transcript:
    return Transcript(
        json.dumps({"type": "system", "subtype": "init"}) + "\n" + json.dumps({"type": "result", **result})
    )


def child(rc=1, **kw) -> ChildExit:
    return ChildExit(
        returncode=rc,
        timed_out=kw.get("timed_out", False),
        duration=1.0,
        stderr=kw.get("stderr", ""),
        stopped=kw.get("stopped", False),
    )


def test_a_successful_run_has_no_error():
    assert classify(child(0), transcript(subtype="success", is_error=False), 300) is None


@pytest.mark.parametrize(
    "result, kind, message",
    [
        (
            {
                "subtype": "success",
                "is_error": True,
                "api_error_status": 529,
                "terminal_reason": "api_error",
                "result": "API Error: Repeated 529 Overloaded errors.",
            },
            "api",
            "exit 1: API Error: Repeated 529 Overloaded errors.",
        ),
        (
            {
                "subtype": "success",
                "is_error": True,
                "api_error_status": 401,
                "terminal_reason": "api_error",
                "result": "Failed to authenticate. API Error: 401",
            },
            "auth",
            "exit 1: Failed to authenticate. API Error: 401",
        ),
        (
            {
                "subtype": "success",
                "is_error": True,
                "api_error_status": None,
                "terminal_reason": "api_error",
                "result": "Not logged in · Please run /login",
            },
            "auth",
            "exit 1: Not logged in · Please run /login",
        ),
        (
            {"subtype": "error_max_turns", "is_error": True, "errors": ["Reached maximum number of turns (2)"]},
            "max_turns",
            "exit 1: Reached maximum number of turns (2)",
        ),
        ({"subtype": "error_during_execution", "is_error": True, "errors": ["boom"]}, "agent", "exit 1: boom"),
    ],
)
def test_error_kinds(result, kind, message):
    error = classify(child(1), transcript(**result), 300)
    assert (error.kind, error.message) == (kind, message)
    assert error.infrastructure == (kind in ("api", "auth"))


def test_a_timeout_and_a_crash():
    assert classify(child(None, timed_out=True), Transcript(""), 3).message == "timed out after 3s"
    crash = classify(child(134, stderr="warming up\nSegmentation fault\n"), Transcript(""), 300)
    assert (crash.kind, crash.message) == ("crash", "exit 134: Segmentation fault")
    assert classify(child(0), Transcript(""), 300).message == "exit 0: the agent ended without a result line"


def test_a_run_the_harness_stopped_is_not_an_error():
    assert classify(child(None, stopped=True), Transcript(""), 300) is None  # reported as `aborted` instead


# ---- a stalled stream against an agent busy until the limit ---------------------------------------------------

INIT = {"type": "system", "subtype": "init"}
TOOL_USE = {"type": "assistant", "message": {"id": "m1", "content": [{"type": "tool_use", "name": "Bash"}]}}
TOOL_RESULT = {"type": "user", "message": {"content": [{"type": "tool_result", "content": "ok"}]}}
TEXT = {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Hel"}]}}


def trace(*events) -> Transcript:
    return Transcript("".join(json.dumps(e) + "\n" for e in events))


def killed(silent: float) -> ChildExit:
    return ChildExit(returncode=-15, timed_out=True, duration=60.0, stderr="", silent=silent)


REQUESTING = {"type": "system", "subtype": "status", "status": "requesting"}
START = {"type": "stream_event", "event": {"type": "message_start", "message": {"id": "m3"}}}
DELTA = {"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"text": "H"}}}
ABANDONED = {"type": "stream_event", "event": {"type": "message_stop"}, "abandoned_blocks": {"from_block_index": 0}}
RETRY = {"type": "system", "subtype": "api_retry", "attempt": 1, "error_status": 529, "error": "overloaded"}


@pytest.mark.parametrize(
    "events", [(INIT,), (INIT, TOOL_USE, TOOL_RESULT), (INIT, TEXT), (INIT, TOOL_USE, TOOL_RESULT, REQUESTING, START)]
)
def test_a_quiet_trace_alone_is_no_stall_pings_never_reach_it(events):
    # A model that only pings until the limit writes nothing to the trace: still sending, graded as a timeout.
    # A stream silent for Claude Code's idle limit leaves its drop in the trace (below): that is the evidence.
    error = classify(killed(silent=250.0), trace(*events), 300)
    assert (error.kind, error.message) == ("timeout", "timed out after 300s")


def test_the_silence_limit_is_a_third_of_the_time_limit_within_claude_codes_bounds():
    assert [silence_limit(t) for t in (6, 12, 30, 45, 180, 270, 300, 3600)] == [10, 10, 10, 15, 60, 90, 90, 90]


@pytest.mark.parametrize(
    "events, message",
    [
        (
            (INIT, TOOL_USE, TOOL_RESULT, REQUESTING, START, ABANDONED),
            "the model's stream stalled: Claude Code dropped it at its idle limit and was asking again",
        ),
        (
            (INIT, REQUESTING, RETRY, REQUESTING),
            "the model's API was failing: Claude Code was retrying a request (HTTP 529: overloaded)",
        ),
    ],
)
def test_claude_codes_own_retries_since_the_last_byte_are_evidence_of_an_outage(events, message):
    error = classify(killed(silent=2.0), trace(*events), 8)
    assert (error.kind, error.message) == ("api", f"{message}, until the run's time limit (8s) stopped it")


@pytest.mark.parametrize(
    "events, silent, why",
    [
        ((INIT, TOOL_USE, TOOL_RESULT), 1.5, "the agent kept working: its trace grew until just before the limit"),
        ((INIT, TOOL_USE), 90.0, "its own tool was running, not the model"),
        ((), 90.0, "it never started: no trace at all"),
        ((INIT, REQUESTING, START, DELTA), 0.5, "the model was still streaming its reply"),
        ((INIT, REQUESTING, RETRY, REQUESTING, START, DELTA), 0.5, "streaming again after a retry"),
        ((INIT, REQUESTING, RETRY, TEXT), 2.0, "a retry that then succeeded: the model sent a block since"),
    ],
)
def test_an_agent_busy_until_the_limit_is_the_plugins_timeout(events, silent, why):
    error = classify(killed(silent), trace(*events), 300)
    assert (error.kind, error.message) == ("timeout", "timed out after 300s"), why
    assert not error.infrastructure


def test_a_prompt_too_long_is_the_runs_own_error_not_an_outage():
    result = {
        "subtype": "success",
        "is_error": True,
        "api_error_status": 400,
        "api_error_type": "invalid_request_error",
        "terminal_reason": "prompt_too_long",
        "result": "Prompt is too long · the request is ~250000 tokens (limit 200000)",
    }
    error = classify(child(1), transcript(**result), 300)
    assert (error.kind, error.status) == ("prompt_too_long", 400)
    assert error.message == "exit 1: Prompt is too long · the request is ~250000 tokens (limit 200000)"
    assert not error.infrastructure and not error.ungraded  # graded on what the run produced
    older = {**result, "terminal_reason": "api_error", "result": "API Error: 400 prompt is too long: 250000 tokens"}
    assert classify(child(1), transcript(**older), 300).kind == "prompt_too_long"
    other = {**older, "result": "API Error: 400 tools.0: invalid schema"}
    assert classify(child(1), transcript(**other), 300).kind == "api"


def test_a_refusal_is_the_agents_answer_not_an_outage():
    # What Claude Code 2.1.x writes when the model refused twice (it asks once more after the first).
    result = {
        "subtype": "success",
        "is_error": True,
        "stop_reason": "refusal",
        "terminal_reason": "api_error",
        "api_error_status": None,
        "result": "API Error: Opus 5.5's safeguards flagged this message (https://www.anthropic.com/legal/aup).\n\n"
        "Try rephrasing the request in a new session or change your model.",
    }
    error = classify(child(1), transcript(**result), 300)
    assert error.kind == "refusal" and not error.infrastructure and not error.ungraded
    assert error.message == (
        "exit 1: the model refused to answer (stop_reason: refusal): Opus 5.5's safeguards flagged this message "
        "(https://www.anthropic.com/legal/aup)."
    )
    assert classify(child(1), transcript(**{**result, "stop_reason": "end_turn"}), 300).kind == "api"


# ---- the child process: started ahead of its prompt ----------------------------------------------------------


def shell_child(tmp_path: Path, script: str, timeout: float = 30) -> Child:
    """A stand-in child: a shell that reads its prompt from stdin as `claude -p` does."""
    cmd = AgentCommand(("sh", "-c", script), dict(os.environ), tmp_path, "the prompt", timeout)
    return Child(cmd, tmp_path / "trace.jsonl", tmp_path / "stderr.txt")


def eventually(condition, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_a_child_started_ahead_gets_its_prompt_only_when_it_runs(tmp_path):
    child = shell_child(tmp_path, 'echo started > started; cat > got; echo "{\\"type\\": \\"result\\"}"')
    assert eventually((tmp_path / "started").exists)
    assert eventually(lambda: (tmp_path / "got").exists() and (tmp_path / "got").read_text() == "t")
    time.sleep(0.1)
    assert (tmp_path / "got").read_text() == "t" and child.alive  # its first character only: waiting for the rest
    exit_ = child.run()
    assert exit_.returncode == 0 and not exit_.timed_out
    assert (tmp_path / "got").read_text() == "the prompt"
    assert (tmp_path / "trace.jsonl").read_text() == '{"type": "result"}\n'


def test_the_time_limit_counts_from_the_prompt(tmp_path):
    child = shell_child(tmp_path, "cat > /dev/null; sleep 0.3", timeout=1)
    time.sleep(1.5)  # longer than the limit, waiting for the prompt
    assert child.run().timed_out is False


def test_a_child_that_will_not_run_is_stopped_with_what_it_started(tmp_path):
    child = shell_child(tmp_path, "sleep 60 & echo $! > grandchild; cat > /dev/null; wait")
    assert eventually((tmp_path / "grandchild").exists)
    time.sleep(0.1)
    grandchild = int((tmp_path / "grandchild").read_text())
    child.kill()
    assert child.process.poll() is not None
    assert eventually(lambda: not Path(f"/proc/{grandchild}").exists())


# Claude Code's rule for a piped prompt: the first byte within 3 s (here 1 s), then whatever comes until the end.
IMPATIENT_READER = """
import select, sys
if not select.select([sys.stdin], [], [], 1.0)[0]:
    sys.exit("no stdin data received in 1s")
open("got", "wb").write(sys.stdin.buffer.read())
"""


def test_a_child_waits_for_its_prompt_longer_than_claude_code_waits_for_a_first_byte(tmp_path):
    cmd = AgentCommand((sys.executable, "-c", IMPATIENT_READER), dict(os.environ), tmp_path, "/greet — ünï\n-x", 30)
    child = Child(cmd, tmp_path / "trace.jsonl", tmp_path / "stderr.txt")
    time.sleep(1.5)  # longer than the reader waits for a first byte
    assert child.alive
    assert child.run().returncode == 0
    assert (tmp_path / "got").read_bytes() == "/greet — ünï\n-x".encode()  # byte for byte, the whole of it


@pytest.mark.parametrize("prompt", ["Say hello.", "ünïcødé", "日本語", "🙂 emoji first", "-leading dash", "x", ""])
def test_the_prompt_is_split_on_a_whole_first_character(prompt):
    first, rest = prompt_parts(prompt)
    assert first + rest == prompt.encode("utf-8")
    assert first.decode("utf-8") == prompt[:1]  # never half a character


def test_a_child_that_died_before_its_prompt_is_not_alive_and_its_run_reports_the_exit(tmp_path):
    child = shell_child(tmp_path, "exit 3")
    assert eventually(lambda: not child.alive)
    assert child.run().returncode == 3  # giving it the rest of its prompt does not raise
