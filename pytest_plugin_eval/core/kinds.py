"""The closed sets of values the stages hand up to the results document, as types mypy checks."""

from __future__ import annotations

from typing import Literal

Arm = Literal["with", "without"]
ARMS: tuple[Arm, ...] = ("with", "without")

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
