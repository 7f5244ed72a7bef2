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
from pathlib import Path

from .. import stats
from ..core.errors import UsageError
from ..core.kinds import Arm
from ..results.comparison import (
    ADDED,
    COMPARED,
    REMOVED,
    CaseComparison,
    Change,
    CompareWarning,
    Comparison,
    GraderChange,
    SessionRef,
    Tally,
)
from ..results.matrix import matrix_folder_hint
from ..results.model import CaseResult, GraderInfo, RunResult, SuiteResult
from ..results.plugin_changes import description_changed, plugin_changes
from ..results.store import RESULTS_FILE, InvalidDocument, parse_document
from ..results.trigger_compare import compare_triggers, scripted_warning
from . import efficiency_change
from .baseline import shared_baseline

LEVEL = 0.95


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
        raise CompareError(f"{source}: no {RESULTS_FILE} in this folder — {matrix_folder_hint(path) or hint}")
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
    try:
        return parse_document(data, file)
    except InvalidDocument as e:
        raise CompareError(f"{e} — {hint}") from None


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


# A case's cost and duration count these arms only: a session with --against or --ablate ran more runs of the same
# case, and comparing it with one that did not would read those runs as the case costing more.
COSTED_ARMS: tuple[Arm, ...] = ("with", "without")


def _costed_runs(case: CaseResult) -> list[RunResult]:
    return [run for arm in COSTED_ARMS for run in case.runs(arm)]


def _cost(case: CaseResult | None) -> float | None:
    return None if case is None else sum(r.cost_usd for r in _costed_runs(case))


def _duration(case: CaseResult | None) -> float | None:
    return None if case is None else sum(r.duration_seconds for r in _costed_runs(case))


def _other_arms(document: SuiteResult) -> list[str]:
    """The arms a session ran beyond with and without (--against, --ablate), in their first case's order."""
    return list(dict.fromkeys(arm for case in document.cases for arm in case.arms if arm not in COSTED_ARMS))


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
        efficiency=efficiency_change.case_change(old, new, level) if old is not None and new is not None else {},
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
        out.append(CompareWarning("prompt", f"{name}: the prompt changed", case=name))
    defs_old, defs_new = {g.name: g for g in old.graders}, {g.name: g for g in new.graders}
    changes = [f"{g} added" for g in defs_new if g not in defs_old]
    changes += [f"{g} removed" for g in defs_old if g not in defs_new]
    changes += [
        f"{g} changed" for g in defs_new if g in defs_old and _definition(defs_old[g]) != _definition(defs_new[g])
    ]
    if changes:
        out.append(CompareWarning("graders", f"{name}: graders differ ({', '.join(changes)})", case=name))
    limits = [
        f"{label} {a} → {b}"
        for label, a, b in (
            ("max_turns", old.max_turns, new.max_turns),
            ("timeout_seconds", old.timeout_seconds, new.timeout_seconds),
        )
        if a != b
    ]
    if limits:
        out.append(CompareWarning("limits", f"{name}: {', '.join(limits)}", case=name))
    if old.two_arm != new.two_arm:
        arms = lambda c: "both arms" if c.two_arm else "the with arm only"  # noqa: E731
        out.append(
            CompareWarning(
                "arms", f"{name}: ran {arms(old)} before, {arms(new)} now — its Δ cannot be compared", case=name
            )
        )
    return out


def _grouped(kind: str, what: str, pairs: dict[tuple[str, str], list[str]]) -> list[CompareWarning]:
    """One warning per distinct (old → new) value, naming the cases it applies to. `what`: "the agent's model
    differs", say."""
    return [
        CompareWarning(kind, f"{what}: {a} → {b} ({_listed(cases)})", case=cases[0] if len(cases) == 1 else None)
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
        pairs  # a case's scripted.yaml never reads a description (trigger sets: their own note, trigger_compare)
        and old.suite.scripted
        and new.suite.scripted
        and description_changed(plugin_changes(old.suite.plugins, new.suite.plugins))
    ):
        out.append(
            CompareWarning(
                "scripted",
                "both sessions were answered by the scripted endpoint, which follows the cases' scripted.yaml "
                "whatever a skill's description says: their cases cannot show the effect of the description change "
                "— compare two sessions run with a model",
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
        baseline_note=baseline_note(old, new),
        arms_note=arms_note(old, new),
        plugin_changes=plugin_changes(old.suite.plugins, new.suite.plugins),
        efficiency=efficiency_change.suite_change([c.efficiency for c in cases if c.status == COMPARED], level),
    )


def _means(pairs: list[tuple[float | None, float | None]]) -> tuple[float | None, float | None]:
    kept = [(a, b) for a, b in pairs if a is not None and b is not None]
    return stats.mean([a for a, _ in kept if a is not None]), stats.mean([b for _, b in kept if b is not None])


def arms_note(old: SuiteResult, new: SuiteResult) -> str | None:
    """That one session ran arms the other did not (--against, --ablate): the WITH scores compare alike, the
    sessions' totals do not."""
    if _other_arms(old) == _other_arms(new):
        return None
    ran = lambda d: ", ".join(_other_arms(d)) or "none"  # noqa: E731
    return (
        f"the sessions ran other arms besides with and without ({ran(old)} → {ran(new)}): the sessions' cost and "
        "duration include their runs; each case's cost and duration count its with and without runs only"
    )


def baseline_note(old: SuiteResult, new: SuiteResult) -> str | None:
    """That the sessions share without-plugin runs (--reuse-baseline): not a difference of set-up, but it says
    where a change of W/OUT can come from."""
    shared = shared_baseline(old, new)
    if not shared:
        return None
    total = sum(len(case.runs("without")) for case in new.cases)
    return (
        f"the sessions share {shared} of the new session's {total} without-plugin run(s) (--reuse-baseline: made "
        f"once, graded in each): a change of W/OUT in those is the graders', not the agent's"
    )
