"""The closed sets of values the stages hand up to the results document, as types mypy checks."""

from __future__ import annotations

from typing import Literal, NewType

# The plugin minus one component (--ablate): `ablate:<component>`.
Ablated = NewType("Ablated", str)
ABLATE_PREFIX = "ablate:"
# The arms of a case: with and without the plugin, `against` another version of it (--against), and an ablation.
Arm = Literal["with", "without", "against"] | Ablated
ARMS: tuple[Arm, ...] = ("with", "without")  # the two every session knows


def _is_ablated(key: str) -> bool:
    """ablate:<component>"""
    return key.startswith(ABLATE_PREFIX) and len(key) > len(ABLATE_PREFIX)


setattr(Ablated, "json_key", _is_ablated)  # noqa: B010 (mypy knows no such attribute)  a document's arm keys are checked against it (results/jsonmap.py)


def is_arm(text: str) -> bool:
    return text in ("with", "without", "against") or _is_ablated(text)


def ablated(component: str) -> Ablated:
    return Ablated(f"{ABLATE_PREFIX}{component}")


def ablated_component(arm: str) -> str | None:
    """`ablate:hooks` → `hooks`; None for any other arm."""
    return arm.removeprefix(ABLATE_PREFIX) if arm.startswith(ABLATE_PREFIX) else None


def loads_plugin(arm: str) -> bool:
    """Whether a run of `arm` has a version of the plugin loaded: every arm but `without`."""
    return arm != "without"


# How a case was written: prompt.md, case.yaml, or both; "python": made by `eval_agent.run(prompt)`; "trigger": a
# query of a trigger set, run as a case (never a case of the document); "": a results document that does not say.
Source = Literal["prose", "case_yaml", "mixed", "python", "trigger", "skill_creator", ""]

# What a plugin offers Claude to pick (load/skills.py), and the two formats of a trigger set (load/triggers.py).
ComponentKind = Literal["skill", "command"]
TriggerFormat = Literal["yaml", "skill-creator"]

# --ablation: one arm, or both (with and without the plugin).
Ablation = Literal["none", "with-without"]

# Why a run has no score. The run stage's: api/auth (the model could not be reached), timeout, max_turns,
# prompt_too_long, refusal (the model declined to go on: the agent's answer, graded), agent (the child reported an error), crash (no result at all), start (could not be started),
# interrupted (the session stopped it), sandbox (a granted shell's OS sandbox did not start). The session's: scaffold (a scaffold script failed), harness (the harness
# itself failed), missing_artefacts (--regrade found no trace), worker_lost (a pytest-xdist worker died),
# tool_refused (--strict-tools: Claude Code refused the agent a tool, so the run measured nothing).
ErrorKind = Literal[
    "api",
    "auth",
    "start",
    "scaffold",
    "timeout",
    "max_turns",
    "agent",
    "crash",
    "prompt_too_long",
    "refusal",
    "interrupted",
    "harness",
    "missing_artefacts",
    "worker_lost",
    "sandbox",
    "tool_refused",
]
