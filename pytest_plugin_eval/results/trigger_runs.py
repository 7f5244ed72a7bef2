"""A finished run of a trigger query as the trigger run it is: what its kept trace decides (run/trigger.py)."""

from __future__ import annotations

from pathlib import Path

from ..load.skills import TriggerTarget
from ..run.transcript import Transcript
from ..run.trigger import decide
from .model import RunResult
from .triggers import TriggerRun


def trigger_run_of(result: RunResult, target: TriggerTarget) -> TriggerRun:
    """The run as a trigger run: what its kept trace decides. An error decides nothing — except reaching the turn
    limit, or the model's refusal, which are how a run that never consults the skill may end."""
    transcript = Transcript.from_file(Path(result.trace_path)) if result.trace_path else Transcript("")
    firing = decide(transcript, target) if result.error_kind in (None, "max_turns", "refusal") else None
    error, kind = result.error, result.error_kind
    if firing is None and error is None:
        error, kind = "the run ended without consulting a skill or finishing", "agent"
    missing = unloaded(transcript, target)
    if missing:
        firing, error, kind = None, missing, "start"
    return TriggerRun(
        index=result.index,
        fired=firing.fired if firing is not None else None,
        skill=firing.skill if firing is not None else None,
        decided_by=firing.decided_by if firing is not None else None,
        turns=result.turns,
        cost_usd=result.cost_usd,
        duration_seconds=result.duration_seconds,
        started_at=result.started_at,
        attempts=result.attempts,
        error=None if firing is not None else error,
        error_kind=None if firing is not None else kind,
        trace_path=result.trace_path,
        notes=list(result.notes),
    )


def unloaded(transcript: Transcript, target: TriggerTarget) -> str | None:
    """The skill under test was not among what Claude Code loaded for the run (its init line lists them): the run
    cannot have measured it."""
    init = transcript.init
    listed = init.get("skills") if target.skill.kind == "skill" else init.get("slash_commands")
    if not isinstance(listed, list) or target.skill.qualified_name in listed:
        return None
    return (
        f"Claude Code did not load {target.skill.qualified_name} in this run (its session listed "
        f"{len(listed)} other(s)) — check {target.skill.path.name}'s frontmatter and folder"
    )
