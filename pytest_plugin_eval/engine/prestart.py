"""Runs started ahead: while one run works, the next one's agent is already starting.

Claude Code spends about half of a short run loading itself before it reads its prompt. When a run begins, the
session starts the next run's child (its workspace staged, exactly as it would be at its turn), which waits on
stdin: when that run's turn comes, it only has the rest of the run to do. Nothing reaches the model before the
prompt, so a child that is never used (the session stopped, the run was not needed, the cost ceiling kept it from
starting) costs nothing but its start-up: it is stopped and its workspace removed.

One run is ahead at a time, and only while the session's own runs leave a core to spare: with four runs at once on
two cores and a fast model, a child started ahead only crowds the runs in flight. Other work on the machine does
not count (session_cpu_times): the child's start-up is work its run does anyway, only earlier.

The child started ahead waits for its prompt however long the run before it takes (a real model's seconds per
call): it has the prompt's first character at once, and Claude Code then reads until the end of input
(run/agent.py, prompt_parts). A child that has died while it waited (killed from outside, out of memory) is not
used: its run starts afresh, as if nothing had been started ahead.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..core.run_id import RunId
from ..run.execute import RunPlan, StartedAgent, start_agent
from ..run.workspace import Workspace

RunKey = RunId


class Prestarts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: dict[RunKey, StartedAgent] = {}
        self._starting: dict[RunKey, threading.Event] = {}
        self._begun: set[RunKey] = set()  # runs already taken (or made without): never started ahead again
        self._closed = False

    def start(self, key: RunKey, plan: Callable[[], tuple[RunPlan, Path | None]]) -> None:
        """Start the run `key` ahead, unless it is (or has begun) already. `plan()` gives its plan and where its
        workspace goes; whatever goes wrong here is left for the run itself to meet (and report) at its turn."""
        with self._lock:
            if self._closed or key in self._ready or key in self._starting or key in self._begun:
                return
            stale = [self._ready.pop(other) for other in list(self._ready)]  # not taken: not wanted
            started_event = self._starting[key] = threading.Event()
        for agent in stale:
            agent.discard()
        started = None
        try:
            run_plan, base = plan()
            ws = Workspace.create(base)
            try:
                started = start_agent(run_plan, ws)
            except Exception:
                ws.remove()
        except Exception:
            pass
        with self._lock:
            del self._starting[key]
            keep = started is not None and not self._closed and key not in self._begun
            if keep and started is not None:
                self._ready[key] = started
        started_event.set()
        if started is not None and not keep:
            started.discard()

    def take(self, key: RunKey) -> StartedAgent | None:
        """The run `key` begins: its agent if it was started ahead and is still waiting (the caller's from now on).
        A start still in progress is waited for (it takes milliseconds: the child then loads on its own)."""
        with self._lock:
            pending = self._starting.get(key)
        if pending is not None:
            pending.wait()
        with self._lock:
            self._begun.add(key)
            started = self._ready.pop(key, None)
            if started is None or started.child.alive:
                return started
        started.discard()  # died before its prompt was given: not a run of the case, which starts afresh
        return None

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


Sample = tuple[float, float]  # (idle, total) CPU time since boot, in clock ticks


def cpu_times() -> Sample | None:
    """The machine's idle and total CPU time (Linux); None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat") as stat:
            fields = [float(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 4:
        return None
    return fields[3] + (fields[4] if len(fields) > 4 else 0.0), sum(fields[:8])


def tree_cpu_ticks(root: int) -> float | None:
    """CPU time (clock ticks) spent by process `root` and every process under it, alive or reaped (Linux); None
    where /proc cannot be read."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        parents[int(name)] = int(fields[1])
        spent[int(name)] = sum(float(v) for v in fields[11:15])  # utime stime cutime cstime: reaped children too
    if root not in spent:
        return None
    total, frontier = 0.0, [root]
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    while frontier:
        pid = frontier.pop()
        total += spent.get(pid, 0.0)
        frontier.extend(children.get(pid, ()))
    return total


def session_cpu_times(root: int, cores: int | None = None) -> Callable[[], Sample | None]:
    """A reader like cpu_times whose idle time is what the cores had left over from the session's own process
    tree (`root`: this process, or the pytest-xdist controller above the workers): other work on the machine
    does not count. A child started ahead only moves its start-up earlier (it is used however long it waits),
    so it crowds nothing but the session's own runs — the runs in flight of a fast model — not other work."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    n = cores if cores is not None else cpu_count()

    def read() -> Sample | None:
        own = tree_cpu_ticks(root)
        if own is None:
            return None
        total = time.monotonic() * ticks * n
        return total - own, total

    return read


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class SpareCores:
    """How many of the machine's cores have gone unused lately: the idle cores since the last look, averaged with
    the looks before (half weight each time), so that one busy moment does not decide. Where that cannot be
    measured, the guess `fallback` stands."""

    MIN_WINDOW = 0.2  # seconds: a shorter window says little; the last answer stands

    def __init__(
        self,
        fallback: float,
        read: Callable[[], Sample | None] = cpu_times,
        cores: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.fallback = fallback
        self._read, self._clock = read, clock
        self._cores = cores if cores is not None else cpu_count()
        self._last, self._last_at = read(), clock()
        self._answer = fallback
        self._looks = 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            now = self._read()
            if now is None or self._last is None:
                return self.fallback
            if self._clock() - self._last_at < self.MIN_WINDOW:
                return self._answer
            idle, total = now[0] - self._last[0], now[1] - self._last[1]
            self._last, self._last_at = now, self._clock()
            if total > 0:
                spare = self._cores * idle / total
                self._answer = spare if self._looks == 0 else (self._answer + spare) / 2
                self._looks += 1
            return self._answer
