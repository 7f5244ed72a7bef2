"""Two sessions of one suite side by side: "did my change help?"

`compare(old, new)` takes two results documents and returns a `Comparison`: per case the change in the with-plugin
score (WITH) and the change in Δ, each with a confidence interval and a verdict (better · worse · no detectable
change); the cases added and removed; each grader's pass rate in the with arm before and after; the change in
cost and duration; and warnings when the two sessions are not measured alike (another model or judge, other runs
per arm or ablation, a case whose prompt or graders changed, a partial session). `Comparison.to_json()` is the
compare document (`plugin-eval compare --json`); the renderers (report/comparison.py, report/markdown.py) only
lay it out. `read_document` reads a results folder or results JSON file, with one-line errors a user can act on.

Pure functions of the model and `stats`: no I/O except `read_document`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import stats
from ..core.errors import UsageError
from ..core.kinds import Arm
from .model import SCHEMA_VERSION, CaseResult, GraderInfo, SuiteResult
from .plugin_changes import description_changed, plugin_changes
from .store import RESULTS_FILE
from .trigger_compare import TriggerSetChange, compare_triggers, scripted_warning

LEVEL = 0.95
BETTER, WORSE, NO_CHANGE = "better", "worse", "no_detectable_change"
COMPARED, ADDED, REMOVED = "compared", "added", "removed"


class CompareError(UsageError, ValueError):
    """A path that is not a readable results document; the message is one line naming the file and the fix."""


# ---- reading a session ---------------------------------------------------------------------------------------


def read_document(source: str | Path) -> SuiteResult:
    """The results document of a results folder (its aggregate-result.json) or of a results JSON file (`--json`).
    Raises CompareError with what is wrong and what to name instead."""
    path = Path(source)
    hint = f"name a results folder (evals/results/<timestamp>/, holding {RESULTS_FILE}) or a results JSON file"
    if not path.exists():
        raise CompareError(f"{source}: no such file or folder — {hint}")
    file = path / RESULTS_FILE if path.is_dir() else path
    if not file.is_file():
        raise CompareError(f"{source}: no {RESULTS_FILE} in this folder — {hint}")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CompareError(f"{file}: cannot be read ({getattr(e, 'strerror', None) or e}) — {hint}") from None
    except RecursionError:
        raise CompareError(f"{file}: nested too deeply to be a results document — {hint}") from None
    except ValueError as e:
        raise CompareError(
            f"{file}: not valid JSON ({e}) — truncated or damaged? {hint[0].upper()}{hint[1:]}"
        ) from None
    problem = _document_problem(data)
    if problem is not None:
        raise CompareError(f"{file}: {problem}")
    try:
        return SuiteResult.from_json(data)
    except Exception as e:  # a shape the checks above did not foresee
        raise CompareError(f"{file}: not a results document ({type(e).__name__}: {e}) — {hint}") from None


def _document_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "not a results document (the JSON is not an object) — name the aggregate-result.json of a session"
    if "old" in data and "new" in data and "cases" in data:
        return "a comparison document (plugin-eval compare --json), not a results document — name a session's results"
    if "suites" in data and "cases" not in data:
        return (
            "holds several suites (the --json document of a session over several eval dirs) — name the results "
            "folder of one suite"
        )
    if data.get("schemaVersion", SCHEMA_VERSION) != SCHEMA_VERSION:
        return (
            f"schemaVersion {data.get('schemaVersion')!r}: this plugin-eval reads version {SCHEMA_VERSION} — update it"
        )
    if not isinstance(data.get("cases"), list) or not isinstance(data.get("suite", {}), dict):
        return "not a results document (no cases list) — name the aggregate-result.json of a session"
    for i, case in enumerate(data["cases"]):
        if not isinstance(case, dict) or not isinstance(case.get("name"), str):
            return f"cases[{i}]: not a case (an object with a name) — is this a results document?"
        if not isinstance(case.get("arms", {}), dict):
            return f"cases[{i}].arms: must be an object — is this a results document?"
    return None


# ---- the comparison ------------------------------------------------------------------------------------------


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
            "cases": [c.to_json() for c in self.cases],
            **(
                {"triggers": [t.to_json() for t in self.triggers], "triggersWorse": self.worse_queries}
                if self.triggers
                else {}
            ),
        }


# ---- computing it --------------------------------------------------------------------------------------------


def _scores(case: CaseResult, arm: Arm) -> list[float]:
    return [r.score for r in case.runs(arm) if r.score is not None]


def _delta(case: CaseResult) -> float | None:
    with_mean, without_mean = stats.mean(_scores(case, "with")), stats.mean(_scores(case, "without"))
    return None if with_mean is None or without_mean is None else with_mean - without_mean


def change_of_delta(
    old: tuple[float, float, float] | None, new: tuple[float, float, float] | None
) -> tuple[float, float] | None:
    """The interval of Δnew − Δold from each Δ's estimate and interval, (Δ, low, high), by MOVER.

    Δ is itself a difference of two bounded means, and its interval (stats.delta_interval) is asymmetric near ±1
    and honest at small n thanks to its pseudo-runs. A plain normal interval for the difference of differences
    would throw that away. MOVER — "method of variance estimates recovery" (Newcombe 1998; Zou & Donner 2008) —
    keeps it: each side of the new interval is built from the matching half-widths of the two Δ intervals,
        low  = (Δnew − Δold) − √((Δnew − lowNew)² + (highOld − Δold)²)
        high = (Δnew − Δold) + √((highNew − Δnew)² + (Δold − lowOld)²),
    clipped to [-2, 2]. The two sessions are independent, so no covariance term. None without both intervals."""
    if old is None or new is None:
        return None
    (d_old, low_old, high_old), (d_new, low_new, high_new) = old, new
    centre = d_new - d_old
    down = math.hypot(max(d_new - low_new, 0.0), max(high_old - d_old, 0.0))
    up = math.hypot(max(high_new - d_new, 0.0), max(d_old - low_old, 0.0))
    return (max(-2.0, centre - down), min(2.0, centre + up))


def _delta_estimate(case: CaseResult, level: float) -> tuple[float, float, float] | None:
    """(Δ, low, high) of a two-arm case, the interval recomputed from its runs at `level` (a document's own deltaCI
    may be at another level, or from an older method)."""
    d = _delta(case)
    interval = stats.delta_interval(_scores(case, "with"), _scores(case, "without"), level)
    if d is None or interval is None:
        return None
    return (d, interval[0], interval[1])


def _tallies(case: CaseResult) -> dict[str, Tally]:
    """Each grader's passes among the with-arm runs it judged (an errored or skipped grader did not judge)."""
    counts: dict[str, list[int]] = {}
    for run in case.runs("with"):
        for grader in run.graders:
            tally = counts.setdefault(grader.name, [0, 0])
            if grader.errored or grader.skipped:
                continue
            tally[0] += grader.passed
            tally[1] += 1
    for info in case.graders:  # a defined grader no run reached still counts as there
        counts.setdefault(info.name, [0, 0])
    return {name: Tally(p, n) for name, (p, n) in counts.items()}


