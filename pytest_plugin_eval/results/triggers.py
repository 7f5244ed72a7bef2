"""The results of trigger evals: per query, how often Claude consulted the skill, with an interval and a verdict;
per skill, recall, false-fire rate and precision over its queries.

A query *fires* when the Wilson interval of its fire rate lies above the threshold, *does not fire* when it lies
below, and is *undecided* when it straddles it — more runs decide it. Runs that erred are no "no": they are left
out of the rate (and make the session partial). In the document a suite's sets are its `triggers` list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..load.skills import TriggerTarget
from ..run.transcript import Transcript
from ..run.trigger import decide
from ..stats import wilson_interval
from .model import RunResult

QueryVerdict = Literal["fires", "does_not_fire", "undecided", "no_runs"]
VERDICT_WORDS: dict[str, str] = {
    "fires": "fires",
    "does_not_fire": "does not fire",
    "undecided": "undecided",
    "no_runs": "no runs",
}
NONE = "none"  # what `consulted` counts a run that consulted nothing under


@dataclass
class TriggerRun:
    """One run of a query: what the agent consulted, decided by which event — or the error that decided nothing."""

    index: int
    fired: bool | None  # the set's skill was consulted; None: the run decided nothing (it erred)
    skill: str | None = None  # what the agent consulted (the skill, a sibling, another skill); None: nothing
    decided_by: str | None = None
    turns: int = 0
    cost_usd: float = 0.0
    duration_seconds: float = 0.0
    started_at: str = ""
    attempts: int = 1
    error: str | None = None
    error_kind: str | None = None
    trace_path: str | None = None
    notes: list[str] = field(default_factory=list)  # for the session's notices, not the document

    def to_json(self) -> dict:
        out: dict[str, Any] = {"index": self.index, "fired": self.fired, "skill": self.skill}
        out["decidedBy"] = self.decided_by
        out |= {"turns": self.turns, "costUsd": self.cost_usd, "durationSeconds": round(self.duration_seconds, 3)}
        out["startedAt"] = self.started_at
        if self.attempts > 1:
            out["attempts"] = self.attempts
        if self.error is not None:
            out |= {"error": self.error, "errorKind": self.error_kind}
        out["tracePath"] = self.trace_path
        return out

    @classmethod
    def from_json(cls, data: dict) -> TriggerRun:
        return cls(
            index=data["index"],
            fired=data.get("fired"),
            skill=data.get("skill"),
            decided_by=data.get("decidedBy"),
            turns=data.get("turns", 0),
            cost_usd=data.get("costUsd", 0.0),
            duration_seconds=data.get("durationSeconds", 0.0),
            started_at=data.get("startedAt", ""),
            attempts=data.get("attempts", 1),
            error=data.get("error"),
            error_kind=data.get("errorKind"),
            trace_path=data.get("tracePath"),
        )


@dataclass
class QueryResult:
    id: str
    query: str
    should_fire: bool
    runs: list[TriggerRun] = field(default_factory=list)

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

    def to_json(self, threshold: float) -> dict:
        interval = self.interval
        return {
            "id": self.id,
            "query": self.query,
            "shouldFire": self.should_fire,
            "fires": self.fires,
            "decidedRuns": len(self.decided),
            "rate": self.rate,
            "rateCI": list(interval) if interval else None,
            "verdict": self.verdict(threshold),
            "correct": self.correct(threshold),
            "consulted": self.consulted,
            "runs": [r.to_json() for r in sorted(self.runs, key=lambda r: r.index)],
        }

    @classmethod
    def from_json(cls, data: dict) -> QueryResult:
        return cls(
            id=data["id"],
            query=data["query"],
            should_fire=data["shouldFire"],
            runs=[TriggerRun.from_json(r) for r in data.get("runs", [])],
        )


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
class TriggerSetResult:
    """One skill's trigger set, from one file, as the session ran it."""

    skill: str  # qualified: plugin:name
    name: str
    kind: str  # skill | command
    description: str
    file: str  # relative to the suite
    format: str  # yaml | skill-creator
    threshold: float
    runs_per_query: int
    max_turns: int
    model: str | None = None
    queries: list[QueryResult] = field(default_factory=list)

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
        return sum(r.cost_usd for r in self.runs)

    def to_json(self) -> dict:
        return {
            "skill": self.skill,
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "file": self.file,
            "format": self.format,
            "threshold": self.threshold,
            "runsPerQuery": self.runs_per_query,
            "maxTurns": self.max_turns,
            "model": self.model,
            "summary": {
                "recall": self.recall.to_json(),
                "falseFireRate": self.false_fire_rate.to_json(),
                "precision": self.precision.to_json(),
                "wrong": len(self.wrong),
                "undecided": len(self.undecided),
                "erroredRuns": sum(len(q.errors) for q in self.queries),
                "costUsd": self.cost_usd,
            },
            "queries": [q.to_json(self.threshold) for q in self.queries],
        }

    @classmethod
    def from_json(cls, data: dict) -> TriggerSetResult:
        return cls(
            skill=data["skill"],
            name=data["name"],
            kind=data.get("kind", "skill"),
            description=data.get("description", ""),
            file=data.get("file", ""),
            format=data.get("format", "yaml"),
            threshold=data.get("threshold", 0.5),
            runs_per_query=data.get("runsPerQuery", 0),
            max_turns=data.get("maxTurns", 0),
            model=data.get("model"),
            queries=[QueryResult.from_json(q) for q in data.get("queries", [])],
        )

    def key(self) -> tuple[str, str]:
        return (self.file, self.skill)


def trigger_run_of(result: RunResult, target: TriggerTarget) -> TriggerRun:
    """The run as a trigger run: what its kept trace decides. An error decides nothing — except reaching the turn
    limit, which is how a run that never consults the skill may end."""
    transcript = Transcript.from_file(Path(result.trace_path)) if result.trace_path else Transcript("")
    firing = decide(transcript, target) if result.error_kind in (None, "max_turns") else None
    error, kind = result.error, result.error_kind
    if firing is None and error is None:
        error, kind = "the run ended without consulting a skill or finishing", "agent"
    missing = unloaded(transcript, target)
    if missing:
        firing, error, kind = None, missing, "start"
    return TriggerRun(
        index=result.index,
        fired=firing.fired if firing is not None else None,
        skill=firing.skill if firing is not None else None,
        decided_by=firing.decided_by if firing is not None else None,
        turns=result.turns,
        cost_usd=result.cost_usd,
        duration_seconds=result.duration_seconds,
        started_at=result.started_at,
        attempts=result.attempts,
        error=None if firing is not None else error,
        error_kind=None if firing is not None else kind,
        trace_path=result.trace_path,
        notes=list(result.notes),
    )


def unloaded(transcript: Transcript, target: TriggerTarget) -> str | None:
    """The skill under test was not among what Claude Code loaded for the run (its init line lists them): the run
    cannot have measured it."""
    init = transcript.init
    listed = init.get("skills") if target.skill.kind == "skill" else init.get("slash_commands")
    if not isinstance(listed, list) or target.skill.qualified_name in listed:
        return None
    return (
        f"Claude Code did not load {target.skill.qualified_name} in this run (its session listed "
        f"{len(listed)} other(s)) — check {target.skill.path.name}'s frontmatter and folder"
    )


def read_triggers(document_extra: dict) -> list[TriggerSetResult]:
    """The trigger sets of a results document (its `triggers` list; [] for a document without)."""
    return [TriggerSetResult.from_json(t) for t in document_extra.get("triggers") or []]
