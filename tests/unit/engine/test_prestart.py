"""Runs started ahead: one at a time, taken once, and never left running (pytest_plugin_eval.engine.prestart).
No child process: `start_agent` is replaced by a fake that records what became of each start."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.engine import prestart
from pytest_plugin_eval.engine.prestart import Prestarts, SpareCores, session_cpu_times, tree_cpu_ticks


class FakeStarted:
    def __init__(self, plan, ws):
        self.plan, self.workspace = plan, ws
        self.child = SimpleNamespace(age=0.1, alive=True)  # seconds since its child started; still running
        self.discarded = False

    def discard(self) -> None:
        self.discarded = True
        self.workspace.remove()


@pytest.fixture
def started(monkeypatch) -> list[FakeStarted]:
    made: list[FakeStarted] = []

    def start_agent(plan, ws):
        if plan == "cannot start":
            raise RuntimeError("no sandbox")
        made.append(FakeStarted(plan, ws))
        return made[-1]

    monkeypatch.setattr(prestart, "start_agent", start_agent)
    return made


def key(index: int, arm: str = "with") -> tuple[str, str, int]:
    return ("/suite/evals/case", arm, index)


def test_a_run_started_ahead_is_taken_once(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    taken = ahead.take(key(2))
    assert taken is started[0] and taken.plan == "plan 2" and taken.workspace.root.parent == tmp_path
    assert ahead.take(key(2)) is None
    assert not taken.discarded  # the caller runs it


def test_only_one_run_is_ahead_at_a_time(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    ahead.start(key(2), lambda: ("plan 2 again", tmp_path))  # already ahead: not started twice
    ahead.start(key(3), lambda: ("plan 3", tmp_path))  # run 2 was not taken: it is not wanted
    assert [s.plan for s in started] == ["plan 2", "plan 3"]
    assert started[0].discarded and not started[0].workspace.root.exists()
    assert ahead.take(key(2)) is None and ahead.take(key(3)) is started[1]


def test_a_run_that_cannot_be_started_ahead_is_left_for_its_turn(started, tmp_path):
    ahead = Prestarts()

    def broken_plan():
        raise OSError("results folder gone")

    ahead.start(key(2), broken_plan)
    ahead.start(key(3), lambda: ("cannot start", tmp_path))
    assert ahead.take(key(2)) is None and ahead.take(key(3)) is None
    assert list(tmp_path.iterdir()) == []  # the workspace made for run 3 is gone again


def test_a_run_not_made_is_stopped(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    ahead.discard(key(2))
    ahead.discard(key(4))  # never started: nothing to do
    assert started[0].discarded and ahead.take(key(2)) is None


def test_closing_stops_what_is_ahead_and_starts_nothing_more(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    ahead.close()
    ahead.start(key(3), lambda: ("plan 3", tmp_path))
    assert started[0].discarded and [s.plan for s in started] == ["plan 2"]
    assert ahead.take(key(3)) is None
    assert not any(Path(tmp_path).iterdir())


def test_a_run_that_has_begun_is_never_started_ahead_after(started, tmp_path):
    ahead = Prestarts()
    assert ahead.take(key(2)) is None  # run 2 began without a child started ahead (another thread got there first)
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    assert started == []


def test_a_start_in_progress_is_waited_for(monkeypatch, tmp_path):
    entered, release = threading.Event(), threading.Event()

    def slow_start(plan, ws):
        entered.set()
        release.wait(5)
        return FakeStarted(plan, ws)

    monkeypatch.setattr(prestart, "start_agent", slow_start)
    ahead = Prestarts()
    starter = threading.Thread(target=ahead.start, args=(key(2), lambda: ("plan 2", tmp_path)))
    starter.start()
    assert entered.wait(5)
    threading.Timer(0.1, release.set).start()
    taken = ahead.take(key(2))  # its run begins while the child is being started: it gets that child
    starter.join(5)
    assert taken is not None and taken.plan == "plan 2"


def test_a_child_that_waited_long_for_its_prompt_is_used(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    started[0].child.age = 60.0  # a real model kept the run before it busy for a minute: the child still waits
    assert ahead.take(key(2)) is started[0] and not started[0].discarded
    ahead.start(key(3), lambda: ("plan 3", tmp_path))  # and runs go on being started ahead
    assert ahead.take(key(3)) is started[1]


def test_a_child_that_died_before_its_prompt_is_replaced_by_a_fresh_start(started, tmp_path):
    ahead = Prestarts()
    ahead.start(key(2), lambda: ("plan 2", tmp_path))
    started[0].child.alive = False  # killed from outside while it waited
    assert ahead.take(key(2)) is None  # the run starts afresh, as if nothing had been started ahead
    assert started[0].discarded and not started[0].workspace.root.exists()
    ahead.start(key(3), lambda: ("plan 3", tmp_path))
    assert ahead.take(key(3)) is started[1]


# ---- spare cores ------------------------------------------------------------------------------------------


class Stat:
    """A machine whose CPU time moves as the test says."""

    def __init__(self) -> None:
        self.idle, self.total, self.now = 0.0, 0.0, 0.0

    def spend(self, seconds: float, idle_fraction: float) -> None:
        self.now += seconds
        self.total += seconds * 100
        self.idle += seconds * 100 * idle_fraction

    def read(self):
        return (self.idle, self.total)


def test_spare_cores_are_the_idle_share_of_the_cores_since_the_last_look():
    stat = Stat()
    spare = SpareCores(fallback=0.0, read=stat.read, cores=2, clock=lambda: stat.now)
    stat.spend(1.0, 0.5)
    assert spare() == pytest.approx(1.0)
    stat.spend(1.0, 0.05)  # four fast runs on two cores: averaged with what came before
    assert spare() == pytest.approx((1.0 + 0.1) / 2)
    stat.spend(1.0, 0.05)
    assert spare() == pytest.approx(((1.0 + 0.1) / 2 + 0.1) / 2)
    answer = spare()  # no time has passed: too short a window to say, the last answer stands
    stat.spend(0.05, 1.0)
    assert spare() == answer


def test_where_cpu_time_cannot_be_read_the_fallback_stands():
    assert SpareCores(fallback=1.0, read=lambda: None, cores=2)() == 1.0
    assert SpareCores(fallback=0.0, read=lambda: None, cores=2)() == 0.0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux: CPU time from /proc")
def test_the_session_counts_the_cpu_time_of_its_own_process_tree_alive_or_reaped():
    import os
    import subprocess
    import sys

    before = tree_cpu_ticks(os.getpid())
    assert before is not None
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"
    subprocess.run([sys.executable, "-c", busy], check=True)  # a child's CPU time, reaped
    after = tree_cpu_ticks(os.getpid())
    assert after is not None and after - before >= 0.4 * os.sysconf("SC_CLK_TCK")
    assert tree_cpu_ticks(2**22 + 12345) is None  # no such process


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux: CPU time from /proc")
def test_a_session_that_only_waits_leaves_its_cores_to_spare_whatever_else_the_machine_does():
    import os
    import time

    spare = SpareCores(fallback=0.0, read=session_cpu_times(os.getpid(), cores=2), cores=2)
    time.sleep(0.5)  # waiting, as for a model's answer
    assert spare() > 1.5
