"""pytest-plugin-eval: evaluate Claude Code plugins with pytest.

The public API for Python tests and grader authors: the grader helpers, the types a custom grader is made of,
and what a run looks like to a grader. Imported lazily, so that loading the pytest plugin (or `plugin-eval`)
does not import the judge's HTTP client before pytest starts.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "assertions": ("GraderUnavailable", "assert_baseline", "assert_file_exists", "assert_llm", "assert_regex",
                   "assert_tool_order", "assert_tool_used", "check", "expect"),
    "graders": ("GradeContext", "GraderSpec", "GraderType", "SpecError", "Verdict", "register", "registry"),
    "runner": ("AgentRun",),
    "transcript": ("RunOutput", "ToolCall", "Transcript"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'pytest_plugin_eval' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
