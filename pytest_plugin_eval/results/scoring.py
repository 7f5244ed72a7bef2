"""The scoring rules: a run's score from its graders, a case's aggregates from its runs, the suite's from its
cases, what counts as flat, why a session is partial, and its exit status. Pure functions of the model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import stats
from . import arms, budget, efficiency
from .model import (
    SESSION_FAILING_KINDS,
    CaseAggregates,
    CaseResult,
    GraderResult,
    PartialReason,
    RunResult,
    SuiteAggregates,
    SuiteResult,
)

# |Δ| below this is "flat": neither improved nor regressed (the table, the page, the hints and compare agree).
FLAT_DELTA = 0.05


def run_score(graders: Sequence[GraderResult]) -> float | None:
    """Σ weight of passing scored graders / Σ weight of scored graders; None when none is scored."""
    total = sum(g.weight for g in graders if g.scored)
    if total == 0:
        return None
    return sum(g.weight for g in graders if g.scored and g.passed) / total


def judge_cost(graders: Iterable[GraderResult]) -> float:
    return sum(g.cost_usd for g in graders)


def _scored(runs: Sequence[RunResult]) -> list[RunResult]:
    return [r for r in runs if r.score is not None]


def case_aggregates(with_runs: Sequence[RunResult], without_runs: Sequence[RunResult] = ()) -> CaseAggregates:
    """score/passRate, pass@k and pass^k over the with arm; scoreWithout/passRateWithout/Δ when the without arm
    ran; the spread of each arm and a confidence interval for Δ."""
    scored = _scored(with_runs)
    scores = [r.score for r in scored if r.score is not None]
    n, c = len(scored), sum(1 for r in scored if r.passed)
    out = CaseAggregates(
        score=stats.mean(scores),
        pass_rate=stats.mean([1.0 if r.passed else 0.0 for r in scored]),
        stdev_with=stats.stdev(scores),
        # k = 1 … n over the scored runs (none when there are none); a run passes when it scores 1.
        pass_at_k={k: stats.pass_at_k(n, c, k) for k in range(1, n + 1)},
        pass_hat_k={k: stats.pass_hat_k(n, c, k) for k in range(1, n + 1)},
    )
    if without_runs:
        base = _scored(without_runs)
        base_scores = [r.score for r in base if r.score is not None]
        out.two_arm = True
        out.score_without = stats.mean(base_scores)
        out.pass_rate_without = stats.mean([1.0 if r.passed else 0.0 for r in base])
        if out.score is not None and out.score_without is not None:
            out.delta = out.score - out.score_without
        out.stdev_without = stats.stdev(base_scores)
        out.delta_ci = stats.delta_interval(scores, base_scores)
        # Significant when the interval excludes 0; unknown (None) without an interval.
        out.delta_significant = None if out.delta_ci is None else (out.delta_ci[0] > 0 or out.delta_ci[1] < 0)
    return out


def aggregate(case: CaseResult) -> CaseResult:
    """The case with its aggregates computed from its runs ("with" always present, runs in index order)."""
    case.arms = {arm: sorted(runs, key=lambda r: r.index) for arm, runs in case.arms.items() if runs or arm == "with"}
    case.arms.setdefault("with", [])
    case.arms = {arm: case.arms[arm] for arm in sorted(case.arms, key=arms.arm_order)}
    # A budget grader's verdict can depend on the other arm's runs: settled on them all, then those runs rescored.
    for run in budget.settle(case):
        run.score = run_score(run.graders)
        run.passed = run.score == 1.0
    case.aggregates = arms.with_arms(case, case_aggregates(case.arms["with"], case.arms.get("without", [])))
    case.aggregates.efficiency = efficiency.case_efficiency(
        {arm: [f for run in runs if (f := run.figures) is not None] for arm, runs in case.arms.items()}
    )
    return case


def passes_threshold(case: CaseResult, threshold: float) -> bool:
    score = case.aggregates.score
    return score is not None and score >= threshold


def suite_aggregates(cases: Sequence[CaseResult], threshold: float) -> SuiteAggregates:
    scores = [c.aggregates.score for c in cases if c.aggregates.score is not None]
    rates = [c.aggregates.pass_rate for c in cases if c.aggregates.pass_rate is not None]
    deltas = [c.aggregates.delta for c in cases if c.aggregates.delta is not None]
    two_arm = any(c.two_arm for c in cases)
    return SuiteAggregates(
        cases_total=len(cases),
        cases_passed=sum(1 for c in cases if passes_threshold(c, threshold)),
        overall_score=stats.mean(scores) or 0,
        overall_pass_rate=stats.mean(rates) or 0,
        two_arm=two_arm,
        mean_delta=stats.mean(deltas) if two_arm and deltas else None,
        efficiency=efficiency.suite_efficiency([c.aggregates.efficiency for c in cases]),
        delta_against=arms.suite_marginal(cases, "against"),
        ablations=arms.ranking(cases),
    )


def trend(delta: float | None) -> str | None:
    """improved | flat | regressed (None without a Δ)."""
    if delta is None:
        return None
    if abs(delta) < FLAT_DELTA:
        return "flat"
    return "improved" if delta > 0 else "regressed"


def signed(delta: float) -> str:
    """A Δ as every output writes it: with its sign, and 0.00 when it rounds to zero (no +0.00 or -0.00)."""
    return "0.00" if abs(delta) < 0.005 else f"{delta:+.2f}"


def partial_reason(runs: Iterable[RunResult], interrupted: str | None, runs_skipped: bool) -> PartialReason | None:
    """Why a session's results are incomplete, or None."""
    runs = list(runs)
    if interrupted:
        return "interrupted"
    if runs_skipped or any(r.skipped_paid_graders for r in runs):
        return "cost_ceiling"
    kinds = {r.error_kind for r in runs}
    if "worker_lost" in kinds:
        return "worker_lost"
    if "auth" in kinds:
        return "auth_failed"
    if "api" in kinds:
        return "api_error"
    if "missing_artefacts" in kinds:
        return "missing_artefacts"
    if "sandbox" in kinds:
        return "sandbox_failed"
    if any(g.errored for r in runs for g in r.graders):
        return "judge_error"
    if "tool_refused" in kinds:
        return "tool_refused"
    return None