def _definition(grader: GraderInfo) -> tuple:
    return (grader.type, float(grader.weight), json.dumps(grader.config, sort_keys=True, default=str), grader.markdown)


def grader_changes(old: CaseResult, new: CaseResult) -> list[GraderChange]:
    before, after = _tallies(old), _tallies(new)
    defs_old, defs_new = {g.name: g for g in old.graders}, {g.name: g for g in new.graders}
    names = list(dict.fromkeys([*after, *before]))
    out = []
    for name in names:
        a, b = defs_old.get(name), defs_new.get(name)
        out.append(
            GraderChange(
                name,
                before.get(name),
                after.get(name),
                definition_changed=a is not None and b is not None and _definition(a) != _definition(b),
            )
        )
    return out


def _cost(case: CaseResult | None) -> float | None:
    return None if case is None else case.cost_usd


def _duration(case: CaseResult | None) -> float | None:
    return None if case is None else sum(r.duration_seconds for r in case.runs())


def compare_case(old: CaseResult | None, new: CaseResult | None, level: float = LEVEL) -> CaseComparison:
    some = new or old
    assert some is not None
    status = COMPARED if old is not None and new is not None else ADDED if old is None else REMOVED
    with_old = stats.mean(_scores(old, "with")) if old is not None else None
    with_new = stats.mean(_scores(new, "with")) if new is not None else None
    interval = None
    if old is not None and new is not None:
        interval = stats.delta_interval(_scores(new, "with"), _scores(old, "with"), level)
    delta = None
    if status == COMPARED and old is not None and new is not None and old.two_arm and new.two_arm:
        interval_of_delta = change_of_delta(_delta_estimate(old, level), _delta_estimate(new, level))
        delta = Change(_delta(old), _delta(new), interval_of_delta, tested=True)
    elif status != COMPARED and some.two_arm:
        delta = Change(_delta(old) if old else None, _delta(new) if new else None)
    return CaseComparison(
        name=some.name,
        dir=some.dir,
        status=status,
        with_score=Change(with_old, with_new, interval, tested=status == COMPARED),
        delta=delta,
        runs=(len(_scores(old, "with")) if old else 0, len(_scores(new, "with")) if new else 0),
        graders=grader_changes(old, new) if old is not None and new is not None else [],
        cost_usd=Change(_cost(old), _cost(new)),
        duration_seconds=Change(_duration(old), _duration(new)),
    )


