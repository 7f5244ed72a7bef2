"""The in-process run pool: who runs a run, how far ahead, and what stopping leaves."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from pytest_plugin_eval.engine.pool import Outcome, RunPool
from pytest_plugin_eval.results.model import RunResult


def items(n: int) -> list:
    return [SimpleNamespace(nodeid=f"case[{i}]", index=i) for i in range(1, n + 1)]


class Recorder:
    def __init__(self, hold: threading.Event | None = None):
        self.started: list[int] = []
        self.upcoming: dict[int, int | None] = {}  # run → the run it was told comes next
        self.threads: set[str] = set()
        self.hold = hold

    def __call__(self, item, upcoming) -> Outcome:
        self.started.append(item.index)
        self.upcoming[item.index] = upcoming.index if upcoming is not None else None
        self.threads.add(threading.current_thread().name)
        if self.hold is not None:
            self.hold.wait(5)
        return Outcome(result=RunResult("with", item.index, score=1.0, passed=True))


def test_size_0_runs_each_item_in_the_calling_thread():
    runs = Recorder()
    pool = RunPool(0, runs)
    batch = items(2)
    pool.start(batch)
    assert runs.started == []
    assert pool.outcome(batch[0]).result.index == 1
    assert runs.threads == {threading.current_thread().name}


def test_size_1_runs_on_a_thread_and_never_ahead_of_its_item():
    runs = Recorder()
    pool = RunPool(1, runs)
    batch = items(3)
    pool.start(batch)
    time.sleep(0.05)
    assert runs.started == []  # nothing starts before its item asks
    assert pool.outcome(batch[0]).result.index == 1
    time.sleep(0.05)
    assert runs.started == [1]
    assert threading.current_thread().name not in runs.threads
    pool.stop()


def test_size_2_runs_ahead_in_item_order():
    runs = Recorder()
    pool = RunPool(2, runs)
    batch = items(4)
    pool.start(batch)
    assert [pool.outcome(item).result.index for item in batch] == [1, 2, 3, 4]
    assert sorted(runs.started) == [1, 2, 3, 4]
    pool.stop()


def test_stop_returns_the_runs_in_flight_and_drops_the_rest():
    hold = threading.Event()
    runs = Recorder(hold)
    pool = RunPool(2, runs)
    batch = items(5)
    pool.start(batch)
    deadline = time.monotonic() + 5
    while len(runs.started) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    threading.Timer(0.1, hold.set).start()  # the children end once stopped
    ended = pool.stop()
    assert sorted(item.index for item, _ in ended) == [1, 2]
    assert sorted(runs.started) == [1, 2]
    assert pool.outcome(batch[4]) == Outcome()  # asked after the stop: never started


def test_one_at_a_time_each_run_is_told_the_item_pytest_runs_next():
    for size in (0, 1):
        runs = Recorder()
        pool = RunPool(size, runs)
        batch = items(3)
        pool.start(batch)
        for item, nextitem in zip(batch, [*batch[1:], None], strict=True):
            pool.upcoming(item, nextitem)
            pool.outcome(item)
        assert runs.upcoming == {1: 2, 2: 3, 3: None}
        pool.stop()


def test_runs_ahead_are_each_told_the_next_in_the_queue():
    runs = Recorder()
    pool = RunPool(2, runs)
    batch = items(3)
    pool.start(batch)
    for item in batch:
        pool.upcoming(item, None)  # pytest's next item means nothing here: runs begin in queue order
        pool.outcome(item)
    assert runs.upcoming == {1: 2, 2: 3, 3: None}
    pool.stop()