def document_failed(document: SuiteResult) -> bool:
    """What fails a session's exit status in its document: a case that did not load, no case at all, a case below
    its threshold, a run that could not start, with --fail-on-worse a case worse than --against's version. A case none of whose with-plugin runs was selected (`-k no-plugin`)
    has no verdict, as pytest reports it (skipped): it fails nothing."""
    threshold = document.suite.threshold
    return (
        bool(document.load_errors)
        or not document.cases
        or any(case.runs("with") and not passes_threshold(case, threshold) for case in document.cases)
        or any(run.error_kind in SESSION_FAILING_KINDS for case in document.cases for run in case.runs())
        or (document.suite.fail_on_worse and bool(arms.worse_cases(document)))
    )


def document_exit_status(document: SuiteResult) -> int:
    """The exit status the session that wrote `document` had (an interruption reads as Ctrl-C)."""
    interrupted = "SIGINT" if document.partial_reason == "interrupted" else None
    return exit_status(interrupted=interrupted, partial=document.partial, failed=document_failed(document))


# Exit statuses of an eval session.
EXIT_OK, EXIT_FAILED, EXIT_PARTIAL, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


def exit_status(*, interrupted: str | None, partial: bool, failed: bool) -> int:
    """interrupted ('SIGINT'/'SIGTERM') > partial > failed (below threshold, load errors, no cases…) > ok."""
    if interrupted == "SIGTERM":
        return EXIT_TERMINATED
    if interrupted:
        return EXIT_INTERRUPTED
    if partial:
        return EXIT_PARTIAL
    return EXIT_FAILED if failed else EXIT_OK
