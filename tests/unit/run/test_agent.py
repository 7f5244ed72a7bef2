"""How a finished child is classified: the run's error kind decides whether it counts against the plugin."""

from __future__ import annotations

import json

import pytest

from pytest_plugin_eval.run.agent import ChildExit, classify
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
