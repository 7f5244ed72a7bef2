"""What a comparison of two sessions is made of (analysis.compare computes it): a number then and now with the
interval of its change and a verdict, each case's and grader's changes, the warnings that the sessions were not
measured alike, and the compare document it writes (`Comparison.to_json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import SCHEMA_VERSION, SuiteResult
from .trigger_compare import TriggerSetChange

BETTER, WORSE, NO_CHANGE = "better", "worse", "no_detectable_change"
COMPARED, ADDED, REMOVED = "compared", "added", "removed"


@dataclass(frozen=True)
class Change:
    """A number in the old and the new session, and — where it can be estimated — the interval of new − old and
    what it says: better (the interval is above 0), worse (below 0) or no detectable change (it holds 0)."""

    old: float | None
    new: float | None
    interval: tuple[float, float] | None = None
    tested: bool = False  # an interval was sought (None then: too few scored runs to tell)

    @property
    def change(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    @property
    def verdict(self) -> str | None:
        if self.interval is None:
            return None
        low, high = self.interval
        return BETTER if low > 0 else WORSE if high < 0 else NO_CHANGE

    def to_json(self) -> dict:
        out: dict[str, Any] = {"old": self.old, "new": self.new, "change": self.change}
        if self.tested:
            out["interval"] = list(self.interval) if self.interval is not None else None
            out["verdict"] = self.verdict
        return out


HIGHER, LOWER = "higher", "lower"


@dataclass(frozen=True)
class FigureChange:
    """An efficiency figure (turns, tokens, cost…) of the with-plugin runs in the old and the new session, its
    change and the change's interval (`level`: the level the interval really has, lower when the runs are few).
    Its verdict is higher / lower / no detectable change: spending more is not "worse" by itself, so it fails
    nothing (a `budget` grader does)."""

    old: float | None
    new: float | None
    change: float | None
    interval: tuple[float, float] | None = None
    level: float | None = None

    @property
    def verdict(self) -> str | None:
        if self.interval is None:
            return None
        low, high = self.interval
        return HIGHER if low > 0 else LOWER if high < 0 else NO_CHANGE

    def to_json(self) -> dict:
        return {
            "old": self.old,
            "new": self.new,
            "change": self.change,
            "interval": list(self.interval) if self.interval is not None else None,
            "level": self.level,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Tally:
    """How many with-arm runs a grader passed, of the runs it judged."""

    passed: int
    runs: int

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.runs if self.runs else None

    def to_json(self) -> dict:
        return {"passed": self.passed, "runs": self.runs, "passRate": self.pass_rate}


@dataclass(frozen=True)
class GraderChange:
    """One grader of a case in the with arm: its pass rate before and after (None where the session did not have
    it, or it never judged), and whether its definition changed in between."""

    name: str
    old: Tally | None
    new: Tally | None
    definition_changed: bool = False

    @property
    def status(self) -> str:
        return ADDED if self.old is None else REMOVED if self.new is None else COMPARED

    @property
    def change(self) -> float | None:
        before, after = (self.old.pass_rate if self.old else None), (self.new.pass_rate if self.new else None)
        return None if before is None or after is None else after - before

    @property
    def changed(self) -> bool:
        """Its pass rate moved (a grader that passed every run and now fails some, say), or it came or went."""
        return self.status != COMPARED or (self.change is not None and abs(self.change) > 1e-9)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "old": self.old.to_json() if self.old else None,
            "new": self.new.to_json() if self.new else None,
            "change": self.change,
            "changed": self.changed,
            "definitionChanged": self.definition_changed,
        }


@dataclass(frozen=True)
class CompareWarning:
    """Why the two sessions may not measure the same thing. `case`: the case it is about (None: the session)."""

    kind: str  # plugin | model | scripted | judgeModel | claudeVersion | ablation | runsPerArm | arms | prompt
    # | graders | limits | partial | shard
    message: str
    case: str | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "case": self.case, "message": self.message}


@dataclass(frozen=True)
class CaseComparison:
    name: str
    dir: str
    status: str  # compared | added (only in the new session) | removed (only in the old one)
    with_score: Change  # WITH: the mean with-plugin score
    delta: Change | None  # Δ; None unless both sessions ran the case with both arms (or, added/removed: one did)
    runs: tuple[int, int]  # scored with-arm runs: old, new
    graders: list[GraderChange] = field(default_factory=list)
    cost_usd: Change = field(default_factory=lambda: Change(None, None))
    duration_seconds: Change = field(default_factory=lambda: Change(None, None))
    # figure → its with-plugin median then and now (analysis/efficiency_change.py); empty: neither measured it
    efficiency: dict[str, FigureChange] = field(default_factory=dict)

    @property
    def changed_graders(self) -> list[GraderChange]:
        return [g for g in self.graders if g.changed]

    @property
    def worse(self) -> bool:
        return WORSE in (self.with_score.verdict, self.delta.verdict if self.delta else None)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "dir": self.dir,
            "status": self.status,
            "with": self.with_score.to_json(),
            "delta": self.delta.to_json() if self.delta else None,
            "runs": {"old": self.runs[0], "new": self.runs[1]},
            "graders": [g.to_json() for g in self.graders],
            "costUsd": self.cost_usd.to_json(),
            "durationSeconds": self.duration_seconds.to_json(),
            **({"efficiency": {k: v.to_json() for k, v in self.efficiency.items()}} if self.efficiency else {}),
        }


@dataclass(frozen=True)
class SessionRef:
    """Which session a side of the comparison is."""

    source: str  # the folder or file it was read from
    started_at: str
    claude_version: str
    plugins: list[str]
    partial_reason: str | None  # None: complete

    @classmethod
    def of(cls, document: SuiteResult, source: str) -> SessionRef:
        return cls(
            source=source,
            started_at=document.started_at,
            claude_version=document.claude_version,
            plugins=[p.name for p in document.suite.plugins],
            partial_reason=(document.partial_reason or "unknown") if document.partial else None,
        )

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "startedAt": self.started_at,
            "claudeVersion": self.claude_version,
            "plugins": list(self.plugins),
            "partial": self.partial_reason is not None,
            "partialReason": self.partial_reason,
        }


@dataclass(frozen=True)
class Comparison:
    old: SessionRef
    new: SessionRef
    level: float
    cases: list[CaseComparison]  # the new session's order, then the removed cases
    warnings: list[CompareWarning]
    cost_usd: Change
    duration_seconds: Change
    mean_with: Change  # the mean over cases of WITH, over the cases both sessions have
    mean_delta: Change  # the same for Δ
    triggers: list[TriggerSetChange] = field(default_factory=list)  # the trigger sets of either session
    trigger_note: str | None = None  # why a change of description cannot show (both sessions scripted)

    @property
    def worse_queries(self) -> list[str]:
        """Trigger queries that moved against their label (`skill/query`), which `--fail-on-worse` fails on too."""
        return [f"{t.name}/{q.id}" for t in self.triggers for q in t.worse]

    plugin_changes: list[str] = field(default_factory=list)  # what changed in the plugin (results.plugin_changes)
    baseline_note: str | None = None  # the sessions share without-plugin runs (--reuse-baseline)
    # figure → the median compared case's with-plugin median then and now, and the median of the cases' changes
    efficiency: dict[str, FigureChange] = field(default_factory=dict)

    @property
    def compared(self) -> list[CaseComparison]:
        return [c for c in self.cases if c.status == COMPARED]

    @property
    def added(self) -> list[CaseComparison]:
        return [c for c in self.cases if c.status == ADDED]

    @property
    def removed(self) -> list[CaseComparison]:
        return [c for c in self.cases if c.status == REMOVED]

    @property
    def comparable(self) -> bool:
        return not self.warnings

    @property
    def worse(self) -> list[CaseComparison]:
        """The cases with a worse verdict, of WITH or of Δ (what `--fail-on-worse` fails on)."""
        return [c for c in self.compared if c.worse]

    def verdicts(self, of: str) -> dict[str, int]:
        """How many compared cases got each verdict, for `of` = "with" or "delta" ("unknown": no interval)."""
        counts = {BETTER: 0, WORSE: 0, NO_CHANGE: 0, "unknown": 0}
        for case in self.compared:
            change = case.with_score if of == "with" else case.delta
            counts[(change.verdict if change else None) or "unknown"] += 1
        return counts

    def to_json(self) -> dict:
        def counts(of: str) -> dict[str, int]:
            raw = self.verdicts(of)
            return {
                "better": raw[BETTER],
                "worse": raw[WORSE],
                "noDetectableChange": raw[NO_CHANGE],
                "unknown": raw["unknown"],
            }

        return {
            "schemaVersion": SCHEMA_VERSION,
            "level": self.level,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "comparable": self.comparable,
            "pluginChanges": list(self.plugin_changes),
            **({"baselineNote": self.baseline_note} if self.baseline_note else {}),
            "warnings": [w.to_json() for w in self.warnings],
            "summary": {
                "compared": len(self.compared),
                "added": [c.name for c in self.added],
                "removed": [c.name for c in self.removed],
                "with": counts("with"),
                "delta": counts("delta"),
                "worse": [c.name for c in self.worse],
                "gradersChanged": sum(len(c.changed_graders) for c in self.compared),
            },
            "meanWith": self.mean_with.to_json(),
            "meanDelta": self.mean_delta.to_json(),
            "costUsd": self.cost_usd.to_json(),
            "durationSeconds": self.duration_seconds.to_json(),
            **({"efficiency": {k: v.to_json() for k, v in self.efficiency.items()}} if self.efficiency else {}),
            "cases": [c.to_json() for c in self.cases],
            **(
                {"triggers": [t.to_json() for t in self.triggers], "triggersWorse": self.worse_queries}
                if self.triggers
                else {}
            ),
        }
