"""Settling a case's `budget` graders once it has all its runs: each run's verdict from the figures it recorded and,
for limits relative to the without-plugin arm, that arm's medians (grade/types/budget.py says why it waits).

Settled every time the case is aggregated, from the record alone, so a document read back, merged from shards or
regraded settles the same way; a limit that cannot be checked (a case that ran with the plugin only) leaves the
grader reported and out of the score, saying why.
"""

from __future__ import annotations

from ..core.problems import SpecError
from ..grade.types.budget import PENDING, BudgetConfig, BudgetGrader, decide
from .efficiency import arm_medians
from .model import CaseResult, RunResult


def configs(case: CaseResult) -> dict[str, BudgetConfig]:
    """The case's budget graders by name, as its document records them (a record that no longer parses is left
    as it was graded)."""
    out = {}
    for info in case.graders:
        if info.type == BudgetGrader.name:
            try:
                out[info.name] = BudgetGrader().parse(info.config, "")
            except SpecError:
                continue
    return out


def settle(case: CaseResult) -> list[RunResult]:
    """Decide the case's budget graders on every run; returns the graded runs whose verdicts were settled (their
    score is to be computed again)."""
    budgets = configs(case)
    if not budgets:
        return []
    measured = [f for run in case.runs("without") if (f := run.figures) is not None]
    without = arm_medians(measured)
    settled = []
    for run in case.runs():
        mine = [g for g in run.graders if g.name in budgets]
        for grader in mine:
            decision = decide(budgets[grader.name], run.figures, without, len(measured))
            grader.passed, grader.explanation = decision.passed, decision.explanation
            grader.errored = False
            grader.extra.pop(PENDING, None)
            grader.scored = decision.decided and not grader.with_only
        if mine and run.score is not None:
            settled.append(run)
    return settled
