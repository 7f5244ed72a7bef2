"""`--runs auto` while the session runs: a run past a case's first rounds starts only if the case still needs it.

Each case has an item for every run it may take (up to the maximum). Items are queued round by round — every
case's first runs, then every case's next run in both arms, and so on — so a run waits only for runs queued
before it, never for one behind it in its own process's queue, and the in-process pool and pytest-xdist workers
alike cannot deadlock. Finished runs go to a SQLite file in the session's scratch folder, which the session's
processes on this host share: a case's runs may finish on different workers.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..adaptive import INCOMPLETE, AutoRuns, stop_reason, trigger_stop_reason
from ..core.run_id import RunId
from ..load.case import Case
from ..results.model import RunResult
from ..results.trigger_runs import trigger_run_of

POLL_SECONDS = 0.2


def round_of(index: int, plan: AutoRuns) -> int:
    """The queue position of run `index`: the first runs together, then one round per extra run."""
    return 0 if index <= plan.first else index - plan.first


class RoundBoard:
    """The runs of this session's cases that have finished, and the cases that need no more."""

    def __init__(self, path: Path, plan: AutoRuns):
        self.path = Path(path)
        self.plan = plan
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS runs (case_key TEXT, arm TEXT, idx INTEGER, score REAL, "
                "PRIMARY KEY (case_key, arm, idx))"
            )
            db.execute("CREATE TABLE IF NOT EXISTS stops (case_key TEXT PRIMARY KEY, reason TEXT)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60, isolation_level=None)

    def record(self, run: RunId, score: float | None) -> None:
        """A run is over (scored, errored, or never started): runs waiting on it may go on."""
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)", (run.case_key, run.arm, run.index, score))

    def finished(self, run: RunId) -> dict[RunId, float | None]:
        """The finished runs of `run`'s case (on its model), with their scores."""
        with self._connect() as db:
            rows = db.execute("SELECT arm, idx, score FROM runs WHERE case_key = ?", (run.case_key,)).fetchall()
        return {replace(run, arm=arm, index=index): score for arm, index, score in rows}

    def stopped(self, case_key: str) -> str | None:
        with self._connect() as db:
            row = db.execute("SELECT reason FROM stops WHERE case_key = ?", (case_key,)).fetchone()
        return row[0] if row else None

    def need(
        self,
        run: RunId,
        earlier: set[RunId],
        two_arm: bool,
        stopping: threading.Event,
        sleep: Callable[[float], None] = time.sleep,
        trigger: tuple[float, int] | None = None,
        versus: str = "without",
    ) -> str | None:
        """None when `run` is needed; else why not. Waits until the `earlier` runs (the selected runs of its
        case's earlier rounds) are over. A trigger query (`trigger`: its threshold and first runs) is decided on
        its fire rate (its runs' scores are 1 fired, 0 not). `versus`: the arm whose Δ decides (with --against,
        ΔAGAINST: the question the session asks)."""
        case_key, index = run.case_key, run.index
        if index <= self.plan.first:
            return None
        while True:
            reason = self.stopped(case_key)
            if reason is not None:
                return reason
            if stopping.is_set():
                return INCOMPLETE
            runs = self.finished(run)
            if earlier <= runs.keys():
                break
            sleep(POLL_SECONDS)
        scores: dict[str, list[float]] = {}
        for other, score in sorted(runs.items(), key=lambda finished: finished[0].index):  # each arm's in order
            if other.index < index and score is not None:
                scores.setdefault(other.arm, []).append(score)
        if trigger is not None:
            reason = trigger_stop_reason(self.plan, scores.get("with", []), trigger[0], index - 1, trigger[1])
        else:
            reason = stop_reason(self.plan, scores.get("with", []), scores.get(versus, []), index - 1, two_arm)
        if reason is None:
            return None
        with self._connect() as db:  # the first to decide wins; the other arm's run reads the same decision
            db.execute("INSERT OR IGNORE INTO stops VALUES (?, ?)", (case_key, reason))
        return self.stopped(case_key)


def auto_score(case: Case, result: RunResult | None) -> float | None:
    """What --runs auto decides a case's next runs on: a run's score; a trigger run's 1 fired, 0 not."""
    if result is None:
        return None
    if case.trigger is None:
        return result.score
    fired = trigger_run_of(result, case.trigger).fired
    return None if fired is None else float(fired)
