"""Unit tests for the assertion helpers (pytest_plugin_eval.grade.assertions): a failing helper raises
AssertionError with the grader's explanation, and pytest's traceback stops at the caller's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pytest_plugin_eval.grade.assertions as assertions
from pytest_plugin_eval.grade.assertions import (
    assert_file_exists,
    assert_regex,
    assert_tool_order,
    assert_tool_used,
    check,
)
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript

PACKAGE = Path(assertions.__file__).parents[1]


def a_run(tmp_path: Path) -> RunOutput:
    events = [
        {"type": "system", "subtype": "init"},
        {
            "type": "assistant",
            "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
            "parent_tool_use_id": None,
        },
        {
            "type": "assistant",
            "message": {"id": "m2", "content": [{"type": "text", "text": "Renamed getUser to fetchUser."}]},
            "parent_tool_use_id": None,
        },
    ]
    return RunOutput(Transcript("\n".join(json.dumps(e) for e in events) + "\n"), cwd=tmp_path)


FAILING = [
    (assert_regex, ("^refactor",), {"flags": "m"}, "regex", {"pattern": "^refactor", "flags": "m"}),
    (assert_tool_used, ("Skill",), {}, "tool_used", {"tool": "Skill", "min": 1}),
    (assert_tool_order, ("Write", "Read"), {}, "tool_order", {"before": "Write", "after": "Read"}),
    (assert_file_exists, ("out.md",), {}, "file_exists", {"path": "out.md"}),
]


@pytest.mark.parametrize("helper, args, kwargs, kind, keys", FAILING, ids=lambda v: getattr(v, "__name__", None))
def test_a_failing_helper_raises_the_explanation_and_hides_its_frames(tmp_path, helper, args, kwargs, kind, keys):
    run = a_run(tmp_path)
    with pytest.raises(AssertionError) as info:
        helper(run, *args, **kwargs)
    explanation = check(run, kind, **keys).explanation
    assert str(info.value) == f"{kind} grader failed: {explanation}"
    # Every frame of the helpers is hidden from pytest's report: what is left is this test's own line.
    hidden = [e for e in info.traceback if Path(e.path).is_relative_to(PACKAGE)]
    assert hidden and all(e.frame.f_locals.get("__tracebackhide__") is True for e in hidden)
    shown = info.traceback.filter(info)
    assert [Path(e.path) for e in shown] == [Path(__file__)]


def test_the_regex_explanation_names_the_pattern_and_the_text(tmp_path):
    with pytest.raises(AssertionError) as info:
        assert_regex(a_run(tmp_path), "^refactor", flags="m")
    assert str(info.value) == (
        'regex grader failed: pattern /^refactor/m not found in last_message: "Renamed getUser to fetchUser."'
    )


def test_every_helper_sets_tracebackhide():
    helpers = [getattr(assertions, name) for name in assertions.__all__ if name.startswith("assert_")]
    assert len(helpers) == 6
    for helper in [*helpers, assertions.expect]:
        assert "__tracebackhide__" in helper.__code__.co_varnames, helper.__name__
