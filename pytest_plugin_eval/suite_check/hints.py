"""Which judged expectations look mechanical (a word the output contains, a file it writes, a tool or skill it
calls): said by `plugin-eval check` of imported cases, so that an author can replace the judge by a regex or tool
grader."""

from __future__ import annotations

import re

from ..load.case import Case
from ..load.skill_evals import expectation_of

_QUOTED = r"""["'`“‘]([^"'`”’]{1,80})["'`”’]"""
_CONTAINS = re.compile(
    r"\b(?:includes?|contains?|mentions?|says?|uses?|outputs?|prints?|shows?|lists?|names?|has)\b"
    r"(?:\s+(?:the|a|an))?(?:\s+(?:word|phrase|string|text|term|keyword|heading|line))?\s+" + _QUOTED,
    re.IGNORECASE,
)
_WORD = re.compile(r"\bthe\s+(?:word|term|keyword)\s+([\w-]{2,40})\b", re.IGNORECASE)
_STARTS = re.compile(r"\b(?:starts?|begins?)\s+with\s+" + _QUOTED, re.IGNORECASE)
_ENDS = re.compile(r"\bends?\s+with\s+" + _QUOTED, re.IGNORECASE)
_FILE = re.compile(
    r"(?:\b(?:creates?|writes?|produces?|saves?|generates?|outputs?)\b.*?|\bfile\s+(?:named|called)?\s*)"
    r"[`'\"]?([\w./-]+\.[A-Za-z0-9]{1,5})[`'\"]?",
    re.IGNORECASE,
)
_SKILL = re.compile(r"\bskill\s+[`'\"]?([\w:.-]+)[`'\"]?\s+(?:is|was|gets)\s+(?:invoked|used|called|triggered)", re.I)
_TOOL = re.compile(r"\b(?:calls?|uses?|runs?)\s+the\s+[`'\"]?(\w+)[`'\"]?\s+tool\b", re.IGNORECASE)


def mechanical_hint(expectation: str) -> str | None:
    """The grader that checks `expectation` for free when it is mechanical ("includes the word X" → regex), or
    None when it needs a judge."""
    if m := _STARTS.search(expectation):
        return f"a regex grader: pattern: '^{re.escape(m.group(1))}', flags: m"
    if m := _ENDS.search(expectation):
        return f"a regex grader: pattern: '{re.escape(m.group(1))}\\s*$'"
    if m := _CONTAINS.search(expectation):
        return f"a regex grader: pattern: '{re.escape(m.group(1))}'"
    if m := _WORD.search(expectation):
        return f"a regex grader: pattern: '\\b{re.escape(m.group(1))}\\b'"
    if m := _SKILL.search(expectation):
        return f"a tool_used grader: tool: Skill, input_match: {{skill: '{m.group(1)}'}}"
    if m := _TOOL.search(expectation):
        return f"a tool_used grader: tool: {m.group(1)}"
    if m := _FILE.search(expectation):
        return f"a file_exists grader: path: {m.group(1)}"
    return None


def mechanical_hints(case: Case) -> list[str]:
    """For `check`: the llm graders of a case whose expectation a cheaper, deterministic grader could check."""
    out = []
    for grader in case.graders:
        if grader.type != "llm":
            continue
        text = " ".join((expectation_of(grader.body or "") or grader.body or "").split())  # a notice is one line
        hint = mechanical_hint(text) if len(text) <= 200 else None
        if hint:
            out.append(
                f'case "{case.name}": grader {grader.name} ("{text}") looks mechanical — {hint} checks it '
                f"without a judge"
            )
    return out
