"""The round board of --runs auto: a later run waits for the earlier rounds of its case, then is needed or not."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace

from pytest_plugin_eval.adaptive import DECIDED, INCOMPLETE, AutoRuns
from pytest_plugin_eval.core.kinds import Arm
from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.rounds import RoundBoard, round_of

EARLIER_4 = {RunId("c", arm, i) for arm in ("with", "without") for i in (1, 2, 3)}


def run(index: int, case: str = "c", arm: Arm = "with", model: str | None = None) -> RunId:
    return RunId(case, arm, index, model)


def board(tmp_path, most=6) -> RoundBoard:
    return RoundBoard(tmp_path / "rounds.sqlite", AutoRuns(most=most))


def test_first_runs_are_always_needed(tmp_path):
    assert board(tmp_path).need(run(3), set(), True, threading.Event()) is None


def test_queue_positions():
    plan = AutoRuns(most=6)
    assert [round_of(i, plan) for i in range(1, 7)] == [0, 0, 0, 1, 2, 3]


def test_a_run_waits_for_the_earlier_rounds_then_is_needed(tmp_path):
    b = board(tmp_path)
    for earlier in sorted(EARLIER_4 - {run(3, arm="without")}):
        b.record(earlier, 1.0)
    waits = []

    def sleep(seconds):  # the missing run finishes while the later one waits
        waits.append(seconds)
        b.record(run(3, arm="without"), 1.0)

    assert b.need(run(4), EARLIER_4, True, threading.Event(), sleep=sleep) is None
    assert len(waits) == 1


def test_a_decided_case_needs_no_more_and_its_later_runs_read_the_decision(tmp_path):
    b = board(tmp_path)
    for i in range(1, 5):
        b.record(run(i), 1.0)
        b.record(run(i, arm="without"), 0.0)
    earlier_5 = {run(i, arm=arm) for arm in ("with", "without") for i in range(1, 5)}
    assert b.need(run(5), earlier_5, True, threading.Event()) == DECIDED
    # run 6 does not wait for the runs 5 that were never made
    assert b.need(run(6), earlier_5 | {run(5), run(5, arm="without")}, True, threading.Event()) == DECIDED
    assert b.need(run(4, "other"), set(), True, threading.Event()) is None  # cases are kept apart


def test_with_against_the_case_is_decided_on_delta_against(tmp_path):
    b = board(tmp_path)
    for case in ("c", "d"):
        for i in range(1, 5):
            b.record(run(i, case), 1.0)
            b.record(run(i, case, "without"), 0.0)  # Δ is settled…
            b.record(run(i, case, "against"), 1.0 if i % 2 else 0.0)  # …ΔAGAINST is not
    earlier = {run(i, arm=arm) for arm in ("with", "without", "against") for i in range(1, 5)}
    earlier_d = {replace(other, case="d") for other in earlier}
    assert b.need(run(5), earlier, True, threading.Event()) == DECIDED
    assert b.need(run(5, "d"), earlier_d, True, threading.Event(), versus="against") is None


def test_a_stopping_session_does_not_wait(tmp_path):
    stopping = threading.Event()
    stopping.set()
    assert board(tmp_path).need(run(4), EARLIER_4, True, stopping) == INCOMPLETE


def test_processes_share_the_board_through_its_file(tmp_path):
    one, two = board(tmp_path), board(tmp_path)
    one.record(run(1), 0.5)
    assert two.finished(run(3, arm="without")) == {run(1): 0.5}


def test_each_model_of_a_matrix_is_decided_apart_in_the_rounds_file_as_before(tmp_path):
    b = board(tmp_path)
    for i in range(1, 5):
        b.record(run(i, model="haiku"), 1.0)
        b.record(run(i, arm="without", model="haiku"), 0.0)
    earlier = {run(i, arm=arm, model="haiku") for arm in ("with", "without") for i in range(1, 5)}
    assert b.need(run(5, model="haiku"), earlier, True, threading.Event()) == DECIDED
    assert b.need(run(4, model="opus"), set(), True, threading.Event()) is None  # not haiku's decision
    assert b.finished(run(1)) == {}
    with sqlite3.connect(b.path) as db:  # the file's rows: the case on its model, the arm, the index, the score
        assert db.execute("SELECT * FROM runs ORDER BY arm, idx LIMIT 1").fetchone() == ("c\0haiku", "with", 1, 1.0)
