"""The judges of a run at the same time: each paid grader in a daemon thread of its own, so that grading a run takes
about its slowest judge rather than the sum of them.

How many graders are judged at once is bounded for the whole process (all the runs a session has in flight share
it): JUDGED_AT_ONCE graders, each casting up to two votes at once (grade/judge.py) — as many judge requests as a
session of eight runs in flight had when a run's graders were judged one after the other, and as many Claude Code
children as the judge's client keeps started ahead at most (core/claude_child.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

JUDGED_AT_ONCE = 8
JUDGES = threading.BoundedSemaphore(JUDGED_AT_ONCE)  # shared by every run of the process
WAIT_SLICE = 0.2  # how often a wait looks at the session's stop event


class Beside(Generic[T]):
    """`job()` computed in a daemon thread once `gate` has room; the caller waits for it in short slices, so a stop
    is seen at once. A job not begun when the session stops is never begun. A daemon thread never keeps the
    session from exiting."""

    def __init__(
        self, job: Callable[[], T], name: str, stop: threading.Event | None, gate: threading.Semaphore = JUDGES
    ):
        self._job, self._stop, self._gate = job, stop, gate
        self._done = threading.Event()
        self._box: dict[str, Any] = {}
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        try:
            while not self._gate.acquire(timeout=WAIT_SLICE):
                if self._stopped():
                    return
            try:
                if not self._stopped():
                    self._box["value"] = self._job()
            except BaseException as e:  # handed to the caller, whatever it is
                self._box["error"] = e
            finally:
                self._gate.release()
        finally:
            self._done.set()

    def _stopped(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def wait(self) -> bool:
        """Wait until the job has ended: True, or False as soon as the session is stopping."""
        while not self._done.wait(WAIT_SLICE):
            if self._stopped():
                return False
        return not self._stopped() or "value" in self._box or "error" in self._box

    def value(self) -> T:
        """What the job returned, or the exception it raised (call after wait() said True)."""
        if "error" in self._box:
            raise self._box["error"]
        return self._box["value"]
