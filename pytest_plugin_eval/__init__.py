"""pytest-plugin-eval: evaluate Claude Code plugins with pytest.

The public API, and nothing else: the grader helpers for Python tests, the types a custom grader type is made
of, what a run looks like to a grader, and the results document as types. Every name is imported on first use,
so that loading the pytest plugin (every pytest run in an environment that has it installed) stays cheap.

PYTEST_DONT_REWRITE: `plugin-eval` imports this package before it starts pytest, which (installed from a wheel)
would then warn that the plugin's package was imported too early to rewrite its asserts; it has none to rewrite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name → the module that defines it
_EXPORTS = {
    # grader helpers for Python tests
    "assert_baseline": "grade.assertions",
    "assert_file_exists": "grade.assertions",
    "assert_llm": "grade.assertions",
    "assert_regex": "grade.assertions",
    "assert_tool_order": "grade.assertions",
    "assert_tool_used": "grade.assertions",
    "check": "grade.assertions",
    "expect": "grade.assertions",
    "GraderUnavailable": "grade.assertions",
    # writing a grader type
    "GraderType": "grade.base",
    "Verdict": "grade.base",
    "GradeContext": "grade.base",
    "register": "grade.base",
    "registry": "grade.base",
    "GraderSpec": "load.graders",
    "SpecError": "core.problems",
    # what a grader reads of a run
    "RunOutput": "run.output",
    "AgentRun": "run.execute",
    "Transcript": "run.transcript",
    "ToolCall": "run.transcript",
    # the results document
    "SuiteResult": "results.model",
    "CaseResult": "results.model",
    "RunResult": "results.model",
    "GraderResult": "results.model",
    "read_results": "results.store",
}
__all__ = [
    "AgentRun",
    "CaseResult",
    "GradeContext",
    "GraderResult",
    "GraderSpec",
    "GraderType",
    "GraderUnavailable",
    "RunOutput",
    "RunResult",
    "SpecError",
    "SuiteResult",
    "ToolCall",
    "Transcript",
    "Verdict",
    "assert_baseline",
    "assert_file_exists",
    "assert_llm",
    "assert_regex",
    "assert_tool_order",
    "assert_tool_used",
    "check",
    "expect",
    "read_results",
    "register",
    "registry",
]

if TYPE_CHECKING:
    from .core.problems import SpecError
    from .grade.assertions import (
        GraderUnavailable,
        assert_baseline,
        assert_file_exists,
        assert_llm,
        assert_regex,
        assert_tool_order,
        assert_tool_used,
        check,
        expect,
    )
    from .grade.base import GradeContext, GraderType, Verdict, register, registry
    from .load.graders import GraderSpec
    from .results.model import CaseResult, GraderResult, RunResult, SuiteResult
    from .results.store import read_results
    from .run.execute import AgentRun
    from .run.output import RunOutput
    from .run.transcript import ToolCall, Transcript


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pytest_plugin_eval' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
