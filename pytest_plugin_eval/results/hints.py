"""Diagnostic hints: what a plugin author should look at first, read from a case's numbers.

- Δ flat while the plugin-fired indicator fails: Claude is not picking the skill — its `description` in
  SKILL.md is what makes Claude choose it. Unless the runs did call Skill: then the indicator's `input_match`
  misses the calls made (a typo in the name or its namespace), and the hint names them (read from the kept traces).
- The indicator failing in every with-plugin run whatever Δ is: a gain came from elsewhere (MCP tools, a
  command), or the skill is not picked; the session says it as a notice too.
- Δ negative although the skill fired: suspect the judge first (a stronger --judge-model, a tighter rubric).
- Every run failing with the same API error: infrastructure, not a regression.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..run.transcript import Transcript
from .model import CaseResult
from .scoring import signed, trend


def _indicator_results(case: CaseResult) -> list[bool]:
    """Whether the plugin-fired indicator (a with-only `tool_used: Skill` grader) passed, per with-arm run."""
    names = {g.name for g in case.graders if g.type == "tool_used" and g.config.get("tool") == "Skill"}
    return [
        grader.passed
        for run in case.runs("with")
        for grader in run.graders
        if grader.name in names and grader.with_only
    ]


def skills_called(case: CaseResult) -> list[list[str]]:
    """The skills each with-plugin run called (its Skill calls, as its kept trace has them); a run without a kept
    trace counts as calling none."""
    out = []
    for run in case.runs("with"):
        transcript = Transcript.from_file(Path(run.trace_path)) if run.trace_path else Transcript("")
        out.append([str(c.input.get("skill") or "?") for c in transcript.tool_calls if c.name == "Skill"])
    return out


def missed_calls(case: CaseResult) -> str | None:
    """When the indicator failed in every run although every run called Skill: the skills they called."""
    called = skills_called(case)
    if not called or not all(called):
        return None
    return ", ".join(dict.fromkeys(name for names in called for name in names))


def case_hints(case: CaseResult) -> list[str]:
    direction = trend(case.aggregates.delta)
    fired = _indicator_results(case)
    hints = []
    missed = missed_calls(case) if fired and not any(fired) else None
    if missed is not None:
        patterns = sorted(
            {
                str(g.config.get("input_match"))
                for g in case.graders
                if g.type == "tool_used" and g.config.get("tool") == "Skill" and g.config.get("input_match")
            }
        )
        hints.append(
            f"the plugin-fired indicator failed in every with-plugin run, yet every one of them called Skill "
            f"({missed}): its input_match {' / '.join(repr(p) for p in patterns) or '(none)'} matches none of "
            f"these calls — fix the pattern (a typo in the skill's name or its namespace?), not the description"
        )
    elif direction == "flat" and fired and not any(fired):
        hints.append(
            "Δ is flat and the skill never fired: Claude is not picking it — sharpen the skill's "
            "`description` in SKILL.md (say when to use it, in the words users use)"
        )
    elif fired and not any(fired):
        delta = case.aggregates.delta
        hints.append(
            "the skill never fired in the with-plugin runs"
            + (f", yet Δ is {signed(delta)}" if isinstance(delta, int | float) else "")
            + ": the plugin's effect came from elsewhere (its MCP tools, a command, a hook) — or Claude does not "
            "pick the skill: sharpen its `description` in SKILL.md (say when to use it, in the words users use)"
        )
    elif direction == "regressed" and fired and all(fired):
        judged = any(g.type in ("llm", "baseline") for g in case.graders)
        hints.append(
            "Δ is negative although the skill fired every time: "
            + (
                "suspect the judge first — rerun with a stronger --judge-model, tighten the rubric"
                if judged
                else "the plugin's instructions make the answer worse on these graders"
            )
        )
    return hints


def never_fired(case: CaseResult) -> bool:
    """The case's plugin-fired indicator failed in every with-plugin run that reported it."""
    fired = _indicator_results(case)
    return bool(fired) and not any(fired)


def suite_hints(cases: Sequence[CaseResult]) -> list[str]:
    runs = [run for case in cases for run in case.runs()]
    errors = {run.error for run in runs}
    if runs and len(errors) == 1 and all(run.infrastructure_error for run in runs):
        return [
            f"every run ended on the same API error ({next(iter(errors))}): this is infrastructure — "
            f"credentials, rate limits or the endpoint — not a regression of the plugin"
        ]
    return []
