"""Tools the agent called and was refused, read from a run's trace.

In a headless run a refused tool does not fail the run: Claude Code answers the call with an error, the agent
carries on, and the run "succeeds" (exit 0, `subtype: success`) while measuring nothing about the plugin — the
likeliest false regression of a plugin that edits files. Claude Code's own `permission_denials` list misses some
refusals, so they are read from the tool results instead: a call answered with an error whose text says why.

How each is decided (the error text Claude Code 2.1 writes):
- not granted: "No such tool available: Write. Write is disabled for this session" — the tool is on the run's
  deny list (a gated tool nobody granted with --allow-tools, or the case's `disallowed_tools`);
- permission denied: "Permission to use Write has been denied" or "… denied by your permission settings" — the
  tool is granted but this call fell outside what the grant covers (a path outside the workspace);
- sandbox: a shell call whose error says the OS sandbox refused it ("Operation not permitted", "Read-only file
  system") — the command was allowed, its effect was not;
- unanswerable: any `AskUserQuestion` call — nobody can answer it in a headless run, granted or not;
- a `Skill` call refused for one of those reasons (a SKILL.md's !`command` the run does not grant, say). An
  unknown skill name is the agent's mistake, not a refusal (the run's notes say it).
Any other error (a shell command's exit code, a missing file) is the agent's work going wrong, not a refusal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from .transcript import Transcript

Why = Literal["not granted", "permission denied", "sandbox", "unanswerable"]

NOT_GRANTED = re.compile(r"No such tool available")
PERMISSION = re.compile(r"Permission to use \S+ has been denied|denied by your permission settings")
SANDBOXED = re.compile(r"Operation not permitted|Read-only file system")
SHELLS = ("Bash", "PowerShell")
QUESTIONS = "AskUserQuestion"


def why_refused(tool: str, error: str) -> Why | None:
    """Why a call of `tool` answered with `error` was refused (None: it was not a refusal)."""
    if tool == QUESTIONS:
        return "unanswerable"
    if NOT_GRANTED.search(error):
        return "not granted"
    if PERMISSION.search(error):
        return "permission denied"
    if tool in SHELLS and SANDBOXED.search(error):
        return "sandbox"
    return None


def refused_tools(transcript: Transcript) -> list[dict[str, str]]:
    """The run's refused calls, in trace order: [{tool, why}] (what the results document records per run)."""
    out = []
    for tool, _input, error in transcript.tool_errors:
        why = why_refused(tool, error)
        if why is not None:
            out.append({"tool": tool, "why": why})
    return out


def describe(refused: Iterable[dict[str, str]]) -> str:
    """`Write refused ×2 (not granted), AskUserQuestion refused ×1 (unanswerable)`."""
    counts: dict[tuple[str, str], int] = {}
    for r in refused:
        counts[(r.get("tool", "?"), r.get("why", "?"))] = counts.get((r.get("tool", "?"), r.get("why", "?")), 0) + 1
    return ", ".join(f"{tool} refused ×{n} ({why})" for (tool, why), n in counts.items())
