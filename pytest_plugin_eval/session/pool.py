"""Several runs at once in one process (`-j N`).

A run is a child process the harness supervises, so a thread per run in flight is all the concurrency it needs:
no extra Python processes, no second collection of the suite. Once the items are known, every run is queued in
item order and up to N are in flight, ahead of the item that reports them; items still report one by one, in
order, so a session's results are those of a serial session. `stop()` ends what is in flight (the children are
stopped) and drops what has not started.
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


@dataclass(frozen=True)
class Outcome:
    """What one run came to: its result, or the record of a run that was not started."""

    result: RunResult | None = None
    skipped: SkippedRun | None = None
    why_skipped: str = ""


class RunPool:
    def __init__(self, size: int, execute: Callable[[Any], Outcome]):
        self.size = size
        self._execute = execute
        self._executor: ThreadPoolExecutor | None = None
        self._futures: dict[str, Future[Outcome]] = {}
        self.stopping = threading.Event()

    def start(self, items: Iterable[Any]) -> None:
        """Queue the runs of `items` (RunItems, in the order they will report)."""
        if self.size < 2:
            return  # serial: each item runs its own run
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="plugin-eval-run")
        for item in items:
            if item.nodeid not in self._futures:
                self._futures[item.nodeid] = self._executor.submit(self._guarded, item)

    def _guarded(self, item: Any) -> Outcome:
        if self.stopping.is_set():
            return Outcome()
        return self._execute(item)

    def in_flight(self) -> int:
        """How many runs are running now."""
        return sum(1 for future in list(self._futures.values()) if future.running())

    def outcome(self, item: Any) -> Outcome:
        """The outcome of `item`'s run: waited for when it was queued, else run now."""
        future = self._futures.pop(item.nodeid, None)
        if future is None:
            return self._execute(item)
        while True:
            try:
                return future.result(timeout=WAIT_SLICE)
            except FutureTimeout:
                continue

    def stop(self) -> None:
        """Stop the runs in flight (their children are stopped) and drop those not started."""
        self.stopping.set()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._futures.clear()
