"""Regex graders that cannot tell the arms apart as written. How each is decided:

- `passes-on-shipped-text`: a `contains` (or `count:N`) pattern over the `trace` or a file the agent writes
  that matches a text file the plugin ships (skills, commands, agents; JavaScript semantics, the grader's
  flags). Reading the skill — or one Grep of the plugin — puts that text in the run, so the grader passes for
  free in the with arm.
- `fails-on-taught-text`: a `not_contains` (or `count:0`) pattern that matches what a skill ships: the answer
  that follows the skill — or names the anti-pattern to warn against it — fails.
- `unanchored-number`: a pattern that opens or closes on a literal digit with nothing bounding it (no `^`, `$`,
  `\\b` or lookaround on that side): `0 critical` also matches inside `10 critical`, `findings: 3` inside
  `findings: 30`. A digit class (`\\d+`) stands for any number, so it is not flagged.
- `always-passes` / `never-passes`: a pattern that matches the empty string matches every text, so a
  `contains` grader always passes and a `not_contains` one never does; a `tool_used` grader with `min: 0` and
  no `max` passes whatever the agent does.
"""

from __future__ import annotations

import re

from ..grade import ecmaregex
from ..load.case import Case
from ..load.graders import GraderSpec
from ..results.findings import Finding
from .shipped import Shipped

# The first / last character of a pattern is a literal digit (opening groups and closing ones aside; not an escape
# such as \1, not the end of a {2} bound). A digit class (\d, [0-9]) stands for any number and is left alone.
OPENS_ON_DIGIT = re.compile(r"^(?:\((?:\?:)?)*\d")
CLOSES_ON_DIGIT = re.compile(r"(?<![\\{,\d])\d\)*$|(?<![\\{,])\d{2,}\)*$")


def _negated(match: str) -> bool:
    return match in ("not_contains", "count:0")


def _where(shipped: Shipped, path) -> str:
    for c in shipped.components:
        if path == c.path:
            return f"{c.qualified_name}'s {path.name}"
    return path.name


def _shipped_hit(spec: GraderSpec, shipped: Shipped) -> str | None:
    """The shipped file the grader's pattern matches, if any."""
    for text in shipped.texts:
        try:
            if ecmaregex.search(spec.config.pattern, spec.config.flags, text.text):
                return _where(shipped, text.path)
        except ecmaregex.RegexAborted:
            continue
    return None


def _leak_findings(case: Case, spec: GraderSpec, shipped: Shipped) -> list[Finding]:
    """A pattern that text the plugin ships matches: forbidden, the answer that follows the skill fails; required
    over the trace or a file, reading the skill passes."""
    config = spec.config
    target = config.target if isinstance(config.target, str) else "file"
    negated = _negated(config.match)
    reads_shipped_text = target != "mock_calls" if negated else target in ("trace", "file")
    if not reads_shipped_text:
        return []
    where = _shipped_hit(spec, shipped)
    if where is None:
        return []
    if negated:
        kind = "fails-on-taught-text"
        message = f"/{config.pattern}/ must be absent, but the plugin teaches it ({where} matches): the answer that "
        message += "follows the skill fails"
        fix = "forbid the wrong outcome itself (a phrase only a bad answer holds), not a word the skill uses"
    else:
        kind = "passes-on-shipped-text"
        message = f"/{config.pattern}/ over the {target} matches text the plugin ships ({where}): reading the skill "
        message += "passes it"
        fix = (
            "match what only the agent's own work contains (grade last_message or the file's content, with a "
            "pattern the skill does not quote)"
        )
    return [Finding(case.name, grader=spec.name, kind=kind, message=message, fix=fix)]


def _edge_finding(case: Case, spec: GraderSpec) -> Finding | None:
    pattern = spec.config.pattern
    opens, closes = OPENS_ON_DIGIT.search(pattern), CLOSES_ON_DIGIT.search(pattern)
    if not (opens or closes):
        return None
    side = "opens and closes" if opens and closes else "opens" if opens else "closes"
    bounded = ("\\b" if opens else "") + pattern + ("\\b" if closes else "")
    return Finding(
        case.name,
        grader=spec.name,
        kind="unanchored-number",
        message=f"/{pattern}/ {side} on a digit with nothing bounding it: it also matches inside a longer number "
        "(0 inside 10)",
        fix=f"bound the number: /{bounded}/ (or a lookaround such as (?<!\\d))",
    )


def _empty_finding(case: Case, spec: GraderSpec) -> Finding | None:
    config = spec.config
    if config.expected_count is not None and config.match != "count:0":
        return None
    try:
        matches_empty = ecmaregex.search(config.pattern, config.flags, "")
    except ecmaregex.RegexAborted:
        return None
    if not matches_empty:
        return None
    negated = _negated(config.match)
    return Finding(
        case.name,
        grader=spec.name,
        kind="never-passes" if negated else "always-passes",
        message=f"/{config.pattern}/ matches the empty string, so it matches every text: the grader "
        + ("can never pass" if negated else "passes whatever the agent does"),
        fix="make every part of the pattern required (no pattern that can match nothing)",
    )


def tool_findings(case: Case) -> list[Finding]:
    out = []
    for spec in case.graders:
        if spec.type == "tool_used" and spec.config.min == 0 and spec.config.max is None:
            out.append(
                Finding(
                    case.name,
                    grader=spec.name,
                    kind="always-passes",
                    message="min: 0 with no max passes whatever the agent does",
                    fix="set max: 0 (the tool must not be called) or min: 1 (it must be)",
                )
            )
    return out


def pattern_findings(case: Case, shipped: Shipped | None) -> list[Finding]:
    out: list[Finding] = []
    for spec in case.graders:
        if spec.type != "regex":
            continue
        if shipped is not None:
            out += _leak_findings(case, spec, shipped)
        out += [f for f in (_edge_finding(case, spec), _empty_finding(case, spec)) if f is not None]
    return out + tool_findings(case)
