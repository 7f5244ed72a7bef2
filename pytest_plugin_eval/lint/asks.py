"""`skill-asks-unanswered`: a case of a skill that asks the user — its SKILL.md calls AskUserQuestion, or tells the
agent to ask, interview, or wait for the user's answer — with nothing to answer it (no `turns:`, `answers:` or
`user:`). In a headless run the question ends the run or is refused, and the with-plugin arm scores as if the plugin
hurt. The skills looked at are those the case's `tool_used: Skill` graders name (their `input_match`), else every
skill of the plugin."""

from __future__ import annotations

import re

from ..grade import ecmaregex
from ..grade.skill_patterns import skill_call_input
from ..load.case import Case
from ..results.findings import Finding
from .shipped import Shipped

KIND = "skill-asks-unanswered"
ASKS = re.compile(
    r"\bAskUserQuestion\b|\bask (?:the user|me|them)\b|\binterview (?:the user|me|them)\b|\bclarifying questions?\b"
    r"|\bwait for (?:the user'?s?|their) (?:answer|reply|confirmation|response)\b|\bconfirm with the user\b",
    re.IGNORECASE,
)


def _named(case: Case) -> list[str]:
    """The input_match patterns of the case's tool_used graders on Skill."""
    calls = [getattr(spec.config, "call", None) for spec in case.graders if spec.type == "tool_used"]
    return [call.input_match for call in calls if call is not None and call.tool == "Skill" and call.input_match]


def asking_findings(case: Case, plugin: Shipped | None) -> list[Finding]:
    if plugin is None or case.conversation.active or case.trigger is not None:
        return []
    skills = [c for c in plugin.components if c.kind == "skill"]
    patterns = _named(case)
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
