"""The results of trigger evals: per query, how often Claude consulted the skill, with an interval and a verdict;
per skill, recall, false-fire rate and precision over its queries.

A query *fires* when the Wilson interval of its fire rate lies above the threshold, *does not fire* when it lies
below, and is *undecided* when it straddles it — more runs decide it. Runs that erred are no "no": they are left
out of the rate (and make the session partial). In the document a suite's sets are its `triggers` list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.kinds import ComponentKind, ErrorKind, TriggerFormat
from ..stats import wilson_interval
from .jsonmap import EXTRA, Document, key, read, write


def _same(value: Any) -> Any:
    return value


QueryVerdict = Literal["fires", "does_not_fire", "undecided", "no_runs"]
VERDICT_WORDS: dict[str, str] = {
    "fires": "fires",
    "does_not_fire": "does not fire",
    "undecided": "undecided",
    "no_runs": "no runs",
}
NONE = "none"  # what `consulted` counts a run that consulted nothing under
# What a query's JSON says of its runs: written from them, never read back (they would go stale).
QUERY_DERIVED = ("fires", "decidedRuns", "rate", "rateCI", "verdict", "correct", "consulted")


def runs_to_decide(threshold: float, most: int = 1000) -> int | None:
    """The fewest runs per query whose 95% interval can leave `threshold` on both sides: n of n fires above it
    (a should-fire query decided) and 0 of n below it (a should-not-fire query decided). Fewer runs leave every
    query undecided whatever it does."""
    for n in range(1, most + 1):
        fired, not_fired = wilson_interval(n, n), wilson_interval(0, n)
        if fired is not None and not_fired is not None and fired[0] > threshold and not_fired[1] < threshold:
            return n
    return None


def undecidable_notice(trigger_set: str, runs: int, threshold: float) -> str | None:
    """Said when `runs` per query can never decide a query of `trigger_set` at `threshold`."""
    needed = runs_to_decide(threshold)
    if needed is None or runs >= needed:
        return None
    return (
        f"⚠ trigger set {trigger_set}: {runs} run(s) per query can never decide a query at threshold {threshold:g} "
        f"(even {runs}/{runs} or 0/{runs} runs leave its 95% interval across it): every query stays undecided — "
        f"use runs: {needed} or more"
    )


@dataclass
class TriggerRun(Document):
    """One run of a query: what the agent consulted, decided by which event — or the error that decided nothing."""

    index: int = field(metadata=key("index"))
    fired: bool | None = field(metadata=key("fired", read=_same))  # None: the run decided nothing (it erred)
    # what the agent consulted (the skill, a sibling, another skill); None: nothing
    skill: str | None = field(default=None, metadata=key("skill"))
    decided_by: str | None = field(default=None, metadata=key("decidedBy"))
    turns: int = field(default=0, metadata=key("turns"))
    cost_usd: float = field(default=0.0, metadata=key("costUsd"))
    duration_seconds: float = field(default=0.0, metadata=key("durationSeconds", write=lambda v: round(v, 3)))
    started_at: str = field(default="", metadata=key("startedAt"))
    attempts: int = field(default=1, metadata=key("attempts", omit=lambda n: n == 1))
    error: str | None = field(default=None, metadata=key("error", omit="none"))
    error_kind: ErrorKind | None = field(default=None, metadata=key("errorKind", omit="none"))
    trace_path: str | None = field(default=None, metadata=key("tracePath"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
    notes: list[str] = field(default_factory=list)  # for the session's notices, not the document


@dataclass
class QueryResult(Document):
    id: str = field(metadata=key("id"))
    query: str = field(metadata=key("query"))
    should_fire: bool = field(metadata=key("shouldFire"))
    runs: list[TriggerRun] = field(default_factory=list, metadata=key("runs"))
    # --against: the runs of the other version of the plugin (then), beside the runs of this one (now)
    against_runs: list[TriggerRun] = field(default_factory=list, metadata=key("againstRuns", omit="falsy"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)  # written last, after the runs
    threshold: float = 0.5  # its set's, for the verdict written with it (not a key of its own)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueryResult:
        return read(cls, {k: v for k, v in data.items() if k not in QUERY_DERIVED})

    @property
    def decided(self) -> list[TriggerRun]:
        return [r for r in self.runs if r.fired is not None]

    @property
    def fires(self) -> int:
        return sum(1 for r in self.decided if r.fired)

    @property
    def rate(self) -> float | None:
        return self.fires / len(self.decided) if self.decided else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.fires, len(self.decided))

    def verdict(self, threshold: float) -> QueryVerdict:
        interval = self.interval
        if interval is None:
            return "no_runs"
        low, high = interval
        if low > threshold:
            return "fires"
        if high < threshold:
            return "does_not_fire"
        return "undecided"

    def correct(self, threshold: float) -> bool | None:
        """Decided on the side its label asks for (None: not decided)."""
        verdict = self.verdict(threshold)
        if verdict in ("undecided", "no_runs"):
            return None
        return (verdict == "fires") == self.should_fire

    def fires_at(self, threshold: float) -> bool | None:
        """Its fire rate at or above the threshold (the point estimate recall and precision count)."""
        return None if self.rate is None else self.rate >= threshold

    @property
    def consulted(self) -> dict[str, int]:
        """What its decided runs consulted: skill → runs (`none` for nothing)."""
        out: dict[str, int] = {}
        for run in self.decided:
            name = run.skill or NONE
            out[name] = out.get(name, 0) + 1
        return out

    @property
    def errors(self) -> list[TriggerRun]:
        return [r for r in self.runs if r.fired is None]

    def to_json(self) -> dict[str, Any]:
        """Its keys, with what its runs come to written before them (read back from the runs, not stored)."""
        interval = self.interval
        return {
            **write(self, stop="runs"),
            "fires": self.fires,
            "decidedRuns": len(self.decided),
            "rate": self.rate,
            "rateCI": list(interval) if interval else None,
            "verdict": self.verdict(self.threshold),
            "correct": self.correct(self.threshold),
            "consulted": self.consulted,
            "runs": [r.to_json() for r in sorted(self.runs, key=lambda r: r.index)],
            **(
                {"againstRuns": [r.to_json() for r in sorted(self.against_runs, key=lambda r: r.index)]}
                if self.against_runs
                else {}
            ),
            **self.extra,
        }

    @property
    def then(self) -> QueryResult | None:
        """The query as --against's version answered it (None: no such runs)."""
        if not self.against_runs:
            return None
        return QueryResult(self.id, self.query, self.should_fire, runs=list(self.against_runs))


