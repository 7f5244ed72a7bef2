"""What a comparison of two sessions is made of (analysis.compare computes it): a number then and now with the
interval of its change and a verdict, each case's and grader's changes, the warnings that the sessions were not
measured alike, and the compare document it writes (`Comparison.to_json`)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .jsonmap import Document, computed, key, present
from .model import SCHEMA_VERSION, SuiteResult
from .trigger_compare import TriggerSetChange

BETTER, WORSE, NO_CHANGE = "better", "worse", "no_detectable_change"
COMPARED, ADDED, REMOVED = "compared", "added", "removed"


def _pair(data: Any) -> tuple[float, float] | None:
    return None if data is None else (float(data[0]), float(data[1]))


def _old_new(runs: tuple[int, int]) -> dict[str, int]:
    return {"old": runs[0], "new": runs[1]}


def _read_old_new(data: Any) -> tuple[int, int]:
    return (int(data["old"]), int(data["new"]))


@dataclass(frozen=True)
class Change(Document):
    """A number in the old and the new session, and — where it can be estimated — the interval of new − old and
    what it says: better (the interval is above 0), worse (below 0) or no detectable change (it holds 0)."""

    old: float | None = field(metadata=key("old"))
    new: float | None = field(metadata=key("new"))
    _change: None = field(default=None, init=False, compare=False, metadata=computed("change", lambda c: c.change))
    interval: tuple[float, float] | None = field(default=None, metadata=key("interval", when="tested", read=_pair))
    _verdict: None = field(
        default=None, init=False, compare=False, metadata=computed("verdict", lambda c: c.verdict, when="tested")
    )
    # an interval was sought (None then: too few scored runs to tell): the document has the key interval
    tested: bool = field(default=False, metadata=present("interval"))

    @property
    def change(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    @property
    def verdict(self) -> str | None:
        if self.interval is None:
            return None
        low, high = self.interval
        return BETTER if low > 0 else WORSE if high < 0 else NO_CHANGE


HIGHER, LOWER = "higher", "lower"


@dataclass(frozen=True)
class FigureChange(Document):
    """An efficiency figure (turns, tokens, cost…) of the with-plugin runs in the old and the new session, its
    change and the change's interval (`level`: the level the interval really has, lower when the runs are few).
    Its verdict is higher / lower / no detectable change: spending more is not "worse" by itself, so it fails
    nothing (a `budget` grader does)."""

    old: float | None = field(metadata=key("old"))
    new: float | None = field(metadata=key("new"))
    change: float | None = field(metadata=key("change"))
    interval: tuple[float, float] | None = field(default=None, metadata=key("interval", read=_pair))
    level: float | None = field(default=None, metadata=key("level"))
    _verdict: None = field(default=None, init=False, compare=False, metadata=computed("verdict", lambda c: c.verdict))

    @property
    def verdict(self) -> str | None:
        if self.interval is None:
            return None
        low, high = self.interval
        return HIGHER if low > 0 else LOWER if high < 0 else NO_CHANGE


@dataclass(frozen=True)
class Tally(Document):
    """How many with-arm runs a grader passed, of the runs it judged."""

    passed: int = field(metadata=key("passed"))
    runs: int = field(metadata=key("runs"))
    _rate: None = field(default=None, init=False, compare=False, metadata=computed("passRate", lambda t: t.pass_rate))

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.runs if self.runs else None


@dataclass(frozen=True)
class GraderChange(Document):
    """One grader of a case in the with arm: its pass rate before and after (None where the session did not have
    it, or it never judged), and whether its definition changed in between."""

    name: str = field(metadata=key("name"))
    _status: None = field(default=None, init=False, compare=False, metadata=computed("status", lambda g: g.status))
    old: Tally | None = field(metadata=key("old"))
    new: Tally | None = field(metadata=key("new"))
    _change: None = field(default=None, init=False, compare=False, metadata=computed("change", lambda g: g.change))
    _changed: None = field(default=None, init=False, compare=False, metadata=computed("changed", lambda g: g.changed))
    definition_changed: bool = field(default=False, metadata=key("definitionChanged"))

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


@dataclass(frozen=True)
class CompareWarning(Document):
    """Why the two sessions may not measure the same thing. `case`: the case it is about (None: the session)."""

    # plugin | model | scripted | judgeModel | claudeVersion | ablation | runsPerArm | arms | prompt | graders
    # | limits | partial | shard
    kind: str = field(metadata=key("kind"))
    _: KW_ONLY
    case: str | None = field(default=None, metadata=key("case"))
    message: str = field(kw_only=False, metadata=key("message"))  # positional, after kind


@dataclass(frozen=True)
class CaseComparison(Document):
    name: str = field(metadata=key("name"))
    dir: str = field(metadata=key("dir"))
    # compared | added (only in the new session) | removed (only in the old one)
    status: str = field(metadata=key("status"))
    with_score: Change = field(metadata=key("with"))  # WITH: the mean with-plugin score
    # Δ; None unless both sessions ran the case with both arms (or, added/removed: one did)
    delta: Change | None = field(metadata=key("delta"))
    # scored with-arm runs: old, new
    runs: tuple[int, int] = field(metadata=key("runs", write=_old_new, read=_read_old_new))
    graders: list[GraderChange] = field(default_factory=list, metadata=key("graders"))
    cost_usd: Change = field(default_factory=lambda: Change(None, None), metadata=key("costUsd"))
    duration_seconds: Change = field(default_factory=lambda: Change(None, None), metadata=key("durationSeconds"))
    # figure → its with-plugin median then and now (analysis/efficiency_change.py); empty: neither measured it
    efficiency: dict[str, FigureChange] = field(default_factory=dict, metadata=key("efficiency", omit="falsy"))

    @property
    def changed_graders(self) -> list[GraderChange]:
        return [g for g in self.graders if g.changed]

    @property
    def worse(self) -> bool:
        return WORSE in (self.with_score.verdict, self.delta.verdict if self.delta else None)


@dataclass(frozen=True)
class SessionRef(Document):
    """Which session a side of the comparison is."""

    source: str = field(metadata=key("source"))  # the folder or file it was read from
    started_at: str = field(metadata=key("startedAt"))
    claude_version: str = field(metadata=key("claudeVersion"))
    plugins: list[str] = field(metadata=key("plugins"))
    _partial: None = field(
        default=None, init=False, compare=False, metadata=computed("partial", lambda s: s.partial_reason is not None)
    )
    partial_reason: str | None = field(metadata=key("partialReason"))  # None: complete

    @classmethod
    def of(cls, document: SuiteResult, source: str) -> SessionRef:
        return cls(
            source=source,
            started_at=document.started_at,
            claude_version=document.claude_version,
            plugins=[p.name for p in document.suite.plugins],
            partial_reason=(document.partial_reason or "unknown") if document.partial else None,
        )


def _counts(comparison: Comparison, of: str) -> dict[str, int]:
    raw = comparison.verdicts(of)
    return {"better": raw[BETTER], "worse": raw[WORSE], "noDetectableChange": raw[NO_CHANGE], "unknown": raw["unknown"]}


def _summary(comparison: Comparison) -> dict[str, Any]:
    return {
        "compared": len(comparison.compared),
        "added": [c.name for c in comparison.added],
        "removed": [c.name for c in comparison.removed],
        "with": _counts(comparison, "with"),
        "delta": _counts(comparison, "delta"),
        "worse": [c.name for c in comparison.worse],
        "gradersChanged": sum(len(c.changed_graders) for c in comparison.compared),
    }


@dataclass(frozen=True, kw_only=True)
class Comparison(Document):
    """The compare document (`plugin-eval compare --json`); its summary, verdicts and warnings' verdict are worked
    out from the cases, written and never read."""

    _schema: None = field(
        default=None, init=False, compare=False, metadata=computed("schemaVersion", lambda c: SCHEMA_VERSION)
    )
    level: float = field(metadata=key("level"))
    old: SessionRef = field(metadata=key("old"))
    new: SessionRef = field(metadata=key("new"))
    _comparable: None = field(
        default=None, init=False, compare=False, metadata=computed("comparable", lambda c: c.comparable)
    )
    plugin_changes: list[str] = field(default_factory=list, metadata=key("pluginChanges"))  # what changed in the
    # plugin (results.plugin_changes)
    # the sessions share without-plugin runs (--reuse-baseline)
    baseline_note: str | None = field(default=None, metadata=key("baselineNote", omit="falsy"))
    # one session ran --against / --ablate arms the other did not: its totals count them
    arms_note: str | None = field(default=None, metadata=key("armsNote", omit="falsy"))
    warnings: list[CompareWarning] = field(metadata=key("warnings"))
    _summary: None = field(default=None, init=False, compare=False, metadata=computed("summary", _summary))
    mean_with: Change = field(metadata=key("meanWith"))  # the mean over cases of WITH, over the cases both have
    mean_delta: Change = field(metadata=key("meanDelta"))  # the same for Δ
    cost_usd: Change = field(metadata=key("costUsd"))
    duration_seconds: Change = field(metadata=key("durationSeconds"))
    # figure → the median compared case's with-plugin median then and now, and the median of the cases' changes
    efficiency: dict[str, FigureChange] = field(default_factory=dict, metadata=key("efficiency", omit="falsy"))
    cases: list[CaseComparison] = field(metadata=key("cases"))  # the new session's order, then the removed cases
    # the trigger sets of either session
    triggers: list[TriggerSetChange] = field(default_factory=list, metadata=key("triggers", omit="falsy"))
    _worse_queries: None = field(
        default=None,
        init=False,
        compare=False,
        metadata=computed("triggersWorse", lambda c: c.worse_queries, when="triggers"),
    )
    trigger_note: str | None = None  # why a change of description cannot show (both sessions scripted); not written

    @property
    def worse_queries(self) -> list[str]:
        """Trigger queries that moved against their label (`skill/query`), which `--fail-on-worse` fails on too."""
        return [f"{t.name}/{q.id}" for t in self.triggers for q in t.worse]

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
