"""The round board of --runs auto: a later run waits for the earlier rounds of its case, then is needed or not."""

from __future__ import annotations

import threading

from pytest_plugin_eval.adaptive import DECIDED, INCOMPLETE, AutoRuns
from pytest_plugin_eval.engine.rounds import RoundBoard, round_of

EARLIER_4 = {(arm, i) for arm in ("with", "without") for i in (1, 2, 3)}


def board(tmp_path, most=6) -> RoundBoard:
    return RoundBoard(tmp_path / "rounds.sqlite", AutoRuns(most=most))


def test_first_runs_are_always_needed(tmp_path):
    assert board(tmp_path).need("c", 3, set(), True, threading.Event()) is None


def test_queue_positions():
    plan = AutoRuns(most=6)
    assert [round_of(i, plan) for i in range(1, 7)] == [0, 0, 0, 1, 2, 3]


def test_a_run_waits_for_the_earlier_rounds_then_is_needed(tmp_path):
    b = board(tmp_path)
    for arm, i in sorted(EARLIER_4 - {("without", 3)}):
        b.record("c", arm, i, 1.0)
    waits = []

    def sleep(seconds):  # the missing run finishes while the later one waits
        waits.append(seconds)
        b.record("c", "without", 3, 1.0)

    assert b.need("c", 4, EARLIER_4, True, threading.Event(), sleep=sleep) is None
    assert len(waits) == 1


def test_a_decided_case_needs_no_more_and_its_later_runs_read_the_decision(tmp_path):
    b = board(tmp_path)
    for i in range(1, 5):
        b.record("c", "with", i, 1.0)
        b.record("c", "without", i, 0.0)
    earlier_5 = {(arm, i) for arm in ("with", "without") for i in range(1, 5)}
    assert b.need("c", 5, earlier_5, True, threading.Event()) == DECIDED
    # run 6 does not wait for the runs 5 that were never made
    assert b.need("c", 6, earlier_5 | {("with", 5), ("without", 5)}, True, threading.Event()) == DECIDED
    assert b.need("other", 4, set(), True, threading.Event()) is None  # cases are kept apart


def test_with_against_the_case_is_decided_on_delta_against(tmp_path):
    b = board(tmp_path)
    for case in ("c", "d"):
        for i in range(1, 5):
            b.record(case, "with", i, 1.0)
            b.record(case, "without", i, 0.0)  # Δ is settled…
            b.record(case, "against", i, 1.0 if i % 2 else 0.0)  # …ΔAGAINST is not
    earlier = {(arm, i) for arm in ("with", "without", "against") for i in range(1, 5)}
    assert b.need("c", 5, earlier, True, threading.Event()) == DECIDED
    assert b.need("d", 5, earlier, True, threading.Event(), versus="against") is None


def test_a_stopping_session_does_not_wait(tmp_path):
    stopping = threading.Event()
    stopping.set()
    assert board(tmp_path).need("c", 4, EARLIER_4, True, stopping) == INCOMPLETE


def test_processes_share_the_board_through_its_file(tmp_path):
    one, two = board(tmp_path), board(tmp_path)
    one.record("c", "with", 1, 0.5)
    assert two.finished("c") == {"with": {1: 0.5}}