@dataclass(frozen=True)
class Rate:
    """A share of queries with its Wilson interval."""

    count: int
    of: int

    @property
    def value(self) -> float | None:
        return self.count / self.of if self.of else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.count, self.of)

    def to_json(self) -> dict:
        interval = self.interval
        return {"value": self.value, "ci": list(interval) if interval else None, "count": self.count, "of": self.of}


@dataclass
class TriggerSetResult(Document):
    """One skill's trigger set, from one file, as the session ran it."""

    skill: str = field(metadata=key("skill"))  # qualified: plugin:name
    name: str = field(metadata=key("name"))
    kind: ComponentKind = field(default="skill", metadata=key("kind"))
    description: str = field(default="", metadata=key("description"))
    file: str = field(default="", metadata=key("file"))  # relative to the suite
    format: TriggerFormat = field(default="yaml", metadata=key("format"))
    threshold: float = field(default=0.5, metadata=key("threshold"))
    runs_per_query: int = field(default=0, metadata=key("runsPerQuery"))
    max_turns: int = field(default=0, metadata=key("maxTurns"))
    model: str | None = field(default=None, metadata=key("model"))
    # some query's scripted answer follows the description (`description_has:`): a scripted session shows its change
    scripted_by_description: bool = field(default=False, metadata=key("scriptedByDescription", omit="falsy"))
    queries: list[QueryResult] = field(default_factory=list, metadata=key("queries"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)  # written last, after the queries

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TriggerSetResult:
        return read(cls, {k: v for k, v in data.items() if k != "summary"})

    def __post_init__(self) -> None:
        for query in self.queries:
            query.threshold = self.threshold

    def _measured(self, should_fire: bool) -> list[QueryResult]:
        return [q for q in self.queries if q.should_fire == should_fire and q.rate is not None]

    @property
    def recall(self) -> Rate:
        """Should-fire queries that fire."""
        measured = self._measured(True)
        return Rate(sum(1 for q in measured if q.fires_at(self.threshold)), len(measured))

    @property
    def false_fire_rate(self) -> Rate:
        """Should-not-fire queries that fire."""
        measured = self._measured(False)
        return Rate(sum(1 for q in measured if q.fires_at(self.threshold)), len(measured))

    @property
    def precision(self) -> Rate:
        """Of the queries that fire, those that should."""
        hits, false = self.recall.count, self.false_fire_rate.count
        return Rate(hits, hits + false)

    @property
    def wrong(self) -> list[QueryResult]:
        return [q for q in self.queries if q.correct(self.threshold) is False]

    @property
    def undecided(self) -> list[QueryResult]:
        return [q for q in self.queries if q.verdict(self.threshold) == "undecided"]

    @property
    def runs(self) -> list[TriggerRun]:
        return [r for q in self.queries for r in q.runs]

    @property
    def cost_usd(self) -> float:
        """What its runs cost, --against's version's included."""
        return sum(r.cost_usd for q in self.queries for r in (*q.runs, *q.against_runs))

    def to_json(self) -> dict[str, Any]:
        """Its keys, with its summary (read back from its queries, not stored) before its queries."""
        for query in self.queries:
            query.threshold = self.threshold
        return {
            **write(self, stop="queries"),
            "summary": {
                "recall": self.recall.to_json(),
                "falseFireRate": self.false_fire_rate.to_json(),
                "precision": self.precision.to_json(),
                "wrong": len(self.wrong),
                "undecided": len(self.undecided),
                "erroredRuns": sum(len(q.errors) for q in self.queries),
                "costUsd": self.cost_usd,
            },
            "queries": [q.to_json() for q in self.queries],
            **self.extra,
        }

    def key(self) -> tuple[str, str]:
        return (self.file, self.skill)
