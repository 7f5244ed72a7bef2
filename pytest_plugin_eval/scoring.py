"""Scores: which graders count in which arm, a run's score, case and suite aggregates, the exit status.

Two-arm rules (the reference tool's): a grader that can only pass with the plugin loaded — `tool_used: Skill`,
`arm: with-only`, a `mock_calls` target — is a *plugin-fired indicator*: reported in the with arm, left out
of the score, and not evaluated in the without arm. `arm: both` forces a grader to count in both arms. If every
grader of a case would be an indicator, they all count (otherwise there would be nothing to score).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .graders import GraderSpec


def is_indicator(spec: GraderSpec) -> bool:
    if spec.arm == "with-only":
        return True
    if spec.arm == "both":
        return False
    return spec.kind.with_only_by_default(spec.config)


def indicators(graders: tuple[GraderSpec, ...], two_arm: bool) -> frozenset[str]:
    """Names of the graders reported but not scored in this case (none in single-arm runs)."""
    if not two_arm:
        return frozenset()
    names = frozenset(g.name for g in graders if is_indicator(g))
    return frozenset() if len(names) == len(graders) else names


def graders_for(graders: tuple[GraderSpec, ...], arm: str, two_arm: bool) -> list[tuple[GraderSpec, bool]]:
    """(grader, is_indicator) pairs evaluated in `arm`: indicators are skipped in the without arm."""
    excluded = indicators(graders, two_arm)
    return [(g, g.name in excluded) for g in graders if not (arm == "without" and g.name in excluded)]


@dataclass(frozen=True)
class Scored:
    weight: float
    passed: bool
    counts: bool  # scored: not an indicator, not errored, not skipped


def run_score(outcomes: list[Scored]) -> float | None:
    """Σ weight of passing counted graders / Σ weight of counted graders; None when none counts."""
    total = sum(o.weight for o in outcomes if o.counts)
    if total == 0:
        return None
    return sum(o.weight for o in outcomes if o.counts and o.passed) / total


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class ArmStats:
    score: float | None
    pass_rate: float | None
    n: int                      # runs that have a score
    stdev: float | None         # sample standard deviation of run scores


def arm_stats(runs: list[dict]) -> ArmStats:
    scores = [r["score"] for r in runs if r.get("score") is not None]
    passes = [1.0 if r.get("passed") else 0.0 for r in runs if r.get("score") is not None]
    m, sd = mean(scores), None
    if len(scores) > 1:
        sd = math.sqrt(sum((s - m) ** 2 for s in scores) / (len(scores) - 1))
    return ArmStats(m, mean(passes), len(scores), sd)


# Two-sided 95% quantiles of Student's t by degrees of freedom (larger df use the next smaller entry).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def t95(df: float) -> float:
    if df >= 1000:
        return 1.960
    return T95[max(k for k in T95 if k <= max(df, 1))]


def delta_interval(a: ArmStats, b: ArmStats) -> tuple[float, float] | None:
    """95% confidence interval of score(with) − score(without): Welch's unpaired t-interval on run scores
    (the arms run in separate sessions). None with fewer than two scored runs in either arm."""
    if a.n < 2 or b.n < 2 or a.score is None or b.score is None:
        return None
    va, vb = (a.stdev or 0.0) ** 2 / a.n, (b.stdev or 0.0) ** 2 / b.n
    delta = a.score - b.score
    if va + vb == 0:
        return (delta, delta)
    df = (va + vb) ** 2 / (va ** 2 / (a.n - 1) + vb ** 2 / (b.n - 1))
    half = t95(math.floor(df)) * math.sqrt(va + vb)
    return (delta - half, delta + half)


def case_aggregates(arms: dict[str, list[dict]]) -> dict:
    """score/passRate over the with arm; scoreWithout/passRateWithout/delta when the without arm ran; the
    spread of each arm and a confidence interval for Δ."""
    with_ = arm_stats(arms.get("with", []))
    out = {"score": with_.score, "passRate": with_.pass_rate}
    if arms.get("without"):
        without = arm_stats(arms["without"])
        out["scoreWithout"] = without.score
        out["passRateWithout"] = without.pass_rate
        out["delta"] = (with_.score - without.score) if with_.score is not None and without.score is not None else None
    out["stdevWith"] = with_.stdev
    if arms.get("without"):
        out["stdevWithout"] = without.stdev
        interval = delta_interval(with_, without)
        out["deltaCI"] = list(interval) if interval else None
        # Significant when the interval excludes 0; unknown (None) without an interval.
        out["deltaSignificant"] = None if interval is None else (interval[0] > 0 or interval[1] < 0)
    return out


def suite_aggregates(cases: list[dict], threshold: float) -> dict:
    scores = [c["aggregates"]["score"] for c in cases if c["aggregates"]["score"] is not None]
    rates = [c["aggregates"]["passRate"] for c in cases if c["aggregates"]["passRate"] is not None]
    out = {
        "casesTotal": len(cases),
        "casesPassed": sum(1 for c in cases if passes_threshold(c, threshold)),
        "overallScore": mean(scores) if scores else 0,
        "overallPassRate": mean(rates) if rates else 0,
    }
    deltas = [c["aggregates"]["delta"] for c in cases if c["aggregates"].get("delta") is not None]
    if any("delta" in c["aggregates"] for c in cases):
        out["meanDelta"] = mean(deltas) if deltas else None
    return out


def passes_threshold(case: dict, threshold: float) -> bool:
    score = case["aggregates"]["score"]
    return score is not None and score >= threshold


# Exit statuses of an eval session (DESIGN decision 6).
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
