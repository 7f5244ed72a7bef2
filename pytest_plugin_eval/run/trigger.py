"""A trigger run: did the agent consult the skill for this query? Decided from the trace as it grows, and the
child stopped the moment the answer is known.

A run *fires* a component of the plugin when the agent calls `Skill` with its name (a command is called the same
way), or reads its SKILL.md / command file. Tool calls before that do not decide: the agent may look around first.
It ends *not fired* when the agent finishes, or reaches the turn limit, without consulting any skill — or when it
calls a skill that is not the plugin's (it chose something else). A run that errs decides nothing.

Claude Code writes a tool call to the trace before it runs the tool, so a PreToolUse hook holds every Skill call
(and every Read of one of the plugin's skill files) until the harness, having read the call, stops the child:
no skill body is loaded and nothing the skill would do is done.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..load.skills import TriggerTarget
from .transcript import Transcript

HOLD_SECONDS = 600
# Claude Code starts hooks in a session of their own, so stopping the child's process group leaves them: the hold
# waits only while its parent (the child's Claude Code) lives, and HOLD_SECONDS at most.
HOLD = f"i=0; while [ $i -lt {HOLD_SECONDS * 5} ] && kill -0 $PPID 2>/dev/null; do sleep 0.2; i=$((i+1)); done"
PATHS_FILE = "trigger-paths.txt"


@dataclass(frozen=True)
class Firing:
    """How a trigger run came out."""

    fired: bool  # the set's own skill was consulted
    skill: str | None  # the qualified name of what the agent consulted (a sibling, another skill); None: nothing
    decided_by: str  # the deciding event, in words
    call: int | None = None  # the deciding tool call's index in the trace


def hold_hooks(target: TriggerTarget, out: Path) -> dict:
    """The `hooks` settings that hold the agent at a Skill call or a Read of one of the plugin's skill files."""
    paths = out / PATHS_FILE
    # As the hook's JSON input spells them (quoted), so that a Read of `SKILL.md.bak` is not held
    paths.write_text("".join(f"{json.dumps(str(c.path))}\n" for c in target.components), encoding="utf-8")
    hold = {"type": "command", "command": HOLD, "timeout": HOLD_SECONDS}
    read = {
        "type": "command",
        "command": f"grep -qF -f '{paths}' && {{ {HOLD}; }}; exit 0",
        "timeout": HOLD_SECONDS,
    }
    return {
        "PreToolUse": [
            {"matcher": "Skill|SlashCommand", "hooks": [hold]},
            {"matcher": "Read", "hooks": [read]},
        ]
    }


def decide(transcript: Transcript, target: TriggerTarget) -> Firing | None:
    """The run's outcome as far as the trace shows it; None while it is still open (or it ended in an error)."""
    for call in transcript.tool_calls:
        if call.name in ("Skill", "SlashCommand"):
            # SlashCommand's `command` carries the command's arguments after its name ("/greeter:greet Bob")
            called = (str(call.input.get("skill") or call.input.get("command") or "").split() or [""])[0]
            component = target.component_called(called)
            if component is None:
                return Firing(False, called or None, f"called another skill ({called or '?'})", call.index)
            return Firing(component == target.skill, component.qualified_name, "Skill call", call.index)
        if call.name == "Read":
            component = target.component_at(str(call.input.get("file_path") or ""))
            if component is not None:
                return Firing(
                    component == target.skill, component.qualified_name, f"read its {component.path.name}", call.index
                )
    result = transcript.result
    if result is None:
        return None
    if result.get("subtype") == "success" and not result.get("is_error"):
        return Firing(False, None, "finished without consulting a skill")
    if result.get("subtype") == "error_max_turns":
        return Firing(False, None, "reached the turn limit without consulting a skill")
    if result.get("stop_reason") == "refusal":  # the model declined the query: it did not take the skill
        return Firing(False, None, "the model refused the query without consulting a skill")
    return None


def watcher(target: TriggerTarget, trace: Path):
    """A `should_stop` for Child.run: true once the trace decides the run."""

    def decided() -> bool:
        return decide(Transcript.from_file(trace), target) is not None

    return decided
