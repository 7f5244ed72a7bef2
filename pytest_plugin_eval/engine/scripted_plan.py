"""What a `--scripted` session of trigger sets is about to cost in time, said before its first run.

A scripted trigger run answers the same way run after run (unless its query scripts runs apart), so the default
runs per query mostly repeat one check: a real plugin's sets make hundreds of runs, minutes of wall time for a
plumbing check. The session says so when it starts, with the arithmetic, and how to check the plumbing faster.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

# Seconds of wall time one scripted trigger run takes, about (Claude Code's start-up, the held Skill call, stopping
# the child): 100 runs of a real 20-query file took 4 min 35 s on 2 cores.
SECONDS_PER_RUN = 2.75
WORTH_SAYING_SECONDS = 60.0  # a plan shorter than this is not worth a line


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def scripted_trigger_lines(items: Sequence[Any], at_once: int, runs_given: bool) -> list[str]:
    """The line said before a scripted session's trigger runs start (none when they take under a minute).
    `items`: the session's items (trigger runs carry `trigger_set` and `query`); `at_once`: runs in parallel;
    `runs_given`: --runs was given (the operator asked for that many)."""
    runs = [item for item in items if hasattr(item, "trigger_set") and hasattr(item, "query")]
    queries = {(str(item.trigger_set.file), item.trigger_set.name, item.query.id, item.model) for item in runs}
    if not runs:
        return []
    at_once = max(1, at_once)
    seconds = math.ceil(len(runs) / at_once) * SECONDS_PER_RUN
    if seconds < WORTH_SAYING_SECONDS:
        return []
    per_query = len(runs) / len(queries)
    line = (
        f"plugin-eval: --scripted: {len(runs)} trigger runs ({len(queries)} queries × {per_query:g} runs) "
        f"≈ {len(runs)} ÷ {at_once} at once × ~{SECONDS_PER_RUN:g} s a run ≈ {minutes(seconds)}"
    )
    if not runs_given and per_query > 1:
        line += (
            f"; a query's scripted answer repeats run after run, so `--runs 1` checks the plumbing in "
            f"1/{per_query:g} of the time (a real model needs the runs to decide)"
        )
    return [line]
