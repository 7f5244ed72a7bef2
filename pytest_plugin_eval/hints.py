"""Diagnostic hints: what a plugin author should look at first, read from a case's numbers.

- Δ near zero while the plugin-fired indicator fails: Claude is not picking the skill — its `description` in
  SKILL.md is what makes Claude choose it.
- Δ negative although the skill fired: suspect the judge first (a stronger --judge-model, a tighter rubric).
- Every run failing with the same API error: infrastructure, not a regression.
"""
from __future__ import annotations

FLAT = 0.05


def _indicator_results(case: dict) -> list[bool]:
    """Whether the plugin-fired indicator (a with-only `tool_used: Skill` grader) passed, per with-arm run."""
    names = {g["name"] for g in case.get("graders", []) if g["type"] == "tool_used" and g["config"].get("tool") == "Skill"}
    out = []
    for run in case["arms"].get("with", []):
        for grader in run.get("graders", []):
            if grader["name"] in names and grader.get("withOnly"):
                out.append(grader["passed"])
    return out


def case_hints(case: dict) -> list[str]:
    delta = case["aggregates"].get("delta")
    fired = _indicator_results(case)
    hints = []
    if delta is not None and abs(delta) < FLAT and fired and not any(fired):
        hints.append("Δ is flat and the skill never fired: Claude is not picking it — sharpen the skill's "
                     "`description` in SKILL.md (say when to use it, in the words users use)")
    elif delta is not None and delta < -FLAT and fired and all(fired):
        judged = any(g["type"] in ("llm", "baseline") for g in case.get("graders", []))
        hints.append("Δ is negative although the skill fired every time: "
                     + ("suspect the judge first — rerun with a stronger --judge-model, tighten the rubric"
                        if judged else "the plugin's instructions make the answer worse on these graders"))
    return hints


def suite_hints(cases: list[dict]) -> list[str]:
    runs = [run for case in cases for arm in case["arms"].values() for run in arm]
    errors = {run.get("error") for run in runs}
    if runs and len(errors) == 1 and all(run.get("errorKind") in ("api", "auth") for run in runs):
        return [f"every run ended on the same API error ({next(iter(errors))}): this is infrastructure — "
                f"credentials, rate limits or the endpoint — not a regression of the plugin"]
    return []
