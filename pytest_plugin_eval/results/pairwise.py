"""`compare --pairwise`: the two sessions' runs of each case paired, each pair judged twice, swapped, by a blind
judge (grade.pairwise_judge); per case and overall how often NEW's output won, tied or lost, with an interval.

Pairing: per case both sessions have, the with-arm runs of each session in index order, the i-th of OLD with the
i-th of NEW. When one session has more runs, the extra ones are left out and the case says so. A pair where either
run left no output (a run error, a missing trace) is not judged and counts as no decision.

Both orders: the judge sees the pair once with OLD's output as Response A and once with NEW's as Response A. The
pair is a **win** (for NEW) only when both answers prefer NEW, a **loss** when both prefer OLD, otherwise a
**tie** — agreed ties, and the answers that disagree (a judge swayed by position). An answer with no verdict, or a
judge that could not be asked, makes the pair **no decision**: it is listed with why, and left out of the counts.

Win rate: (wins + ½·ties) / decided pairs — a tie is half a win, so an all-ties case sits at 0.5 — with Wilson's
interval (stats.wilson_interval) over the decided pairs. Counting a tie as half a success overstates its variance,
so the interval is, if anything, wide. NEW is *better* when the interval lies above 0.5, *worse* below, otherwise no
detectable preference. Overall: the pairs of every case pooled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from .. import stats
from .comparison import BETTER, NO_CHANGE, WORSE
from .jsonmap import Document, computed, key, read, spliced
from .model import CaseResult, RunResult

WIN, LOSS, TIE, NO_DECISION = "win", "loss", "tie", "no_decision"
OLD, NEW = "old", "new"
ORDERS = ("old_first", "new_first")  # as the scripted endpoint names them (load.script.ORDERS)


@dataclass(frozen=True)
class OrderAnswer(Document):
    """One of the two judge calls of a pair: which session's output it preferred ("old", "new", "tie"; None: no
    verdict), and what it said."""

    order: str = field(metadata=key("order"))  # old_first (OLD's output shown as Response A) | new_first
    preferred: str | None = field(metadata=key("preferred"))
    reason: str = field(metadata=key("reason"))
    cost_usd: float = field(default=0.0, metadata=key("costUsd"))


def preferred_side(order: str, preference: str | None) -> str | None:
    """The judge's "A"/"B"/"tie" for a call made in `order`, as the session it points at."""
    if preference is None or preference == "tie":
        return preference
    first, second = (OLD, NEW) if order == "old_first" else (NEW, OLD)
    return first if preference == "A" else second


def combine(answers: Sequence[OrderAnswer]) -> str:
    """A pair's outcome from its two answers: a win or loss needs both orders to agree."""
    sides = [a.preferred for a in answers]
    if len(sides) < 2 or None in sides:
        return NO_DECISION
    if all(s == NEW for s in sides):
        return WIN
    if all(s == OLD for s in sides):
        return LOSS
    return TIE


@dataclass(frozen=True)
class Pair(Document):
    index: int = field(metadata=key("index"))  # 1-based, within the case
    old_run: int = field(metadata=key("oldRun"))
    new_run: int = field(metadata=key("newRun"))
    _: KW_ONLY
    _outcome: None = field(default=None, init=False, compare=False, metadata=computed("outcome", lambda p: p.outcome))
    _why: None = field(default=None, init=False, compare=False, metadata=computed("why", lambda p: p.why))
    # why no judge was asked (a run without output, the cost ceiling)
    not_judged: str | None = field(default=None, metadata=key("notJudged"))
    answers: tuple[OrderAnswer, ...] = field(default=(), metadata=key("answers"))

    @property
    def outcome(self) -> str:
        return NO_DECISION if self.not_judged else combine(self.answers)

    @property
    def why(self) -> str:
        """One line: what decided the outcome."""
        if self.not_judged:
            return f"not judged: {self.not_judged}"
        sides = [a.preferred for a in self.answers]
        if None in sides:
            silent = " and ".join(a.order for a in self.answers if a.preferred is None)
            return f"no verdict in the {silent} answer{'s' if ' and ' in silent else ''} (their replies below)"
        if self.outcome == TIE and len(set(sides)) > 1:
            return f"the orders disagree ({', '.join(f'{a.order} → {a.preferred}' for a in self.answers)})"
        return {WIN: "both orders prefer NEW", LOSS: "both orders prefer OLD"}.get(self.outcome, "both orders: tie")

    @property
    def cost_usd(self) -> float:
        return sum(a.cost_usd for a in self.answers)


