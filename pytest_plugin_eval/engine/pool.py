"""Several runs at once in one process (`-j N`).

A run is a child process the harness supervises, so a thread per run in flight is all the concurrency it needs:
no extra Python processes, no second collection of the suite. Once the items are known, every run is queued in
item order and up to N are in flight, ahead of the item that reports them; items still report one by one, in
order, so a session's results are those of a serial session. `stop()` ends what is in flight (the children are
stopped) and drops what has not started.

Each run is told which run begins after it (`upcoming`: the next in the queue, or, one at a time, the item pytest
runs next), so that it can start that run's agent ahead (engine/prestart.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from ..results.model import RunResult, SkippedRun

WAIT_SLICE = 0.5  # seconds: waiting for a run wakes this often, so Ctrl-C and SIGTERM are handled at once


def workers(config) -> int:
    """How many processes run items (pytest-xdist's -n; 1 without it)."""
    n = getattr(config.option, "numprocesses", None)
    return n if isinstance(n, int) and n > 0 else 1


@dataclass(frozen=True)
class Outcome:
    """What one run came to: its result, or the record of a run that was not started."""

    result: RunResult | None = None
    skipped: SkippedRun | None = None
    why_skipped: str = ""
    unneeded: str | None = None  # --runs auto: why the case needed no more runs (this one was not made)


class RunPool:
    """`size` runs at once on threads (in a pytest-xdist worker, size 0: each item runs its own run, in the
    worker's main thread). Even one at a time, runs go through a thread: the main thread only waits, so that a
    Ctrl-C or SIGTERM is handled at once and the run in flight is stopped and recorded as interrupted."""

    def __init__(self, size: int, execute: Callable[[Any, Any], Outcome]):
        self.size = size
        self._execute = execute
        self._executor: ThreadPoolExecutor | None = None
        self._queued: dict[str, tuple[Any, Future[Outcome]]] = {}
        self._next: dict[str, Any] = {}  # item → the item whose run begins after its run
        self.stopping = threading.Event()

    def start(self, items: Iterable[Any]) -> None:
        """Queue the runs of `items` (RunItems, in the order they will report). One at a time, nothing is queued
        ahead: each run starts when its item asks, after the previous one was reported (a rejected key stops the
        session before another run starts)."""
        if self.size < 2:
            return
        queue = list(items)
        for item, after in zip(queue, queue[1:], strict=False):  # runs begin in queue order
            self._next[item.nodeid] = after
        for item in queue:
            self._submit(item)

    def upcoming(self, item: Any, nextitem: Any) -> None:
        """pytest will run `nextitem` after `item` (what comes next, one at a time)."""
        if nextitem is not None and self.size < 2:
            self._next[item.nodeid] = nextitem

    def _submit(self, item: Any) -> Future[Outcome]:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="plugin-eval-run")
        if item.nodeid not in self._queued:
            self._queued[item.nodeid] = (item, self._executor.submit(self._guarded, item))
        return self._queued[item.nodeid][1]

    def _guarded(self, item: Any) -> Outcome:
        if self.stopping.is_set():
            return Outcome()
        return self._execute(item, self._next.pop(item.nodeid, None))

    def in_flight(self) -> int:
        """How many runs are running now."""
        return sum(1 for _, future in list(self._queued.values()) if future.running())

    def outcome(self, item: Any) -> Outcome:
        """The outcome of `item`'s run: waited for when it was queued, else run now."""
        if item.nodeid not in self._queued:
            if self.stopping.is_set():
                return Outcome()  # the session stopped before this run started
            if self.size < 1:
                return self._execute(item, self._next.pop(item.nodeid, None))
        future = self._submit(item)
        while True:
            try:
                outcome = future.result(timeout=WAIT_SLICE)
            except FutureTimeout:
                continue
            del self._queued[item.nodeid]
            return outcome

    def stop(self) -> list[tuple[Any, Outcome]]:
        """Stop the runs in flight (their children are stopped) and drop those not started. Returns the items
        whose runs were in flight, with what they came to (interrupted runs), for the record."""
        self.stopping.set()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        ended = [
            (item, future.result())
            for item, future in self._queued.values()
            if future.done() and not future.cancelled() and future.exception() is None
        ]
        self._queued.clear()
        return [(item, outcome) for item, outcome in ended if outcome.result is not None]
