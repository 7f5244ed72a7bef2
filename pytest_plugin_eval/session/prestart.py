"""Runs started ahead: while one run works, the next one's agent is already starting.

Claude Code spends about half of a short run loading itself before it reads its prompt. The session starts the
next run's child (its workspace staged, exactly as it would be at its turn) while the current run works, and the
child waits on stdin: when its item's turn comes, it only has the rest of the run to do. Nothing reaches the model
before the prompt, so a child that is never used (the session stopped, the run was not needed, the cost ceiling
kept it from starting) costs nothing but the start-up: it is stopped and its workspace removed.

One run is started ahead at a time: it uses a core that would otherwise wait on the model, without crowding the
runs in flight.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from ..run.execute import RunPlan, StartedAgent, start_agent
from ..run.workspace import Workspace

RunKey = tuple[str, str, int]  # (case, arm, index)


class Prestarts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: dict[RunKey, StartedAgent] = {}
        self._closed = False

    def start(self, key: RunKey, plan: Callable[[], tuple[RunPlan, Path | None]]) -> None:
        """Start the run `key` ahead, unless it already is. `plan()` gives its plan and where its workspace goes;
        whatever goes wrong here is left for the run itself to meet (and report) at its turn."""
        with self._lock:
            if self._closed or key in self._ready:
                return
            for other in list(self._ready):  # one ahead at a time: an earlier one not taken was not wanted
                self._ready.pop(other).discard()
        try:
            run_plan, base = plan()
            ws = Workspace.create(base)
        except Exception:
            return
        try:
            started = start_agent(run_plan, ws)
        except Exception:
            ws.remove()
            return
        with self._lock:
            if self._closed or key in self._ready:
                started.discard()
            else:
                self._ready[key] = started

    def take(self, key: RunKey) -> StartedAgent | None:
        """The run `key`'s agent if it was started ahead (it is the caller's from now on)."""
        with self._lock:
            return self._ready.pop(key, None)

    def discard(self, key: RunKey) -> None:
        """The run `key` will not be made."""
        started = self.take(key)
        if started is not None:
            started.discard()

    def close(self) -> None:
        """The session is ending: nothing more is started ahead, and what was is stopped."""
        with self._lock:
            self._closed = True
            left, self._ready = list(self._ready.values()), {}
        for started in left:
            started.discard()
