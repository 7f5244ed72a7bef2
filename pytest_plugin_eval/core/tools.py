"""Claude Code's tools as the harness sorts them: which a case may remove, which only the operator may grant,
which are never available in an evaluation, and how a grant is spelled."""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable

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
# Tools whose (pattern) is a file path: a pattern is anchored at the run's working directory.
FILE_TOOLS = frozenset({"Read", "Glob", "Grep", "Edit", "Write", "NotebookEdit"})


# Every built-in tool name known here: a grant of a name close to one of these, but not one, is most likely a typo.
KNOWN_TOOLS = REMOVABLE_TOOLS | GATED | NEVER | {"BashOutput", "KillShell", "AskUserQuestion", "SlashCommand", "LSP"}


def misspelling_of(entry: str) -> str | None:
    """The built-in tool an unknown grant probably meant (`bash` → Bash, `Wirte` → Write), or None: a name close to
    none of them may be a tool newer than this list, and is left alone."""
    tool = tool_of(entry)
    if tool in KNOWN_TOOLS or tool.startswith("mcp__"):
        return None
    if tool.endswith("Tool") and tool.removesuffix("Tool") in KNOWN_TOOLS:  # SkillTool, as some docs call it
        return tool.removesuffix("Tool")
    by_lower = {name.lower(): name for name in KNOWN_TOOLS}
    close = difflib.get_close_matches(tool.lower(), list(by_lower), n=1, cutoff=0.75)
    return by_lower[close[0]] if close else None


def tool_of(entry: str) -> str:
    """`Edit(src/**)` → `Edit`."""
    return entry.split("(", 1)[0]


def covers(grants: Iterable[str], tool: str) -> bool:
    """Whether a grant names `tool`: bare, with a pattern, or with a wildcard (`mcp__server__*`), as Claude Code
    matches --allowed-tools entries."""
    name = tool_of(tool)
    return any(fnmatch.fnmatchcase(name, tool_of(g).replace("[", "[[]")) for g in grants)


def is_gated(entry: str) -> bool:
    return tool_of(entry) in GATED or entry.startswith("mcp__")


def pattern_of(entry: str) -> str | None:
    """`Edit(src/**)` → `src/**`; None for a bare tool."""
    tool, paren, rest = entry.partition("(")
    return rest[:-1] if paren and rest.endswith(")") else None


def leaves_workspace(entry: str) -> bool:
    """A file tool's pattern that names a place outside the run's working directory: an absolute or home path
    (`/etc/**`, `//etc/**`, `~/x`, `C:\\x`) or one with a `..` segment."""
    pattern = pattern_of(entry)
    if tool_of(entry) not in FILE_TOOLS or pattern is None:
        return False
    return (
        pattern.startswith(("/", "~", "\\"))
        or re.match(r"^[A-Za-z]:", pattern) is not None
        or ".." in re.split(r"[\\/]", pattern)
    )


def grant_problem(entry: str) -> str | None:
    """Why an `--allow-tools` entry is refused, or None."""
    if re.fullmatch(r"mcp__\*+", tool_of(entry)):
        return f"{entry!r} is a wildcard the child does not support — name the server: mcp__server__*"
    if not GRANT_RE.match(entry):
        return f"{entry!r} is malformed — write a tool name, optionally with a pattern: Bash, Edit(src/**), mcp__server__tool"
    if tool_of(entry) in NEVER:
        return f"{entry!r} is never available in an evaluation ({', '.join(sorted(NEVER))})"
    if meant := misspelling_of(entry):  # a typo would run the whole suite without the tool
        return f"{entry!r} is no tool of Claude Code's — did you mean {meant}?"
    if leaves_workspace(entry):
        tool = tool_of(entry)
        return (
            f"{entry!r} reaches outside the run's workspace — the agent's file tools only ever see the run's own "
            f"folders, the case's fixture folders and the plugin: grant {tool} (scoped to those) or a pattern "
            f"relative to the working directory, such as {tool}(src/**)"
        )
    return None


def disallow_problem(entry: str) -> str | None:
    """Why a disallowed_tools / --disallow-tools entry cannot be removed, or None."""
    if entry in REMOVABLE_TOOLS:
        return None
    return (
        f'"{entry}" cannot be disallowed: it is not a built-in tool that can be removed — use bare names '
        f"such as Agent or TaskStop (patterns such as Bash(rm:*) and MCP tools are not accepted)"
    )
