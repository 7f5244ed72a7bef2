"""`--runs auto[:MAX[:WIDTH]]`: when a case has had enough runs. Pure functions of run scores, no I/O.

A case starts with `first` runs per arm and gains one run per arm at a time (a "round") while its Δ interval
still straddles 0 and is wider than `width`, up to `most` runs per arm. Looking at the interval after every round
and stopping as soon as it excludes 0 would make a false "better" or "worse" more likely than the nominal 5 %, so
each look is held to a stricter level: the 5 % is split evenly over the looks that can stop a case (Bonferroni),
which keeps the chance of any false decision at or below 5 % however many looks are taken.

A case also stops when more runs could not settle it: from its second look on, if the arms went on as so far up
to `most` runs, even a 50 % interval of Δ would straddle 0 (a "futility" stop, as group-sequential trials have).
Most of the saving comes from there; `bench/bench_adaptive.py` measures it against fixed runs, and how often the
decisions agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .stats import delta_interval, wilson_interval

# Why a case stopped adding runs (the JSON's autoRuns.stopped).
DECIDED = "decided"  # the interval excludes 0: the plugin helps (or hurts)
PRECISE = "precise"  # the interval is narrower than the width: whatever Δ is, it is known closely enough
MAX_RUNS = "max_runs"  # the maximum was reached undecided
FUTILE = "futile"  # even the maximum number of runs, going on as so far, would leave Δ undecided
SINGLE_ARM = "single_arm"  # no without-arm to compare with: the first runs only
INCOMPLETE = "incomplete"  # runs it needed did not happen (cost ceiling, interruption, deselected runs)

STOP_REASONS = {
    DECIDED: "the interval excludes 0 (for a trigger query: the threshold)",
    PRECISE: "the Δ interval is narrower than the width",
    MAX_RUNS: "the maximum number of runs was reached with Δ still undecided at the per-look level",
    FUTILE: "more runs, going on as so far, would not settle Δ",
    SINGLE_ARM: "a single-arm case has no Δ to settle",
    INCOMPLETE: "runs it needed did not happen",
}

FIRST_RUNS = 3
DEFAULT_MOST = 10
DEFAULT_WIDTH = 0.3


@dataclass(frozen=True)
class AutoRuns:
    most: int = DEFAULT_MOST
    width: float = DEFAULT_WIDTH
    first: int = FIRST_RUNS
    level: float = 0.95
    futility: float | None = 0.5  # the level of the projected interval that must straddle 0 to give up (None: never)

    @classmethod
    def parse(cls, text: str) -> AutoRuns:
        """`auto`, `auto:12` or `auto:12:0.25`. Raises ValueError saying what is wrong."""
        head, *rest = text.split(":")
        if head != "auto" or len(rest) > 2:
            raise ValueError(f"expected N, auto, auto:MAX or auto:MAX:WIDTH (got '{text}')")
        most = DEFAULT_MOST
        if rest and rest[0]:
            if not rest[0].isdigit() or int(rest[0]) < FIRST_RUNS:
                raise ValueError(
                    f"auto:MAX needs a whole MAX of at least {FIRST_RUNS}, the runs every case starts with"
                )
            most = int(rest[0])
        width = DEFAULT_WIDTH
        if len(rest) == 2:
            try:
                width = float(rest[1])
            except ValueError:
                width = -1.0
            if not 0 < width <= 2:
                raise ValueError(f"auto:MAX:WIDTH needs a WIDTH above 0 and at most 2 (got '{rest[1]}')")
        return cls(most=most, width=width)

    @property
    def looks(self) -> int:
        """How many looks at the interval can stop a case early (after rounds first … most-1)."""
        return max(1, self.most - self.first)

    @property
    def look_level(self) -> float:
        """The level each look is held to, so that all looks together keep `level`."""
        return 1 - (1 - self.level) / self.looks

    def label(self) -> str:
        return f"auto:{self.most}:{self.width:g}"

    def to_json(self) -> dict:
        return {"first": self.first, "max": self.most, "width": self.width, "lookLevel": round(self.look_level, 6)}


def stop_reason(
    plan: AutoRuns, with_scores: Sequence[float], without_scores: Sequence[float], rounds: int, two_arm: bool
) -> str | None:
    """Whether a case that has had `rounds` complete rounds needs no more (the reason), or needs another (None).
    The scores are those of its scored runs so far (a run that errored has none)."""
    if rounds < plan.first:
        return None
    if not two_arm:
        return SINGLE_ARM
    interval = delta_interval(with_scores, without_scores, plan.look_level)
    if interval is not None and (interval[0] > 0 or interval[1] < 0):
        return DECIDED
    if interval is not None and interval[1] - interval[0] <= plan.width:
        return PRECISE
    if rounds >= plan.most:
        return MAX_RUNS
    if plan.futility is not None and rounds > plan.first:
        projected = delta_interval(with_scores, without_scores, plan.futility, runs=plan.most)
        if projected is not None and projected[0] <= 0 <= projected[1]:
            return FUTILE
    return None


def trigger_stop_reason(
    plan: AutoRuns, fired: Sequence[float], threshold: float, rounds: int, first: int
) -> str | None:
    """The rule for a trigger query, which starts with its set's `first` runs: decided once its fire rate's
    Wilson interval lies on one side of the threshold — after the first runs at the verdict's own 95% (so a query
    fixed runs decide is never given more), at each later look at the level that splits 5 % over the later looks —
    and futile when even `most` runs going on as so far would straddle it at the futility level."""
    if rounds < first:
        return None
    later_looks = max(1, plan.most - first)
    level = plan.level if rounds == first else 1 - (1 - plan.level) / later_looks
    interval = wilson_interval(round(sum(fired)), len(fired), level)
    if interval is not None and (interval[0] > threshold or interval[1] < threshold):
        return DECIDED
    if rounds >= plan.most:
        return MAX_RUNS
    if plan.futility is not None and rounds > first and fired:
        rate = sum(fired) / len(fired)
        projected = wilson_interval(round(rate * plan.most), plan.most, plan.futility)
        if projected is not None and projected[0] <= threshold <= projected[1]:
            return FUTILE
    return None


def replay(
    plan: AutoRuns,
    with_runs: Mapping[int, float | None],
    without_runs: Mapping[int, float | None],
    two_arm: bool,
) -> tuple[int, str]:
    """How many rounds a case took and why it stopped, from its finished runs (index → score or None): the same
    rule, applied round by round as the session did."""
    arms = (with_runs, without_runs) if two_arm else (with_runs,)
    complete = 0  # rounds with every arm's run over (an errored run too)
    while complete < plan.most and all(complete + 1 in arm for arm in arms):
        complete += 1
    for rounds in range(plan.first, complete + 1):
        reason = stop_reason(plan, _scores(with_runs, rounds), _scores(without_runs, rounds), rounds, two_arm)
        if reason is not None:
            return rounds, reason
    return complete, INCOMPLETE  # stop_reason always stops a case at its last round: runs it needed are missing


def _scores(runs: Mapping[int, float | None], rounds: int) -> list[float]:
    return [score for index, score in sorted(runs.items()) if index <= rounds and score is not None]
