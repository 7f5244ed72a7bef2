"""Results documents built in a line, for the unit tests of the stages that read them (scoring, compare, history,
merge, the renderers). Every case is aggregated as the session aggregates it; every document carries its suite's
aggregates, so what a test builds is what a session would have written."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_plugin_eval.core.kinds import Arm
from pytest_plugin_eval.results.model import (
    CaseResult,
    GraderInfo,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.scoring import aggregate, suite_aggregates

GREETING = GraderInfo("greeting", "regex", 1, {"pattern": "^Hello"})
SAYS_HI = GraderInfo("says-hi", "regex", 1, {"pattern": "hi"})
STARTED_AT = "2026-11-30T10:00:00.000Z"


def scored_runs(arm: str, scores: Sequence[float]) -> list[RunResult]:
    """A run per score, numbered from 1; a score of 1 passes; a with-plugin run costs a cent, a run without the
    plugin nothing."""
    cost = 0.01 if arm == "with" else 0.0
    return [RunResult(arm, i, score=float(s), passed=s == 1, cost_usd=cost) for i, s in enumerate(scores, 1)]


def case_result(
    name: str,
    with_runs: Sequence[RunResult] | Sequence[float],
    without_runs: Sequence[RunResult] | Sequence[float] | None = None,
    graders: Sequence[GraderInfo] = (GREETING,),
    **fields,
) -> CaseResult:
    """A case with these runs per arm (runs, or scores to make runs of), aggregated. Without `without_runs`, the
    case has one arm."""
    arms = {"with": as_runs("with", with_runs)}
    if without_runs is not None:
        arms["without"] = as_runs("without", without_runs)
    fields.setdefault("prompt", "Say hello.")
    fields.setdefault("runs_per_case", 3)
    fields.setdefault("timeout_seconds", 300)
    fields.setdefault("max_turns", 10)
    fields.setdefault("runs_per_arm", len(arms["with"]))
    return aggregate(
        CaseResult(name=name, dir=f"evals/{name}", source="prose", graders=list(graders), arms=arms, **fields)
    )


def case_of(
    *runs: RunResult,
    name: str = "a",
    dir: str | None = None,
    graders: Sequence[GraderInfo] = (SAYS_HI,),
    hints: Sequence[str] = (),
    **fields,
) -> CaseResult:
    """A case `name` (in evals/<name> unless `dir` says otherwise) of exactly these runs, each in its own arm,
    aggregated; `fields` sets CaseResult's other fields."""
    fields.setdefault("prompt", "Say hi.")
    fields.setdefault("runs_per_case", 3)
    fields.setdefault("timeout_seconds", 300)
    fields.setdefault("max_turns", 10)
    fields.setdefault("runs_per_arm", len(runs))
    arms: dict[Arm, list[RunResult]] = {}
    for run in runs:
        arms.setdefault(run.arm, []).append(run)
    case = CaseResult(name=name, dir=dir or f"evals/{name}", source="prose", graders=list(graders), **fields)
    case.arms = arms
    case = aggregate(case)
    case.hints = list(hints)
    return case


def as_runs(arm: str, runs: Sequence[RunResult] | Sequence[float]) -> list[RunResult]:
    made = [run for run in runs if isinstance(run, RunResult)]
    return made if len(made) == len(runs) else scored_runs(arm, [float(s) for s in runs])


def suite_result(
    *cases: CaseResult,
    started_at: str = STARTED_AT,
    plugin: PluginInfo | None = None,
    partial: str | None = None,
    duration_seconds: float = 10,
    notices: Sequence[str] = (),
    load_errors: Sequence[LoadErrorEntry] = (),
    **suite,
) -> SuiteResult:
    """A session's document over `cases`: plugin `greeter` at /p unless `plugin` says otherwise, partial when
    `partial` gives the reason; `suite` sets SuiteInfo's fields (ablation: with-without when a case has two arms,
    else none)."""
    suite.setdefault("ablation", "with-without" if any(c.two_arm for c in cases) else "none")
    suite.setdefault("judge_model_resolved", "claude-haiku-4-5")
    info = SuiteInfo(root="/p", plugins=[plugin or PluginInfo("greeter", "/p")], **suite)
    return SuiteResult(
        claude_version="2.1.327",
        started_at=started_at,
        duration_seconds=duration_seconds,
        suite=info,
        cases=list(cases),
        aggregates=suite_aggregates(cases, info.threshold),
        cost_usd=sum(c.cost_usd for c in cases),
        partial=partial is not None,
        partial_reason=partial,
        notices=list(notices),
        load_errors=list(load_errors),
    )
