"""From the grade stage's verdicts to the results model."""

from __future__ import annotations

from collections.abc import Sequence

from ..grade.engine import Graded
from .model import GraderResult

# Verdict details with a typed field of their own in GraderResult.
_TYPED_DETAILS = {"judgeModel": "judge_model", "judgeVotes": "judge_votes", "evidence": "evidence"}


def grader_result(graded: Graded) -> GraderResult:
    verdict, spec = graded.verdict, graded.spec
    typed = {field: verdict.details[key] for key, field in _TYPED_DETAILS.items() if key in verdict.details}
    extra = {k: v for k, v in verdict.details.items() if k not in _TYPED_DETAILS}
    return GraderResult(
        name=spec.name,
        passed=verdict.passed,
        weight=spec.weight,
        explanation=verdict.explanation,
        with_only=graded.indicator,
        scored=graded.scored,
        cost_usd=verdict.cost_usd,
        errored=verdict.errored,
        skipped=verdict.skipped,
        extra=extra,
        **typed,
    )


def grader_results(graded: Sequence[Graded]) -> list[GraderResult]:
    return [grader_result(g) for g in graded]
