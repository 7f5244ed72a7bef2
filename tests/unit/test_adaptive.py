"""The --runs auto rule: parsing, when a case stops, and replaying a finished case."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.adaptive import (
    DECIDED,
    FUTILE,
    INCOMPLETE,
    MAX_RUNS,
    PRECISE,
    SINGLE_ARM,
    AutoRuns,
    replay,
    stop_reason,
)


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        ("auto", AutoRuns()),
        ("auto:12", AutoRuns(most=12)),
        ("auto:3", AutoRuns(most=3)),
        ("auto:8:0.25", AutoRuns(most=8, width=0.25)),
        ("auto::0.5", AutoRuns(width=0.5)),
    ],
)
def test_parse(text, plan):
    assert AutoRuns.parse(text) == plan


@pytest.mark.parametrize("text", ["auto:2", "auto:x", "auto:5:0", "auto:5:abc", "auto:5:3", "autox", "auto:5:1:2"])
def test_parse_refuses(text):
    with pytest.raises(ValueError):
        AutoRuns.parse(text)


def test_each_look_is_stricter_so_that_all_looks_keep_the_level():
    plan = AutoRuns(most=10)
    assert plan.looks == 7
    assert plan.look_level == pytest.approx(1 - 0.05 / 7)
    assert AutoRuns(most=3).looks == 1  # no early look: the one look is the last round


def test_no_decision_before_the_first_runs():
    assert stop_reason(AutoRuns(), [1, 1], [0, 0], rounds=2, two_arm=True) is None


def test_stop_reasons():
    plan = AutoRuns(most=6)
    assert stop_reason(plan, [1] * 4, [0] * 4, 4, True) == DECIDED
    assert stop_reason(plan, [1] * 3, [0] * 3, 3, True) is None  # 3 against 3 is not enough at the look level
    assert stop_reason(plan, [0] * 4, [1] * 4, 4, True) == DECIDED  # the plugin hurts: decided too
    assert stop_reason(plan, [1] * 6, [1] * 6, 6, True) == MAX_RUNS
    assert stop_reason(AutoRuns(most=6, width=2), [1] * 3, [1] * 3, 3, True) == PRECISE
    assert stop_reason(plan, [1] * 3, [], 3, False) == SINGLE_ARM


def test_a_case_that_more_runs_could_not_settle_stops_from_its_second_look():
    plan = AutoRuns(most=10)
    assert stop_reason(plan, [1] * 3, [1] * 3, 3, True) is None  # the first look never gives up
    assert stop_reason(plan, [1] * 4, [1] * 4, 4, True) == FUTILE
    assert stop_reason(plan, [1, 1, 1, 0], [1, 0, 0, 0], 4, True) is None  # 0.75 against 0.25 could settle
    assert stop_reason(AutoRuns(most=10, futility=None), [1] * 4, [1] * 4, 4, True) is None


def test_errored_runs_give_no_interval_and_the_case_goes_on():
    assert stop_reason(AutoRuns(most=6), [1], [0], 4, True) is None


def test_replay_finds_where_the_session_stopped():
    plan = AutoRuns(most=6)
    assert replay(plan, {i: 1.0 for i in range(1, 5)}, {i: 0.0 for i in range(1, 5)}, True) == (4, DECIDED)
    assert replay(plan, {i: 1.0 for i in range(1, 7)}, {i: 1.0 for i in range(1, 7)}, True) == (4, FUTILE)
    flat = AutoRuns(most=6, futility=None)
    assert replay(flat, {i: 1.0 for i in range(1, 7)}, {i: 1.0 for i in range(1, 7)}, True) == (6, MAX_RUNS)
    # run 4 of the without-arm never happened (the cost ceiling, say): the case stopped after 3 rounds
    assert replay(plan, {i: 1.0 for i in range(1, 5)}, {1: 1.0, 2: 1.0, 3: 1.0}, True) == (3, INCOMPLETE)
    assert replay(plan, {1: 1.0, 2: 1.0, 3: 1.0}, {}, False) == (3, SINGLE_ARM)
    assert replay(plan, {1: 1.0}, {1: 1.0}, True) == (1, INCOMPLETE)
    assert replay(plan, {1: 1.0}, {}, True) == (0, INCOMPLETE)
    # an errored run (no score) still completes its round
    assert replay(plan, {1: 1.0, 2: None, 3: 1.0, 4: 1.0, 5: 1.0}, {i: 0.0 for i in range(1, 6)}, True) == (4, DECIDED)
