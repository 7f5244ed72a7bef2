"""What an eval session shows while it runs: runs done of all, runs in flight, money spent against the ceiling,
and the time left.

At a terminal the status sits at the end of pytest's current line and is redrawn after every report (it is
erased before pytest writes anything, so pytest's own output is untouched). Without a terminal (CI) a session
reports one line per run, as with -v, and each run's line also says how far the session is. Either way pytest's
line for a run (-v) carries its score and failing graders.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from ..engine.wire import RUN_ATTR, TRIGGER_ATTR, UNNEEDED_ATTR
from ..grade.types.budget import PENDING
from ..report.view import usd
from ..results.model import RunResult
from .pytest_internals import terminal_file, terminal_writer
from .verdicts import VERDICT_ATTR


def run_word(run: RunResult) -> str:
    """A run's outcome in a few words: its score and the graders it failed."""
    score = "not scored" if run.score is None else f"score {run.score:.2f}"
    failing = [g.name for g in run.failing]
    reused = " · reused" if run.reused_from else ""  # --reuse-baseline: a stored run, graded again
    # a budget relative to the without-plugin runs is settled with the case: this score is not the last word
    waiting = [g.name for g in run.graders if g.extra.get(PENDING)]
    pending = f" · {', '.join(waiting)} decided with the case" if waiting else ""
    return (
        (score + (f" ✗ {', '.join(failing)}" if failing else "") + (f" · {run.error_kind}" if run.error_kind else ""))
        + reused
        + pending
    )


def duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


class Progress:
    def __init__(self, terminal, in_flight: Callable[[], int], cap: float | None, clock=time.monotonic):
        self.terminal = terminal
        self.in_flight = in_flight
        self.cap = cap
        self.clock = clock
        self.started = clock()
        self.total = 0
        self.done = 0
        self.spent = 0.0
        self.shown = ""  # the status now on screen (tty)

    @property
    def tty(self) -> bool:
        return bool(self.terminal is not None and self.terminal.isatty and self.terminal.verbosity >= 0)

    def expect(self, runs: int) -> None:
        self.total = max(self.total, runs)

    def status(self) -> str:
        parts = [f"runs {self.done}/{self.total}" if self.total else f"runs {self.done}"]
        running = self.in_flight()
        if running:
            parts.append(f"{running} running")
        parts.append(usd(self.spent) + (f" of ${self.cap:g}" if self.cap is not None else ""))
        if self.done and self.total > self.done:
            left = (self.clock() - self.started) / self.done * (self.total - self.done)
            parts.append(f"~{duration(left)} left")
        return "plugin-eval: " + " · ".join(parts)

    def plain(self) -> bool:
        """Line-oriented output: no terminal to redraw a status on."""
        return self.terminal is not None and not self.terminal.isatty

    # ---- drawing -------------------------------------------------------------------------------------

    def erase(self) -> None:
        """Take the status off the screen before pytest writes."""
        if self.shown:
            self._raw("\b" * len(self.shown) + " " * len(self.shown) + "\b" * len(self.shown))
            self.shown = ""

    def draw(self) -> None:
        if not self.tty:
            return
        self.erase()
        # Backspaces cannot cross a wrapped line: the status only ever uses what is left of this one.
        tw = terminal_writer(self.terminal)
        room = tw.fullwidth - tw.width_of_current_line - 1
        if room < 20:
            return
        self.shown = (" " + self.status())[:room]
        self._raw(self.shown)

    def _raw(self, text: str) -> None:
        # Written past pytest's terminal writer, so that its idea of the current line stays right.
        out = terminal_file(self.terminal)
        out.write(text)
        out.flush()

    # ---- events --------------------------------------------------------------------------------------

    def finished(self, run: RunResult) -> None:
        self.done += 1
        self.spent += run.cost_usd

    def word(self, run: RunResult) -> str:
        """What pytest's line for a finished run says: its outcome, and, without a terminal, the session's status."""
        word = run_word(run)
        if self.plain():
            word += " · " + self.status().removeprefix("plugin-eval: ")
        return word


def teststatus(report: pytest.TestReport, progress: Progress | None) -> tuple[str, str, Any] | None:
    """pytest's word for a report of the session's: a case's verdict with its headline, a run with how it went
    (-v; without a terminal, with the session's status in place of its dot), a run --runs auto did not need."""
    headline = getattr(report, VERDICT_ATTR, None)
    if headline is not None:  # a case's verdict
        if report.failed:
            return "failed", "F", ("FAILED", {"red": True})
        return report.outcome, "." if report.passed else "s", (f"{report.outcome.upper()} {headline}", {})
    if getattr(report, UNNEEDED_ATTR, None) is not None:  # --runs auto: its case had had enough runs
        return "not needed", "", "NOT NEEDED"
    trigger = getattr(report, TRIGGER_ATTR, None)
    if trigger is not None and report.when == "call":
        word = trigger_word(trigger["run"])
        if report.failed:
            return "failed", "F", (f"FAILED {word}", {"red": True})
        return "passed", ".", (f"PASSED {word}", {"green": True})
    data = getattr(report, RUN_ATTR, None)
    if data is None or report.when != "call":
        return None
    run = RunResult.from_json(data["run"], data["arm"])
    word = progress.word(run) if progress is not None else run_word(run)
    if report.failed:
        return "failed", "F", (f"FAILED {word}", {"red": True})
    return "passed", ".", (f"PASSED {word}", {"green": True})


def trigger_word(run: dict) -> str:
    """What pytest's line for a finished trigger run says: what it consulted, decided by which event."""
    if run.get("fired") is None:
        return f"decided nothing · {run.get('errorKind')}"
    consulted = f" ({run['skill']})" if run.get("skill") and not run.get("fired") else ""
    return ("fired" if run["fired"] else "not fired" + consulted) + f" · {run.get('decidedBy')}"
