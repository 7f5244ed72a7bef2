"""`skill-asks-unanswered`: a case of a skill that asks the user — its SKILL.md calls AskUserQuestion, or tells the
agent to ask, interview, or wait for the user's answer — with nothing to answer it (no `turns:`, `answers:` or
`user:`). In a headless run the question ends the run or is refused, and the with-plugin arm scores as if the plugin
hurt. The skills looked at are those the case's `tool_used: Skill` graders name (their `input_match`), else every
skill of the plugin."""

from __future__ import annotations

import re

from ..grade import ecmaregex
from ..grade.skill_patterns import skill_call_input
from ..grade.types.tools import ToolUsedConfig
from ..load.case import Case
from ..results.findings import Finding
from .shipped import Shipped

KIND = "skill-asks-unanswered"
ASKS = re.compile(
    r"\bAskUserQuestion\b|\bask (?:the user|me|them)\b|\binterview (?:the user|me|them)\b|\bclarifying questions?\b"
    r"|\bwait for (?:the user'?s?|their) (?:answer|reply|confirmation|response)\b|\bconfirm with the user\b",
    re.IGNORECASE,
)


def _skill_graders(case: Case) -> list[ToolUsedConfig]:
    """The case's tool_used graders on Skill."""
    return [g.config for g in case.graders if isinstance(g.config, ToolUsedConfig) and g.config.call.tool == "Skill"]


def asking_findings(case: Case, plugin: Shipped | None) -> list[Finding]:
    if plugin is None or case.conversation.active or case.trigger is not None:
        return []
    skills = [c for c in plugin.components if c.kind == "skill"]
    graders = _skill_graders(case)
    if any(g.max == 0 and not g.call.input_match for g in graders):
        return []  # a should-not-fire case: no skill is meant to run, so none is there to ask
    patterns = [g.call.input_match for g in graders if g.call.input_match and g.max != 0]
    if patterns:
        # tested as the grader tests them: on the Skill call's input (`{"skill":"plugin:name"}`), as ECMAScript
        named = [c for c in skills if any(ecmaregex.search(p, "", skill_call_input(c)) for p in patterns)]
        skills = named or skills
    texts = {t.path: t.text for t in plugin.texts}
    out = []
    for skill in skills:
        found = ASKS.search(texts.get(skill.path, ""))
        if found is None:
            continue
        out.append(
            Finding(
                case.name,
                kind=KIND,
                message=f'skill {skill.qualified_name} asks the user ("{found.group(0)}" in its SKILL.md) and the '
                "case has no turns:, answers: or user: to answer: its question ends the run or is refused",
                fix="give the case the user's replies (turns:), answers to its questions (answers:), or a simulated "
                "user (user:) — see docs/conversations.md",
            )
        )
    return out
