"""Grading one run: which of a case's graders run in which arm, and each one's verdict.

Two-arm rules (the reference tool's): a grader that can only pass with the plugin loaded — `tool_used: Skill`,
`arm: with-only`, a `mock_calls` target in a case whose mocks all shadow plugin servers — is a *plugin-fired
indicator*: reported in the with arm, left out of the score, and not evaluated in the without arm. `arm: both`
forces a grader to count in both arms. If every grader of a case would be an indicator, they all count
(otherwise there would be nothing to score).

A `mock_calls` grader is an indicator only when no stand-in is served in the without arm: a standalone mock (a
mock folder named after no server the plugin declares) is served there too, and a case that mocks nothing (or a
session with `--mocks off`) has no stand-in in either arm — in those cases it counts in both arms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..load.graders import GraderSpec
from .base import GradeContext, Verdict


def reads_mock_calls(spec: GraderSpec) -> bool:
    reads = getattr(spec.kind, "reads_mock_calls", None)  # a hook's type need not subclass GraderType
    return bool(reads(spec.config)) if reads is not None else False


def is_indicator(spec: GraderSpec, mock_calls_with_only: bool = True) -> bool:
    """`mock_calls_with_only`: the case's mock_calls graders can only pass with the plugin (its mocks all shadow
    plugin servers, and stand-ins are served)."""
    if spec.arm == "with-only":
        return True
    if spec.arm == "both":
        return False
    if reads_mock_calls(spec):
        return mock_calls_with_only
    return bool(spec.kind.with_only_by_default(spec.config))


def indicators(graders: Sequence[GraderSpec], two_arm: bool, mock_calls_with_only: bool = True) -> frozenset[str]:
    """Names of the graders reported but not scored in this case (none in single-arm runs)."""
    if not two_arm:
        return frozenset()
    names = frozenset(g.name for g in graders if is_indicator(g, mock_calls_with_only))
    return frozenset() if len(names) == len(graders) else names


def graders_for(
    graders: Sequence[GraderSpec], arm: str, two_arm: bool, mock_calls_with_only: bool = True
) -> list[tuple[GraderSpec, bool]]:
    """(grader, is_indicator) pairs evaluated in `arm`: indicators are skipped in the without arm."""
    excluded = indicators(graders, two_arm, mock_calls_with_only)
    return [(g, g.name in excluded) for g in graders if not (arm == "without" and g.name in excluded)]


@dataclass(frozen=True)
class Graded:
    """A grader's verdict on a run, with whether it was an indicator (reported, not scored)."""

    spec: GraderSpec
    verdict: Verdict
    indicator: bool

    @property
    def scored(self) -> bool:
        return not self.indicator and not self.verdict.errored and not self.verdict.skipped


def grade(
    graders: Sequence[tuple[GraderSpec, bool]],
    output: Any,
    judge: Any = None,
    judge_allowed: Callable[[], bool] = lambda: True,
) -> list[Graded]:
    """Evaluate each grader; a grader that raises is a failed grader with the error as its explanation. Paid
    graders are skipped once `judge_allowed()` says the cost ceiling is reached."""
    out = []
    for spec, indicator in graders:
        if spec.kind.paid and not judge_allowed():
            verdict = Verdict(False, "skipped: cost ceiling", skipped=True)
        else:
            try:
                verdict = spec.kind.grade(spec.config, output, GradeContext(spec.name, judge))
            except Exception as e:  # a grader bug must not lose the run
                verdict = Verdict(False, f"grader error: {type(e).__name__}: {e}")
        out.append(Graded(spec, verdict, indicator))
    return out
