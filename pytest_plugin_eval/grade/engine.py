"""Grading one run: which of a case's graders run in which arm, and each one's verdict.

Two-arm rules (the reference tool's): a grader that can only pass with the plugin loaded — `tool_used: Skill`,
`arm: with-only`, a `mock_calls` target in a case whose mocks all shadow plugin servers — is a *plugin-fired
indicator*: reported in the with arm, left out of the score, and not evaluated in the without arm. `arm: both`
forces a grader to count in both arms. If every grader of a case would be an indicator, they all count
(otherwise there would be nothing to score).

A `mock_calls` grader is an indicator only when no stand-in is served in the without arm: a standalone mock (a
mock folder named after no server the plugin declares) is served there too, and a case that mocks nothing (or a
session with `--mocks off`) has no stand-in in either arm — in those cases it counts in both arms.

Every grader has a time limit (a minute for free graders, ten for judges): one that runs past it is *errored*
("grader timed out after N s") — reported, left out of the score — and the run goes on. The session stopping stops
grading at once.

A run's judges (paid graders) are judged at the same time, beside its free graders (grade/parallel.py); the cost
ceiling is looked at as each judge would begin, so a judge skipped for it was never paid for.
"""

from __future__ import annotations

import ctypes
import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.errors import HarnessError
from ..load.graders import GraderSpec
from .base import GradeContext, Verdict
from .conversation import turn_count, turn_view
from .ecmaregex import RegexAborted
from .parallel import JUDGES, WAIT_SLICE, Beside

# How long one grader may take, in seconds of wall time, before the run gives up on it (its verdict: errored).
FREE_GRADER_SECONDS = 60.0  # regex, tools, files, Python graders: they compute, and a minute is ample
PAID_GRADER_SECONDS = 600.0  # judges: up to three votes, each retried with back-off and retry-after


def reads_mock_calls(spec: GraderSpec) -> bool:
    reads = getattr(spec.kind, "reads_mock_calls", None)  # a hook's type need not subclass GraderType
    return bool(reads(spec.config)) if reads is not None else False


def is_indicator(spec: GraderSpec, mock_calls_with_only: bool = True) -> bool:
    """`mock_calls_with_only`: the case's mock_calls graders can only pass with the plugin (its mocks all shadow
    plugin servers, and stand-ins are served)."""
    if spec.arm == "with-only":
        return True
    if spec.arm == "both":
        return False
    if reads_mock_calls(spec):
        return mock_calls_with_only
    return bool(spec.kind.with_only_by_default(spec.config))


def indicators(graders: Sequence[GraderSpec], two_arm: bool, mock_calls_with_only: bool = True) -> frozenset[str]:
    """Names of the graders reported but not scored in this case (none in single-arm runs)."""
    if not two_arm:
        return frozenset()
    names = frozenset(g.name for g in graders if is_indicator(g, mock_calls_with_only))
    return frozenset() if len(names) == len(graders) else names


def uncounted(graders: Sequence[GraderSpec], two_arm: bool, mock_calls_with_only: bool = True) -> list[GraderSpec]:
    """The graders an author would take for scored but that count in no score: a `mock_calls` target or focus
    in a case whose mocks all shadow the plugin's servers is an indicator by default (reported in the with arm,
    not scored) unless its `arm: both` says otherwise."""
    excluded = indicators(graders, two_arm, mock_calls_with_only)
    return [g for g in graders if g.name in excluded and g.arm is None and reads_mock_calls(g)]


UNCOUNTED_WHY = (
    "reads mock_calls, and the case's mocks all shadow the plugin's servers (no stand-in answers without the "
    "plugin), so it is a with-only indicator: reported in the with arm, not scored — add `arm: both` to score it "
    "in both arms"
)


def graders_for(
    graders: Sequence[GraderSpec], arm: str, two_arm: bool, mock_calls_with_only: bool = True
) -> list[tuple[GraderSpec, bool]]:
    """(grader, is_indicator) pairs evaluated in `arm`: indicators are skipped in the without arm."""
    excluded = indicators(graders, two_arm, mock_calls_with_only)
    return [(g, g.name in excluded) for g in graders if not (arm == "without" and g.name in excluded)]


@dataclass(frozen=True)
class Graded:
    """A grader's verdict on a run, with whether it was an indicator (reported, not scored)."""

    spec: GraderSpec
    verdict: Verdict
    indicator: bool

    @property
    def scored(self) -> bool:
        return not self.indicator and not self.verdict.errored and not self.verdict.skipped


class GradingStopped(HarnessError):
    """The session stopped (Ctrl-C, SIGTERM) while a run was being graded: the run is left ungraded."""


class GraderTimeout(HarnessError):
    """Raised in the thread of a grader the harness gave up on, to stop it at its next Python bytecode."""


def time_limit(spec: GraderSpec) -> float:
    return PAID_GRADER_SECONDS if spec.kind.paid else FREE_GRADER_SECONDS


