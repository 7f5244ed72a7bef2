"""A case's verdict, in words: the one story that pytest's outcome, JUnit, the table and the exit status tell.

A case passes when its with-plugin score reaches the threshold. When it does not, the first line names what
failed — the first failing grader with its explanation and the runs it failed in — and the score against the
threshold; the lines after it list every failing grader and run error. A case no run of which could be scored
(the model was never reached) is neither: it is skipped, and the session is partial.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..core.kinds import Arm
from .model import CaseResult, RunResult
from .refused import refusal_explains_failures, refusal_note
from .scoring import passes_threshold, signed

ARM_LABELS = {"with": "with-plugin", "without": "no-plugin"}


@dataclass(frozen=True)
class CaseVerdict:
    outcome: str  # passed | failed | skipped
    headline: str  # one line: what failed first, and the score against the threshold
    details: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join([self.headline, *self.details])


def _runs_text(arm: str, indexes: list[int]) -> str:
    label = ARM_LABELS.get(arm, arm)
    return f"{label} run{'s' if len(indexes) > 1 else ''} {', '.join(map(str, sorted(indexes)))}"


def failing_graders(case: CaseResult, arm: Arm = "with") -> list[tuple[str, str, list[int]]]:
    """(grader, first explanation, run indexes) for each scored grader that failed in some run of `arm`."""
    runs: dict[str, list[int]] = defaultdict(list)
    first: dict[str, str] = {}
    for run in case.runs(arm):
        for grader in run.failing:
            runs[grader.name].append(run.index)
            first.setdefault(grader.name, grader.explanation)
    return [(name, first[name], runs[name]) for name in first]


def one_line(text: str) -> str:
    """A message on one line (a headline is pytest's progress line; an API's message may hold several)."""
    return " ".join(text.split())


def unscored_reason(run: RunResult) -> str:
    """Why a run has no score: its error, else the errors of its graders (none could judge it)."""
    if run.error:
        return run.error
    errored = [f"{g.name}: {g.explanation}" for g in run.graders if g.errored]
    if errored:
        return f"every grader errored ({'; '.join(errored)})"
    return "no grader scored it"


def case_verdict(case: CaseResult, threshold: float) -> CaseVerdict:
    verdict = _case_verdict(case, threshold)
    return CaseVerdict(verdict.outcome, one_line(verdict.headline), verdict.details)


def _case_verdict(case: CaseResult, threshold: float) -> CaseVerdict:
    score = case.aggregates.score
    if score is None:
        errors = sorted({unscored_reason(run) for run in case.runs("with")})
        return CaseVerdict("skipped", f"not scored: {'; '.join(errors) or 'no run of the with-plugin arm'}")
    digits = 2 if f"{score:.2f}" != f"{threshold:.2f}" or score >= threshold else 4  # never "1.00 < 1.00"
    against = f"score {score:.{digits}f} {'≥' if score >= threshold else '<'} threshold {threshold:.{digits}f}"
    if case.two_arm and case.aggregates.delta is not None:
        against += f" (without the plugin {case.aggregates.score_without:.2f}, Δ {signed(case.aggregates.delta)})"
    if passes_threshold(case, threshold):
        return CaseVerdict("passed", against)
    details = []
    for run in case.runs("with"):
        if run.error:
            details.append(f"{_runs_text('with', [run.index])}: {run.error}")
        if run.aborted:
            aborted = run.aborted
            details.append(
                f"{_runs_text('with', [run.index])}: aborted by mock {aborted.get('server')}/"
                f"{aborted.get('tool')}: {aborted.get('reason')}"
            )
    failing = failing_graders(case)
    details += [f"✗ {name} in {_runs_text('with', runs)}: {why}" for name, why, runs in failing]
    refused = refusal_note(case)
    details += [f"⚠ refused: {refused}"] if refused else []
    details += [f"⚠ {warning}" for warning in case.warnings]
    details += [f"hint: {hint}" for hint in case.hints]
    if refused and refusal_explains_failures(case):  # every failing run was refused a tool: that first
        headline = f"{refused} — {against}"
    elif case.warnings:  # the real cause first: what keeps the case from passing as written
        headline = f"{case.warnings[0]} — {against}"
    elif failing:
        name, why, runs = failing[0]
        headline = f"{name}: {why} ({_runs_text('with', runs)}) — {against}"
    elif details:
        headline = f"{details[0]} — {against}"
    else:
        headline = against
    return CaseVerdict("failed", headline, details)
