"""The arms beyond with and without: `against` (another version of the plugin, --against) and `ablate:<component>`
(the plugin minus one component, --ablate). Each is read against the with-plugin arm of the same session, run n
against run n — the same prompt, made in the same round — as Δ = WITH − that arm with a paired interval
(stats.paired_interval): per case, and for the suite over every case's pairs. Pure functions of the model."""

from __future__ import annotations

from collections.abc import Sequence

from .. import stats
from ..core.kinds import ABLATE_PREFIX, Arm, ablated_component
from .model import CaseAggregates, CaseResult, Marginal, RunResult, SuiteResult

# The order a case's arms are written in: the two every session knows, then another version, then ablations.
ARM_ORDER = ("with", "without", "against")


def arm_order(arm: str) -> tuple[int, str]:
    return (ARM_ORDER.index(arm), "") if arm in ARM_ORDER else (len(ARM_ORDER), arm)


def scored_pairs(with_runs: Sequence[RunResult], other: Sequence[RunResult]) -> list[tuple[float, float]]:
    """(with, other) scores of the runs of one index both arms scored."""
    theirs = {run.index: run.score for run in other if run.score is not None}
    return [(run.score, theirs[run.index]) for run in with_runs if run.score is not None and run.index in theirs]


def marginal(pairs: Sequence[tuple[float, float]], other_scores: Sequence[float]) -> Marginal:
    delta = stats.mean([a - b for a, b in pairs])
    return Marginal(stats.mean(other_scores), delta, delta_ci=stats.paired_interval(pairs), pairs=len(pairs))


def case_marginal(case: CaseResult, arm: Arm) -> Marginal:
    other = case.runs(arm)
    return marginal(scored_pairs(case.runs("with"), other), [r.score for r in other if r.score is not None])


def with_arms(case: CaseResult, aggregates: CaseAggregates) -> CaseAggregates:
    """The case's aggregates with its against and ablation arms read against its with arm."""
    if case.runs("against"):
        aggregates.delta_against = case_marginal(case, "against")
    aggregates.ablations = {
        component: case_marginal(case, arm)
        for arm in case.arms
        if (component := ablated_component(arm)) is not None and case.runs(arm)
    }
    return aggregates


def suite_marginal(cases: Sequence[CaseResult], arm: Arm) -> Marginal | None:
    """Over every case that ran `arm`: the mean of the cases' Δ, and the paired interval over all their pairs."""
    ran = [case for case in cases if case.runs(arm)]
    if not ran:
        return None
    pairs = [pair for case in ran for pair in scored_pairs(case.runs("with"), case.runs(arm))]
    each = [case_marginal(case, arm) for case in ran]
    deltas = [m.delta for m in each if m.delta is not None]
    scores = [m.score for m in each if m.score is not None]
    return Marginal(
        stats.mean(scores),
        stats.mean(deltas),
        delta_ci=stats.paired_interval(pairs),
        pairs=len(pairs),
        cases=len(ran),
    )


def ranking(cases: Sequence[CaseResult]) -> list[Marginal]:
    """One per ablated component, the one whose removal cost the most score first (unmeasured last)."""
    arms = sorted({arm for case in cases for arm in case.arms if arm.startswith(ABLATE_PREFIX)})
    out = []
    for arm in arms:
        found = suite_marginal(cases, arm)
        if found is not None:
            found.component = ablated_component(arm)
            out.append(found)
    return sorted(out, key=lambda m: (m.delta is None, -(m.delta or 0.0), m.component or ""))


def worse_cases(document: SuiteResult) -> list[str]:
    """The cases whose WITH is worse than --against's version: ΔAGAINST's interval lies below 0."""
    return [c.name for c in document.cases if c.aggregates.delta_against and c.aggregates.delta_against.worse]
