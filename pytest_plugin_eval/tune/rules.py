"""Tuning a skill's description, as numbers: the three-way split of its trigger set, the paired comparison of a
candidate with the original on the same queries, and the rule that picks the winner (or keeps the original).

Pure functions of query ids, labels and fire rates, so the rule can be checked without running anything. The
split is stratified by label and seeded: train (the proposer sees its failures), validation (chooses among
candidates), test (scored once, at the end, for the original and the winner only — an untouched score).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .. import stats
from ..core.errors import UsageError
from ..results.jsonmap import Document, computed, key

# Each part needs queries of both labels, and one query per label cannot tell a better description from luck.
MIN_PER_PART = 2
PARTS = ("train", "validation", "test")
VALIDATION_SHARE = 0.25
TEST_SHARE = 0.25
MIN_PER_LABEL = MIN_PER_PART * len(PARTS)


class SetTooSmall(UsageError, ValueError):
    """A trigger set that cannot be split honestly; the message says how many queries per label are needed."""


@dataclass(frozen=True)
class Labelled:
    id: str
    should_fire: bool


@dataclass(frozen=True)
class Split:
    train: tuple[str, ...]
    validation: tuple[str, ...]
    test: tuple[str, ...]

    def part_of(self, query_id: str) -> str:
        return next(name for name in PARTS if query_id in getattr(self, name))


def split(queries: Sequence[Labelled], seed: int = 0, skill: str = "the skill", file: str = "") -> Split:
    """Each label shuffled with `seed` and dealt out: a quarter (at least MIN_PER_PART) to validation and to test,
    the rest to train. Raises SetTooSmall when a label has fewer than MIN_PER_LABEL queries."""
    by_label = {True: [q.id for q in queries if q.should_fire], False: [q.id for q in queries if not q.should_fire]}
    short = {label: MIN_PER_LABEL - len(ids) for label, ids in by_label.items() if len(ids) < MIN_PER_LABEL}
    if short:
        where = f" in {file}" if file else ""
        needs = "; ".join(
            f"{len(by_label[label])} {_label(label)} (add {missing})" for label, missing in sorted(short.items())
        )
        raise SetTooSmall(
            f"{skill}'s trigger set{where} is too small to tune on: {needs}. Tuning needs at least {MIN_PER_LABEL} "
            f"queries of each label ({MIN_PER_PART} each for train, validation and test), so that the winner is "
            "chosen on queries the proposer never saw and scored on queries nothing was chosen on"
        )
    rng = random.Random(seed)
    parts: dict[str, list[str]] = {name: [] for name in PARTS}
    for label in (True, False):
        ids = sorted(by_label[label])
        rng.shuffle(ids)
        n_val = max(MIN_PER_PART, round(len(ids) * VALIDATION_SHARE))
        n_test = max(MIN_PER_PART, round(len(ids) * TEST_SHARE))
        parts["validation"] += ids[:n_val]
        parts["test"] += ids[n_val : n_val + n_test]
        parts["train"] += ids[n_val + n_test :]
    return Split(*(tuple(sorted(parts[name])) for name in PARTS))


def _label(should_fire: bool) -> str:
    return "should_fire" if should_fire else "should_not_fire"


def correctness(rate: float, should_fire: bool) -> float:
    """How right a query's fire rate is: the rate for a should-fire query, one minus it for a near-miss."""
    return rate if should_fire else 1.0 - rate


def rounded(values: Sequence[float]) -> list[float]:
    """An interval as the documents write it."""
    return [round(x, 4) for x in values]


@dataclass(frozen=True)
class Paired(Document):
    """Candidate minus original, query by query over the same queries: the mean difference in correctness and
    its interval."""

    margin: float = field(metadata=key("margin", write=lambda margin: round(margin, 4)))
    interval: tuple[float, float] = field(metadata=key("interval", write=rounded))
    queries: int = field(metadata=key("queries"))
    _better: None = field(default=None, init=False, compare=False, metadata=computed("better", lambda p: p.better))

    @property
    def better(self) -> bool:
        return self.interval[0] > 0


def paired(candidate: Mapping[str, float], original: Mapping[str, float], labels: Mapping[str, bool]) -> Paired:
    """The paired margin over the queries both were measured on, with stats.difference_interval's interval (two
    pseudo-pairs added: with a handful of queries a uniform gain is never taken for certainty)."""
    shared = sorted(set(candidate) & set(original) & set(labels))
    if not shared:
        raise ValueError("no query was measured for both descriptions")
    diffs = [correctness(candidate[q], labels[q]) - correctness(original[q], labels[q]) for q in shared]
    return Paired(sum(diffs) / len(diffs), stats.difference_interval(diffs), len(shared))


Reason = Literal["improved", "nothing_better", "flat"]
REASONS: dict[str, str] = {
    "improved": "a candidate beat the original on validation by a margin whose interval excludes 0",
    "nothing_better": "no candidate beat the original on validation by a margin whose interval excludes 0: "
    "the original stays",
    "flat": "every query fired at the same rate (all at 0, or all at 1) whatever the description said: the "
    "description does not move Claude on these queries. Usually the queries are too far from the skill (or the "
    "near-misses too close to it), another skill or instruction decides them, or the scripted answers ignore "
    "the description; the original stays",
}


@dataclass(frozen=True)
class Choice:
    winner: int | None  # the candidate's index, None: the original stays
    reason: Reason
    comparisons: tuple[Paired, ...]  # one per candidate, in order

    @property
    def explanation(self) -> str:
        return REASONS[self.reason]


def choose(
    original: Mapping[str, float], candidates: Sequence[Mapping[str, float]], labels: Mapping[str, bool]
) -> Choice:
    """The candidate with the largest validation margin among those whose interval excludes 0; else the
    original, saying whether nothing was better or the signal was flat."""
    comparisons = tuple(paired(c, original, labels) for c in candidates)
    better = ranked(comparisons)
    if better:
        return Choice(better[0], "improved", comparisons)
    return Choice(None, "flat" if is_flat([original, *candidates]) else "nothing_better", comparisons)


def ranked(comparisons: Sequence[Paired | None]) -> list[int]:
    """The candidates better than the original (their interval excludes 0), best first: the largest margin, ties
    to the earlier candidate. The next one stands in when a better one is rejected (it takes a sibling's queries)."""
    better = [(i, p) for i, p in enumerate(comparisons) if p is not None and p.better]
    return [i for i, _ in sorted(better, key=lambda pair: (-pair[1].margin, pair[0]))]


def is_flat(measured: Sequence[Mapping[str, float]]) -> bool:
    """Every description left every query at 0, or every query at 1: nothing the description said mattered."""
    rates = {rate for rates in measured for rate in rates.values()}
    return rates == {0.0} or rates == {1.0}