def grade(
    graders: Sequence[tuple[GraderSpec, bool]],
    output: Any,
    judge: Any = None,
    judge_allowed: Callable[[], bool] = lambda: True,
    *,
    stop: threading.Event | None = None,
    limit: Callable[[GraderSpec], float] = time_limit,
    gate: threading.Semaphore = JUDGES,
) -> list[Graded]:
    """Evaluate each grader; a grader that raises is a failed grader with the error as its explanation. The paid
    graders (judges) are judged at the same time, beside the free ones, as `gate` allows (grade/parallel.py); the
    verdicts come in grader order whatever order they end in. A paid grader is skipped, never begun, when
    `judge_allowed()` says the cost ceiling is reached as it would begin; those already begun finish. A grader that
    runs past its time limit is errored (see `run_grader`); `stop` set (the session is stopping) raises
    GradingStopped at once."""
    if stop is not None and stop.is_set():
        raise GradingStopped()

    def judged(spec: GraderSpec) -> Verdict:
        if not judge_allowed():
            return Verdict(False, "skipped: cost ceiling", skipped=True)
        return run_grader(spec, output, judge, limit(spec), stop)

    paid = {
        n: Beside(partial(judged, spec), f"plugin-eval-judge:{spec.name}", stop, gate)
        for n, (spec, _) in enumerate(graders)
        if spec.kind.paid
    }
    verdicts: dict[int, Verdict] = {}
    for n, (spec, _) in enumerate(graders):
        if n not in paid:
            if stop is not None and stop.is_set():
                raise GradingStopped()
            verdicts[n] = run_grader(spec, output, judge, limit(spec), stop)
    for n, pending in paid.items():
        if not pending.wait():
            raise GradingStopped()
        verdicts[n] = pending.value()
    return [Graded(spec, verdicts[n], indicator) for n, (spec, indicator) in enumerate(graders)]


def run_grader(spec: GraderSpec, output: Any, judge: Any, seconds: float, stop: threading.Event | None) -> Verdict:
    """One grader's verdict — of the turn its `turn:` names, or (`turn: every`) of each turn, passing when every one
    passes (see grade/conversation.py)."""
    if spec.turn is None:
        return grade_once(spec, output, judge, seconds, stop)
    if spec.turn != "every":
        return grade_once(spec, turn_view(output, int(spec.turn)), judge, seconds, stop)
    verdicts = [
        grade_once(spec, turn_view(output, n), judge, seconds, stop)
        for n in range(1, turn_count(output.transcript) + 1)
    ]
    failed = [n for n, v in enumerate(verdicts, 1) if not v.passed]
    first = verdicts[failed[0] - 1] if failed else verdicts[-1]
    said = f"turn {failed[0]} of {len(verdicts)} failed: {first.explanation}" if failed else first.explanation
    return dataclasses.replace(
        first,
        passed=not failed,
        explanation=said if failed else f"every turn ({len(verdicts)}) passed: {said}",
        errored=any(v.errored for v in verdicts),
        cost_usd=sum(v.cost_usd for v in verdicts),
    )


def grade_once(spec: GraderSpec, output: Any, judge: Any, seconds: float, stop: threading.Event | None) -> Verdict:
    """One grader's verdict, computed in a thread of its own so that the caller can give up on it: after `seconds`
    (the verdict is errored, "grader timed out after N s"), or at once when `stop` is set (GradingStopped). The
    caller only waits — in short slices, so Ctrl-C and SIGTERM are handled at once even in the main thread.

    A grader given up on is abandoned: GraderTimeout is raised in its thread, which stops a loop in Python code at
    its next bytecode; a thread blocked in C (a sleep, a socket, a regex — QuickJS stops that at its own CPU
    limit) ends when that call returns. It is a daemon thread: it never keeps the session from exiting."""
    box: dict[str, Any] = {}
    done = threading.Event()
    lock = threading.Lock()  # held while the grader ends, and while it is abandoned: never both

    def target() -> None:
        try:
            try:
                box["verdict"] = spec.kind.grade(spec.config, output, GradeContext(spec.name, judge))
            except BaseException as e:  # reported below, whatever it is
                box["error"] = e
            with lock:
                box["ended"] = True
                done.set()
        except BaseException:  # a GraderTimeout that landed after the grader ended
            pass

    thread = threading.Thread(target=target, name=f"plugin-eval-grader:{spec.name}", daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds
    while not done.wait(max(0.0, min(WAIT_SLICE, deadline - time.monotonic()))):
        if stop is not None and stop.is_set():
            _abandon(thread, lock, box)
            raise GradingStopped()
        if time.monotonic() >= deadline:
            _abandon(thread, lock, box)
            return Verdict(False, f"grader timed out after {seconds:g} s", errored=True)
    error = box.get("error")
    if isinstance(error, RegexAborted):  # an input_match (or a grader type's own pattern) stopped at its limit
        return Verdict(False, f"regular expression {error}", errored=True)
    if error is not None:  # a grader bug (even a SystemExit it raised) must not lose the run
        return Verdict(False, f"grader error: {type(error).__name__}: {error}")
    verdict = box["verdict"]
    if not isinstance(verdict, Verdict):  # a grader type from a hook that breaks the contract
        return Verdict(False, f"grader error: grade() returned {type(verdict).__name__}, not a Verdict")
    return verdict


def _abandon(thread: threading.Thread, lock: threading.Lock, box: dict) -> None:
    """Raise GraderTimeout in the grader's thread, unless it has ended (the lock makes sure its id is still its)."""
    with lock:
        if box.get("ended") or thread.ident is None or not thread.is_alive():
            return
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(GraderTimeout))
