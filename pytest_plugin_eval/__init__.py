"""pytest-plugin-eval: evaluate Claude Code plugins with pytest.

The public API for Python tests and grader authors: the grader helpers, the types a custom grader is made of,
and what a run looks like to a grader.
"""
from .assertions import (GraderUnavailable, assert_baseline, assert_file_exists, assert_llm, assert_regex,
                         assert_tool_order, assert_tool_used, check, expect)
from .graders import GradeContext, GraderSpec, GraderType, SpecError, Verdict, register, registry
from .runner import AgentRun
from .transcript import RunOutput, ToolCall, Transcript

__all__ = [
    "AgentRun", "GradeContext", "GraderSpec", "GraderType", "GraderUnavailable", "RunOutput", "SpecError",
    "ToolCall", "Transcript", "Verdict", "assert_baseline", "assert_file_exists", "assert_llm", "assert_regex",
    "assert_tool_order", "assert_tool_used", "check", "expect", "register", "registry",
]
