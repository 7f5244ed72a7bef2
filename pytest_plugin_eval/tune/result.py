"""What a tuning loop found: the split, the original and every candidate scored on train and validation, the
choice with its paired margin, the siblings' check, the test score of the original and the winner, the cost.

Written as `tune.json` beside `tune.html` (tune/report.py); its own small document, not a session's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..stats import wilson_interval
from .rules import Paired, correctness

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
class Scored:
    """A description on one part of the split: the rate of each query, how many it gets on the right side."""

    rates: dict[str, float]
    right: int
    total: int
    score: float  # mean correctness over the part's measured queries
    interval: tuple[float, float]  # Wilson 95% on right/total

    def to_json(self) -> dict[str, Any]:
        return {
            "rates": self.rates,
            "right": self.right,
            "total": self.total,
            "score": round(self.score, 4),
            "interval": [round(x, 4) for x in self.interval],
        }


def scored(rates: Mapping[str, float], labels: Mapping[str, bool], ids: tuple[str, ...] | list[str]) -> Scored:
    measured = [q for q in ids if q in rates]
    values = [correctness(rates[q], labels[q]) for q in measured]
    right = sum(1 for v in values if v > 0.5)
    low, high = wilson_interval(right, len(measured)) or (0.0, 1.0)
    score = sum(values) / len(values) if values else 0.0
    return Scored({q: rates[q] for q in measured}, right, len(measured), score, (low, high))


def paired_json(p: Paired | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "margin": round(p.margin, 4),
        "interval": [round(x, 4) for x in p.interval],
        "queries": p.queries,
        "better": p.better,
    }


@dataclass
class Candidate:
    round: int
    description: str
    train: Scored | None = None
    validation: Scored | None = None
    vs_original: Paired | None = None  # on validation
    rejected: list[str] = field(default_factory=list)  # the proposer's replies refused before this one

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "description": self.description,
            "train": self.train.to_json() if self.train else None,
            "validation": self.validation.to_json() if self.validation else None,
            "vsOriginal": paired_json(self.vs_original),
            "rejectedReplies": self.rejected,
        }


@dataclass
class SiblingCheck:
    skill: str
    queries: int
    stolen: list[str]  # should-fire queries of the sibling the winner's skill took in most runs


@dataclass
class Cost:
    estimate_usd: float
    estimate_runs: int
    ceiling_usd: float | None = None
    spent_usd: float = 0.0
    agent_runs: int = 0
    proposer_calls: int = 0
    proposer_usd: float = 0.0


@dataclass
class TuneResult:
    skill: str  # plugin:name
    name: str
    file: str
    seed: int
    queries: dict[str, dict[str, Any]]  # id → {query, shouldFire, part}
    original: str
    cost: Cost
    original_train: Scored | None = None
    original_validation: Scored | None = None
    original_test: Scored | None = None
    candidates: list[Candidate] = field(default_factory=list)
    outcome: Outcome = "nothing_better"
    winner: int | None = None  # index in candidates
    winner_test: Scored | None = None
    test_margin: Paired | None = None  # winner minus original, on test
    siblings: list[SiblingCheck] = field(default_factory=list)
    stop: str = ""  # why the rounds ended
    notes: list[str] = field(default_factory=list)

    @property
    def explanation(self) -> str:
        return OUTCOME_TEXT[self.outcome]

    @property
    def best(self) -> Candidate | None:
        return self.candidates[self.winner] if self.winner is not None else None

    def part(self, name: str) -> list[str]:
        return [q for q, info in self.queries.items() if info["part"] == name]

    def to_json(self) -> dict[str, Any]:
        def opt(s: Scored | None) -> dict | None:
            return s.to_json() if s else None

        return {
            "schemaVersion": TUNE_SCHEMA,
            "skill": self.skill,
            "name": self.name,
            "file": self.file,
            "seed": self.seed,
            "outcome": self.outcome,
            "explanation": self.explanation,
            "stop": self.stop,
            "queries": self.queries,
            "original": {
                "description": self.original,
                "train": opt(self.original_train),
                "validation": opt(self.original_validation),
                "test": opt(self.original_test),
            },
            "candidates": [c.to_json() for c in self.candidates],
            "winner": self.winner,
            "winnerTest": opt(self.winner_test),
            "testMargin": paired_json(self.test_margin),
            "siblings": [{"skill": s.skill, "queries": s.queries, "stolen": s.stolen} for s in self.siblings],
            "cost": {
                "estimateUsd": round(self.cost.estimate_usd, 6),
                "estimateRuns": self.cost.estimate_runs,
                "ceilingUsd": self.cost.ceiling_usd,
                "spentUsd": round(self.cost.spent_usd, 6),
                "agentRuns": self.cost.agent_runs,
                "proposerCalls": self.cost.proposer_calls,
                "proposerUsd": round(self.cost.proposer_usd, 6),
            },
            "notes": self.notes,
        }