def _models(document: SuiteResult, case: CaseResult) -> str:
    if document.suite.scripted:
        return "the scripted endpoint"
    return document.suite.model_override or case.effective_model or case.model or "Claude Code's default"


def _listed(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _case_warnings(old: CaseResult, new: CaseResult) -> list[CompareWarning]:
    """What changed in how a case is measured: its prompt, its graders, its limits, one arm or two."""
    out = []
    name = new.name
    if old.prompt != new.prompt:
        out.append(CompareWarning("prompt", f"{name}: the prompt changed", name))
    defs_old, defs_new = {g.name: g for g in old.graders}, {g.name: g for g in new.graders}
    changes = [f"{g} added" for g in defs_new if g not in defs_old]
    changes += [f"{g} removed" for g in defs_old if g not in defs_new]
    changes += [
        f"{g} changed" for g in defs_new if g in defs_old and _definition(defs_old[g]) != _definition(defs_new[g])
    ]
    if changes:
        out.append(CompareWarning("graders", f"{name}: graders differ ({', '.join(changes)})", name))
    limits = [
        f"{label} {a} → {b}"
        for label, a, b in (
            ("max_turns", old.max_turns, new.max_turns),
            ("timeout_seconds", old.timeout_seconds, new.timeout_seconds),
        )
        if a != b
    ]
    if limits:
        out.append(CompareWarning("limits", f"{name}: {', '.join(limits)}", name))
    if old.two_arm != new.two_arm:
        arms = lambda c: "both arms" if c.two_arm else "the with arm only"  # noqa: E731
        out.append(
            CompareWarning("arms", f"{name}: ran {arms(old)} before, {arms(new)} now — its Δ cannot be compared", name)
        )
    return out


def _grouped(kind: str, what: str, pairs: dict[tuple[str, str], list[str]]) -> list[CompareWarning]:
    """One warning per distinct (old → new) value, naming the cases it applies to. `what`: "the agent's model
    differs", say."""
    return [
        CompareWarning(kind, f"{what}: {a} → {b} ({_listed(cases)})", cases[0] if len(cases) == 1 else None)
        for (a, b), cases in pairs.items()
    ]


def warnings_of(old: SuiteResult, new: SuiteResult, pairs: list[tuple[CaseResult, CaseResult]]) -> list[CompareWarning]:
    out: list[CompareWarning] = []
    plugins_old, plugins_new = [p.name for p in old.suite.plugins], [p.name for p in new.suite.plugins]
    if plugins_old != plugins_new:
        out.append(
            CompareWarning(
                "plugin",
                f"the sessions evaluate different plugins: {', '.join(plugins_old) or 'none'} → "
                f"{', '.join(plugins_new) or 'none'}",
            )
        )
    if old.suite.scripted != new.suite.scripted:
        side = "the old" if old.suite.scripted else "the new"
        out.append(CompareWarning("scripted", f"{side} session was answered by the scripted endpoint, not a model"))
    else:
        models: dict[tuple[str, str], list[str]] = {}
        for a, b in pairs:
            if _models(old, a) != _models(new, b):
                models.setdefault((_models(old, a), _models(new, b)), []).append(b.name)
        out += _grouped("model", "the agent's model differs", models)
    if (
        old.suite.scripted
        and new.suite.scripted
        and description_changed(plugin_changes(old.suite.plugins, new.suite.plugins))
    ):
        out.append(
            CompareWarning(
                "scripted",
                "both sessions were answered by the scripted endpoint, which follows scripted.yaml whatever a "
                "skill's description says: they cannot show the effect of the description change — compare "
                "two sessions run with a model",
            )
        )
    judge_old, judge_new = old.suite.judge_model_resolved, new.suite.judge_model_resolved
    if judge_old and judge_new and judge_old != judge_new:
        out.append(CompareWarning("judgeModel", f"the judge model differs: {judge_old} → {judge_new}"))
    versions = (old.claude_version, new.claude_version)
    if "unknown" not in versions and versions[0] != versions[1]:
        out.append(CompareWarning("claudeVersion", f"Claude Code differs: {versions[0]} → {versions[1]}"))
    if old.suite.ablation != new.suite.ablation:
        out.append(CompareWarning("ablation", f"the ablation differs: {old.suite.ablation} → {new.suite.ablation}"))
    runs: dict[tuple[str, str], list[str]] = {}
    for a, b in pairs:
        adaptive = getattr(a, "auto_runs", None) or getattr(b, "auto_runs", None)  # --runs auto chose them
        if a.runs_per_arm != b.runs_per_arm and not adaptive:
            runs.setdefault((str(a.runs_per_arm), str(b.runs_per_arm)), []).append(b.name)
    out += _grouped("runsPerArm", "runs per arm differ", runs)
    for a, b in pairs:
        out += _case_warnings(a, b)
    for side, document in (("old", old), ("new", new)):
        if document.partial:
            reason = (document.partial_reason or "unknown reason").replace("_", " ")
            out.append(
                CompareWarning(
                    "partial",
                    f"the {side} session is partial ({reason}): some runs are missing from its scores",
                )
            )
        if document.suite.shard:
            out.append(
                CompareWarning(
                    "shard",
                    f"the {side} session ran one shard ({document.suite.shard}) of the suite: the cases of the other "
                    f"shards read as {'removed' if side == 'new' else 'added'} — merge the shards first",
                )
            )
    return out


def compare(
    old: SuiteResult, new: SuiteResult, old_source: str = "old", new_source: str = "new", level: float = LEVEL
) -> Comparison:
    """The comparison of `new` against `old`; cases are matched by their folder (`dir`)."""
    olds = {case.dir: case for case in old.cases}
    news = {case.dir: case for case in new.cases}
    cases = [compare_case(olds.get(d), case, level) for d, case in news.items()]
    cases += [compare_case(case, None, level) for d, case in olds.items() if d not in news]
    pairs = [(olds[d], news[d]) for d in news if d in olds]
    both_with = [(c.with_score.old, c.with_score.new) for c in cases if c.status == COMPARED]
    both_delta = [(c.delta.old, c.delta.new) for c in cases if c.status == COMPARED and c.delta]
    triggers = compare_triggers(old.triggers, new.triggers, level)
    return Comparison(
        old=SessionRef.of(old, old_source),
        new=SessionRef.of(new, new_source),
        level=level,
        cases=cases,
        warnings=warnings_of(old, new, pairs),
        cost_usd=Change(old.cost_usd, new.cost_usd),
        duration_seconds=Change(old.duration_seconds, new.duration_seconds),
        mean_with=Change(*_means(both_with)),
        mean_delta=Change(*_means(both_delta)),
        triggers=triggers,
        trigger_note=scripted_warning(old.suite.scripted, new.suite.scripted, triggers),
        plugin_changes=plugin_changes(old.suite.plugins, new.suite.plugins),
    )


def _means(pairs: list[tuple[float | None, float | None]]) -> tuple[float | None, float | None]:
    kept = [(a, b) for a, b in pairs if a is not None and b is not None]
    return stats.mean([a for a, _ in kept if a is not None]), stats.mean([b for _, b in kept if b is not None])
