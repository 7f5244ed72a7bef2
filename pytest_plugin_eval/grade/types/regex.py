"""`regex`: an ECMAScript pattern over a target text; `contains`, `not_contains` or `count:N`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ...core.problems import SpecError
from ...core.validate import need_str
from ...run.output import RunOutput
from .. import ecmaregex
from ..base import GradeContext, GraderType, Verdict, register
from ..targets import Target, TargetError, parse_target, target_json, target_label, text_of

MATCH_RE = re.compile(r"contains|not_contains|count:(\d+)")


@dataclass(frozen=True)
class RegexConfig:
    pattern: str
    target: Target = "last_message"
    match: str = "contains"
    flags: str = ""

    @property
    def expected_count(self) -> int | None:
        m = MATCH_RE.fullmatch(self.match)
        return int(m.group(1)) if m and m.group(1) is not None else None


def compile_error(pattern: str, flags: str, key: str) -> SpecError | None:
    """A load-time error for a pattern the JavaScript engine refuses, with a hint for Python-isms."""
    problem = ecmaregex.check(pattern, flags)
    if problem is None:
        return None
    hint = ""
    if re.search(r"\(\?[a-zA-Z]+\)", pattern):
        hint = " — JavaScript has no inline flags like (?i): use `flags: i` (or a scoped group (?i:...))"
    elif "(?P<" in pattern:
        hint = " — JavaScript names groups (?<name>...), without the P"
    elif "invalid regular expression flags" in problem:
        hint = " — each flag may appear once, and u and v cannot be combined"
    return SpecError(key, f"invalid regular expression /{pattern}/{flags}: {problem}{hint}")


def check_pattern(pattern: str, flags: str, key: str) -> None:
    error = compile_error(pattern, flags, key)
    if error:
        raise error


@register
class RegexGrader(GraderType):
    name = "regex"
    keys = ("pattern", "target", "match", "flags")

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> RegexConfig:
        pattern = need_str(raw, "pattern")
        if pattern is None:
            # The pattern may be written as the file's body instead of a `pattern:` key.
            pattern = body.strip()
            if not pattern:
                raise SpecError("pattern", "is required (a `pattern:` key, or the pattern as the file's body)")
        target = parse_target(raw.get("target", "last_message"), "target")
        match = raw.get("match", "contains")
        if not isinstance(match, str) or not MATCH_RE.fullmatch(match):
            raise SpecError("match", f"must be contains | not_contains | count:N (got {match!r})")
        flags = raw.get("flags", "")
        problem = ecmaregex.flags_error(flags)
        if problem:
            raise SpecError("flags", f"{problem} (got {flags!r})")
        check_pattern(pattern, flags, "pattern")
        return RegexConfig(pattern=pattern, target=target, match=match, flags=flags)

    def config_json(self, config: RegexConfig) -> dict:
        return {
            "target": target_json(config.target),
            "pattern": config.pattern,
            "flags": config.flags,
            "match": config.match,
        }

    def with_only_by_default(self, config: RegexConfig) -> bool:
        return config.target == "mock_calls"

    def reads_created_files(self, config: RegexConfig) -> bool:
        return config.target == "files"

    def grade(self, config: RegexConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        try:
            text = text_of(config.target, run)
        except TargetError as e:
            return Verdict(False, str(e))
        shown, where = f"/{config.pattern}/{config.flags}", target_label(config.target)
        try:
            return self._grade(config, text, shown, where)
        except ecmaregex.RegexAborted as e:  # the pattern's fault or the text's, not the plugin's: not scored
            return Verdict(False, f"{shown} over {where} ({len(text)} characters) {e}", errored=True)

    def _grade(self, config: RegexConfig, text: str, shown: str, where: str) -> Verdict:
        expected = config.expected_count
        if expected is not None:
            found = ecmaregex.count(config.pattern, config.flags, text)
            noun = "match" if found == 1 else "matches"
            return Verdict(found == expected, f"found {found} {noun} of {shown} in {where} (expected {expected})")
        if config.match == "not_contains":
            hit = ecmaregex.find(config.pattern, config.flags, text)
            if hit is None:
                return Verdict(True, "pattern absent as expected")
            return Verdict(False, f"pattern {shown} found in {where} (expected absent): {context(hit)}")
        if ecmaregex.search(config.pattern, config.flags, text):
            return Verdict(True, f"matched {config.pattern}")
        return Verdict(False, f"pattern {shown} not found in {where}{excerpt(text)}")


EXCERPT_CHARS = 80


def one_line(text: str) -> str:
    """`text` quoted on one line: newlines and quotes escaped, as JSON writes a string (non-ASCII kept)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def excerpt(text: str) -> str:
    """': "the start of the searched text…"', so a failure shows what was searched (or that it was empty)."""
    if not text:
        return ", which is empty"
    cut = len(text) > EXCERPT_CHARS
    return f': "{one_line(text[:EXCERPT_CHARS])}{"…" if cut else ""}"'


def context(hit: ecmaregex.Found) -> str:
    """Where the first match is: the match, its line, and a little text either side, on one line."""
    if len(hit.match) > EXCERPT_CHARS // 2:  # a long match is context enough
        return f'"{one_line(hit.match[: EXCERPT_CHARS // 2])}…" on line {hit.line}'
    before = ("…" if hit.cut_before else "") + one_line(hit.before)
    match, after = one_line(hit.match), one_line(hit.after) + ("…" if hit.cut_after else "")
    return f'"{match}" on line {hit.line}, in "{before}{match}{after}"'
