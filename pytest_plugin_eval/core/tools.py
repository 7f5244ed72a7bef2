"""Claude Code's tools as the harness sorts them: which a case may remove, which only the operator may grant,
which are never available in an evaluation, and how a grant is spelled."""

from __future__ import annotations

import re

# Built-in tools a case may remove with disallowed_tools (bare names only).
REMOVABLE_TOOLS = frozenset(
    {
        "Agent",
        "Task",
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "Read",
        "Skill",
        "ToolSearch",
        "TaskStop",
        "TodoWrite",
        "Write",
        "NotebookEdit",
        "WebFetch",
        "WebSearch",
        "TaskOutput",
        "ExitPlanMode",
        "EnterPlanMode",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
    }
)

# Tools that only the operator can grant (`--allow-tools`); a case's allowed_tools cannot.
GATED = frozenset({"Bash", "Write", "Edit", "NotebookEdit", "WebFetch", "WebSearch", "PowerShell"})
# Tools never available in an evaluation, whoever asks.
NEVER = frozenset({"Monitor", "EnterWorktree", "ExitWorktree"})
GRANT_RE = re.compile(r"^(?:[A-Za-z][\w-]*|mcp__[\w-]+__[\w*-]+)(?:\((?P<pattern>[^()]*)\))?$")


def tool_of(entry: str) -> str:
    """`Edit(src/**)` → `Edit`."""
    return entry.split("(", 1)[0]


def is_gated(entry: str) -> bool:
    return tool_of(entry) in GATED or entry.startswith("mcp__")


def grant_problem(entry: str) -> str | None:
    """Why an `--allow-tools` entry is refused, or None."""
    if re.fullmatch(r"mcp__\*+", tool_of(entry)):
        return f"{entry!r} is a wildcard the child does not support — name the server: mcp__server__*"
    if not GRANT_RE.match(entry):
        return f"{entry!r} is malformed — write a tool name, optionally with a pattern: Bash, Edit(src/**), mcp__server__tool"
    if tool_of(entry) in NEVER:
        return f"{entry!r} is never available in an evaluation ({', '.join(sorted(NEVER))})"
    return None


def disallow_problem(entry: str) -> str | None:
    """Why a disallowed_tools / --disallow-tools entry cannot be removed, or None."""
    if entry in REMOVABLE_TOOLS:
        return None
    return (
        f'"{entry}" cannot be disallowed: it is not a built-in tool that can be removed — use bare names '
        f"such as Agent or TaskStop (patterns such as Bash(rm:*) and MCP tools are not accepted)"
    )
