"""What a tuning loop found: the split, the original and every candidate scored on train and validation, the
choice with its paired margin, the siblings' check, the test score of the original and the winner, the cost.

Written as `tune.json` beside `tune.html` (tune/report.py); its own small document, not a session's, declared on
results/jsonmap.py like every document the tool writes, and read back by `TuneResult.from_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from ..results.jsonmap import Document, computed, key
from ..stats import wilson_interval
from .rules import Paired, correctness, rounded

TUNE_SCHEMA = 1
Outcome = Literal["improved", "nothing_better", "flat", "thief", "stopped", "no_candidates"]
OUTCOME_TEXT: dict[str, str] = {
    "improved": "a better description: it beat the original on validation by a margin whose interval excludes 0",
    "nothing_better": "nothing better: no candidate beat the original on validation by a margin whose interval "
    "excludes 0; the original stays",
    "flat": "flat signal: every query fired at the same rate (all at 0, or all at 1) whatever the description "
    "said, so the description does not move Claude on these queries. Usually the queries are too far from the "
    "skill (or the near-misses too close to it), another skill or instruction decides them, or the scripted "
    "answers ignore the description; the original stays",
    "thief": "every candidate better than the original takes queries that belong to a sibling skill (its own "
    "trigger set shows it): rejected; the original stays",
    "stopped": "stopped before the end (the cost ceiling, or runs that decided nothing): nothing is proposed; "
    "the original stays",
    "no_candidates": "the proposer gave no valid description; the original stays",
}


@dataclass(frozen=True)
class Scored(Document):
    """A description on one part of the split: the rate of each query, how many it gets on the right side."""

    rates: dict[str, float] = field(metadata=key("rates"))
    right: int = field(metadata=key("right"))
    total: int = field(metadata=key("total"))
    # mean correctness over the part's measured queries
    score: float = field(metadata=key("score", write=lambda score: round(score, 4)))
    interval: tuple[float, float] = field(metadata=key("interval", write=rounded))  # Wilson 95% on right/total


def scored(rates: Mapping[str, float], labels: Mapping[str, bool], ids: tuple[str, ...] | list[str]) -> Scored:
    measured = [q for q in ids if q in rates]
    values = [correctness(rates[q], labels[q]) for q in measured]
    right = sum(1 for v in values if v > 0.5)
    low, high = wilson_interval(right, len(measured)) or (0.0, 1.0)
    score = sum(values) / len(values) if values else 0.0
    return Scored({q: rates[q] for q in measured}, right, len(measured), score, (low, high))


@dataclass
class Candidate(Document):
    round: int = field(metadata=key("round"))
    description: str = field(metadata=key("description"))
    train: Scored | None = field(default=None, metadata=key("train"))
    validation: Scored | None = field(default=None, metadata=key("validation"))
    vs_original: Paired | None = field(default=None, metadata=key("vsOriginal"))  # on validation
    # the proposer's replies refused before this one
    rejected: list[str] = field(default_factory=list, metadata=key("rejectedReplies"))


@dataclass
class Original(Document):
    """The description the skill has, and its scores."""

    description: str = field(metadata=key("description"))
    train: Scored | None = field(default=None, metadata=key("train"))
    validation: Scored | None = field(default=None, metadata=key("validation"))
    test: Scored | None = field(default=None, metadata=key("test"))


@dataclass
class SiblingCheck(Document):
    skill: str = field(metadata=key("skill"))
    queries: int = field(metadata=key("queries"))
    # should-fire queries of the sibling the winner's skill took in most runs
    stolen: list[str] = field(metadata=key("stolen"))


def _usd(value: float) -> float:
    return round(value, 6)


@dataclass
class Cost(Document):
    estimate_usd: float = field(metadata=key("estimateUsd", write=_usd))
    estimate_runs: int = field(metadata=key("estimateRuns"))
    ceiling_usd: float | None = field(default=None, metadata=key("ceilingUsd"))
    spent_usd: float = field(default=0.0, metadata=key("spentUsd", write=_usd))
    agent_runs: int = field(default=0, metadata=key("agentRuns"))
    proposer_calls: int = field(default=0, metadata=key("proposerCalls"))
    proposer_usd: float = field(default=0.0, metadata=key("proposerUsd", write=_usd))


@dataclass
class TuneResult(Document):
    _schema: None = field(
        default=None, init=False, compare=False, metadata=computed("schemaVersion", lambda r: TUNE_SCHEMA)
    )
    skill: str = field(metadata=key("skill"))  # plugin:name
    name: str = field(metadata=key("name"))
    file: str = field(metadata=key("file"))
    seed: int = field(metadata=key("seed"))
    _: KW_ONLY
    outcome: Outcome = field(default="nothing_better", metadata=key("outcome"))
    _explanation: None = field(
        default=None, init=False, compare=False, metadata=computed("explanation", lambda r: r.explanation)
    )
    stop: str = field(default="", metadata=key("stop"))  # why the rounds ended
    queries: dict[str, dict[str, Any]] = field(metadata=key("queries"))  # id → {query, shouldFire, part}
    original: Original = field(metadata=key("original"))
    candidates: list[Candidate] = field(default_factory=list, metadata=key("candidates"))
    winner: int | None = field(default=None, metadata=key("winner"))  # index in candidates
    winner_test: Scored | None = field(default=None, metadata=key("winnerTest"))
    test_margin: Paired | None = field(default=None, metadata=key("testMargin"))  # winner minus original, on test
    siblings: list[SiblingCheck] = field(default_factory=list, metadata=key("siblings"))
    cost: Cost = field(metadata=key("cost"))
    notes: list[str] = field(default_factory=list, metadata=key("notes"))

    @property
    def explanation(self) -> str:
        return OUTCOME_TEXT[self.outcome]

    @property
    def best(self) -> Candidate | None:
        return self.candidates[self.winner] if self.winner is not None else None

    def part(self, name: str) -> list[str]:
        return [q for q, info in self.queries.items() if info["part"] == name]