@dataclass(frozen=True)
class WinTally:
    wins: int = 0
    ties: int = 0
    losses: int = 0
    no_decision: int = 0

    @classmethod
    def of(cls, pairs: Sequence[Pair]) -> WinTally:
        outcomes = [p.outcome for p in pairs]
        return cls(outcomes.count(WIN), outcomes.count(TIE), outcomes.count(LOSS), outcomes.count(NO_DECISION))

    def __add__(self, other: WinTally) -> WinTally:
        return WinTally(
            self.wins + other.wins,
            self.ties + other.ties,
            self.losses + other.losses,
            self.no_decision + other.no_decision,
        )

    @property
    def decided(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def win_rate(self) -> float | None:
        return (self.wins + self.ties / 2) / self.decided if self.decided else None

    def interval(self, level: float) -> tuple[float, float] | None:
        return stats.wilson_interval(self.wins + self.ties / 2, self.decided, level) if self.decided else None

    def verdict(self, level: float) -> str | None:
        bounds = self.interval(level)
        if bounds is None:
            return None
        return BETTER if bounds[0] > 0.5 else WORSE if bounds[1] < 0.5 else NO_CHANGE

    def to_json(self, level: float) -> dict:
        """The counts and what they say at `level` (written in the documents that hold a tally, never read: the
        pairs are)."""
        bounds = self.interval(level)
        return {
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "noDecision": self.no_decision,
            "decided": self.decided,
            "winRate": self.win_rate,
            "interval": list(bounds) if bounds else None,
            "verdict": self.verdict(level),
        }


@dataclass(frozen=True)
class CasePairwise(Document):
    name: str = field(metadata=key("name"))
    _: KW_ONLY
    # how the runs were paired, when the sessions' run counts differ
    note: str | None = field(default=None, metadata=key("note"))
    _tally: None = field(default=None, init=False, compare=False, metadata=spliced(lambda c: c.tally.to_json(c.level)))
    pairs: list[Pair] = field(metadata=key("pairs"))
    level: float = field(default=0.95, compare=False)  # its comparison's (PairwiseComparison sets it)

    @property
    def tally(self) -> WinTally:
        return WinTally.of(self.pairs)


PAIRING = "with-arm runs, the i-th of OLD with the i-th of NEW; each pair judged in both orders"
TIE_RULE = "a win or loss needs both orders to agree; a tie counts half in the win rate"


@dataclass(frozen=True)
class PairwiseComparison(Document):
    """The pairwise section of the compare document (`pairwise`). Its level is the comparison's, not written here:
    reading the section back takes it from the document that holds it (`from_json(data, level)`)."""

    judge_model: str = field(metadata=key("judgeModel"))
    level: float
    _: KW_ONLY
    _pairing: None = field(default=None, init=False, compare=False, metadata=computed("pairing", lambda p: PAIRING))
    _tie_rule: None = field(default=None, init=False, compare=False, metadata=computed("tieRule", lambda p: TIE_RULE))
    estimate_usd: float = field(metadata=key("estimateUsd"))  # the ceiling estimated before any call
    cost_usd: float = field(metadata=key("costUsd"))
    max_cost_usd: float | None = field(default=None, metadata=key("maxCostUsd"))
    stopped: str | None = field(default=None, metadata=key("stopped"))  # why judging stopped early (the ceiling)
    notes: list[str] = field(default_factory=list, metadata=key("notes"))
    _overall: None = field(
        default=None, init=False, compare=False, metadata=computed("overall", lambda p: p.tally.to_json(p.level))
    )
    cases: list[CasePairwise] = field(metadata=key("cases"))

    def __post_init__(self) -> None:
        # each case's tally is written at the comparison's level
        object.__setattr__(self, "cases", [replace(c, level=self.level) for c in self.cases])

    @classmethod
    def from_json(cls, data: Mapping[str, Any], level: float = 0.95) -> PairwiseComparison:
        return read(cls, data, level=level)

    @property
    def tally(self) -> WinTally:
        total = WinTally()
        for case in self.cases:
            total = total + case.tally
        return total


# ---- pairing -------------------------------------------------------------------------------------------------


def with_runs(case: CaseResult) -> list[RunResult]:
    return sorted(case.arms.get("with") or [], key=lambda run: run.index)


def pair_runs(old: CaseResult, new: CaseResult) -> tuple[list[tuple[RunResult, RunResult]], str | None]:
    """The i-th with-arm run of OLD with the i-th of NEW, and a note when the counts differ."""
    before, after = with_runs(old), with_runs(new)
    count = min(len(before), len(after))
    note = None
    if len(before) != len(after):
        note = (
            f"OLD has {len(before)} with-arm run(s), NEW {len(after)}: the first {count} of each are paired "
            "(run i with run i), the rest left out"
        )
    return list(zip(before[:count], after[:count], strict=True)), note


@dataclass(frozen=True)
class PairInput:
    """What the judge of one pair is shown (None: that run left no output, and why)."""

    task: str
    rubric: list[str]
    old_output: str | None
    new_output: str | None
    missing: str | None = None


def judge_pairs(
    plan: Sequence[tuple[str, list[tuple[int, int, PairInput]], str | None]],
    ask: Callable[[str, int, str, PairInput], OrderAnswer],
    pair_ceiling: Callable[[PairInput], float],
    max_cost_usd: float | None,
) -> tuple[list[CasePairwise], float, str | None]:
    """Judge every pair of `plan` (per case: its name, its pairs as (old run, new run, input), its pairing note)
    in both orders, one call at a time with `ask(case, pair, order, input)`. Before each pair the ceiling price of
    its two calls is checked against `max_cost_usd`: a pair that could pass it is not judged, nor any after it
    (no half-judged pair is paid for). Returns the cases, the money spent and why judging stopped early (None:
    it did not)."""
    spent, stopped = 0.0, None
    cases = []
    for name, pairs, note in plan:
        judged = []
        for index, (old_run, new_run, given) in enumerate(pairs, 1):
            if given.missing:
                judged.append(Pair(index, old_run, new_run, not_judged=given.missing))
                continue
            if stopped is None and max_cost_usd is not None and spent + pair_ceiling(given) > max_cost_usd:
                stopped = f"cost ceiling ${max_cost_usd:g} (--max-cost-usd) reached: ${spent:.4f} spent"
            if stopped is not None:
                judged.append(Pair(index, old_run, new_run, not_judged=stopped))
                continue
            answers = []
            for order in ORDERS:
                answer = ask(name, index, order, given)
                spent += answer.cost_usd
                answers.append(answer)
            judged.append(Pair(index, old_run, new_run, answers=tuple(answers)))
        cases.append(CasePairwise(name, pairs=judged, note=note))
    return cases, spent, stopped
