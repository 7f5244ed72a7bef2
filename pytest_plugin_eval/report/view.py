"""What the terminal table and the HTML page both show, defined once: labels, the NOTES text, number, money
and time formats."""
from __future__ import annotations

from ..results.model import CaseResult

PARTIAL_LABELS = {
    "cost_ceiling": "cost ceiling hit", "auth_failed": "credentials rejected", "api_error": "API errors",
    "interrupted": "interrupted", "judge_error": "judge unavailable",
}


def partial_label(reason: str | None) -> str:
    return PARTIAL_LABELS.get(reason or "", reason or "unknown reason")


def signed(delta: float) -> str:
    """A Δ with its sign; one that rounds to zero is 0.00."""
    return "0.00" if abs(delta) < 0.005 else f"{delta:+.2f}"


def aborted_text(aborted: dict) -> str:
    return f"aborted by mock {aborted.get('server')}/{aborted.get('tool')}: {aborted.get('reason')}"


def notes_for(case: CaseResult) -> str:
    """Why a case is not perfect: a with-arm run's error or mock abort, then a diagnostic hint, then the first
    failing grader of the with arm (indicators included), else why it ran single-arm."""
    runs = case.runs("with")
    for run in runs:
        if run.error:
            return run.error
        if run.aborted:
            return aborted_text(run.aborted)
    if case.hints:
        return case.hints[0]
    for run in runs:
        for grader in run.graders:
            if not grader.passed:
                return f"{grader.name}: {grader.explanation}"
    if case.single_arm_reason:
        return f"single-arm: {case.single_arm_reason}"
    return ""
