"""How a grant covers a tool (pytest_plugin_eval.core.tools.covers)."""

from __future__ import annotations

from pytest_plugin_eval.core.tools import covers


def test_a_grant_covers_a_tool_bare_with_a_pattern_or_with_a_wildcard():
    tool = "mcp__plugin_addness_addness__create_comment"
    assert covers([tool], tool)
    assert covers(["mcp__plugin_addness_addness__*"], tool)
    assert covers(["Bash(git commit:*)"], "Bash")
    assert not covers(["mcp__plugin_addness_other__*"], tool)
    assert not covers(["mcp__plugin_addness_addness__create"], tool)
    assert not covers([], tool)
    assert not covers(["mcp__[p]lugin*"], "mcp__plugin_x__y")  # [ ] are literal, as in Claude Code's names
