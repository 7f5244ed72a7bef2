"""Every grader type as an assertion helper for ordinary pytest tests.

Same registry, same validation, same code path as graders/*.md: `assert_regex(run, r"^fix")` loads the
definition the way a Markdown grader is loaded and grades `run` the way a case's run is graded. A failing
grader raises AssertionError with its explanation; a passing one returns its Verdict. Every helper sets
`__tracebackhide__`, so pytest reports a failure at the test's own line, not inside this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import HarnessError
from ..core.problems import SpecError
from ..load.graders import parse_grader
from ..run.output import RunOutput
from .base import GradeContext, JudgeClient, Verdict
from .ecmaregex import RegexAborted
from .judge import JudgeUnavailable
from .types import grader_types


class GraderUnavailable(HarnessError, RuntimeError):
    """The grader could not judge (its judge was unavailable): neither a pass nor a failure."""


def check(
    run: RunOutput,
    type: str,
    *,
    body: str = "",
    judge: JudgeClient | None = None,
    case_dir: Path | None = None,
    **keys: Any,
) -> Verdict:
    """Grade `run` with a grader of `type` defined by `keys` (its frontmatter) and `body` (a rubric).
    A definition the Markdown loader would refuse raises SpecError (ValueError-like) naming the key."""
    spec = parse_grader({"type": type, **keys}, body, type, "python", grader_types(), case_dir)
    try:
        return spec.kind.grade(spec.config, run, GradeContext(spec.name, judge or getattr(run, "judge", None)))
    except RegexAborted as e:  # an input_match stopped at its limit: the grader could not judge
        return Verdict(False, f"regular expression {e}", errored=True)


def expect(run: RunOutput, type: str, **kwargs: Any) -> Verdict:
    """`check`, raising AssertionError when the grader fails."""
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not this frame
    verdict = check(run, type, **kwargs)
    if verdict.errored:
        raise GraderUnavailable(f"{type}: {verdict.explanation}")
    if not verdict.passed:
        raise AssertionError(f"{type} grader failed: {verdict.explanation}")
    return verdict


def assert_regex(
    run: RunOutput, pattern: str, *, target: str = "last_message", match: str = "contains", flags: str = ""
) -> Verdict:
    __tracebackhide__ = True
    return expect(run, "regex", pattern=pattern, target=target, match=match, flags=flags)


def assert_tool_used(
    run: RunOutput, tool: str, *, input_match: str | None = None, min: int = 1, max: int | None = None
) -> Verdict:
    __tracebackhide__ = True
    keys: dict[str, Any] = {"tool": tool, "min": min}
    if input_match is not None:
        keys["input_match"] = input_match
    if max is not None:
        keys["max"] = max
    return expect(run, "tool_used", **keys)


def assert_tool_order(run: RunOutput, before: str | dict, after: str | dict) -> Verdict:
    __tracebackhide__ = True
    return expect(run, "tool_order", before=before, after=after)


def assert_file_exists(run: RunOutput, path: str, *, exists: bool = True) -> Verdict:
    __tracebackhide__ = True
    return expect(run, "file_exists", path=path, exists=exists)


def assert_llm(
    run: RunOutput, criteria: str, *, focus: str = "last_message", judge: JudgeClient | None = None
) -> Verdict:
    __tracebackhide__ = True
    return expect(run, "llm", body=criteria, focus=focus, judge=judge)


def assert_baseline(
    run: RunOutput, criteria: str, *, baseline_file: str, case_dir: Path | str, judge: JudgeClient | None = None
) -> Verdict:
    __tracebackhide__ = True
    return expect(run, "baseline", body=criteria, baseline_file=baseline_file, case_dir=Path(case_dir), judge=judge)


__all__ = [
    "GraderUnavailable",
    "JudgeUnavailable",
    "SpecError",
    "assert_baseline",
    "assert_file_exists",
    "assert_llm",
    "assert_regex",
    "assert_tool_order",
    "assert_tool_used",
    "check",
    "expect",
]
