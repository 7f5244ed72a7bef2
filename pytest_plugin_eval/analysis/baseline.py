"""--reuse-baseline: a case's without-plugin runs taken from the suite's stored sessions instead of run again.

Nothing a run without the plugin sees changes when the plugin is edited; its conditions (run/conditions.py) are
recorded with it. A later session whose run would have the same conditions takes the stored run and grades it
again with today's graders from its trace and files (analysis/regrade.py), as `--regrade` does.

Matching is by run index: run n of a case's without arm is taken from the newest stored session holding a finished
run n of that case made under the same conditions. So no stored run is used twice in one document (--lf's runs
from the last session keep their places), a session with more runs than the stored ones runs only the missing
ones, and a run that did not finish (an API error, a stop) is run afresh. Regraded sessions are not looked in
(their runs are the session's they regraded), nor are runs --lf took from an earlier session (they are found in
that one, with their files). What reused runs came from is `reusedFrom`: the session where the agent made them.

The same stands for --against's arm: a stored with-plugin run whose conditions (the plugin's content among them)
are those of a run of the other version is that version's run, already made (`decide(..., arm=PLUGIN_ARM)`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.kinds import Arm
from ..core.run_id import RunId
from ..results.model import RERUN_KINDS, CaseResult, RunResult, SuiteResult
from .regrade import MISSING, StoredResults, StoredRun

ARM: Arm = "without"
PLUGIN_ARM: Arm = "with"  # the stored arm whose runs stand for --against's, when made on the same version

# How each condition is said when it changed; the values of those not here are digests.
SAID_WITH_VALUES = {"model": "model", "claudeCode": "Claude Code", "isolation": "harness isolation version"}
CHANGED = {
    "prompt": "prompt changed",
    "systemPrompt": "appended system prompt changed",
    "context": "context files changed",
    "tools": "tools changed",
    "limits": "max turns or timeout changed",
    "env": "env changed",
    "mocks": "mocks served without the plugin changed",
    "script": "scripted.yaml's without arm changed",
    "conversation": "turns, answers or simulated user changed",
    "plugin": "made on another version of the plugin",
}
# How a change is said of stored with-plugin runs weighed for --against's arm, where it differs from the above.
CHANGED_WITH = {
    **CHANGED,
    "mocks": "mocks served with the plugin changed",
    "script": "scripted.yaml's arm for --against changed",
}


def differences(stored: dict[str, Any] | None, current: dict[str, Any], said: dict[str, str] = CHANGED) -> list[str]:
    """What differs between the conditions a run was made under and today's, said for the notice ([]: none)."""
    if stored is None:
        return ["its runs were made before conditions were recorded"]
    out = []
    for name in sorted(set(stored) | set(current), key=lambda n: list(current).index(n) if n in current else 99):
        old, new = stored.get(name), current.get(name)
        if old == new:
            continue
        if name in SAID_WITH_VALUES:
            out.append(f"{SAID_WITH_VALUES[name]} {old if old is not None else 'unknown'} → {new}")
        else:
            out.append(said.get(name, f"{name} changed"))
    return out


def finished(run: RunResult) -> bool:
    """A run that can stand for another: it ran to its end (not an unfinished or unreadable one)."""
    return run.error_kind not in (*RERUN_KINDS, MISSING) and run.conditions is not None and not run.reused


def origin(run: RunResult, session: SuiteResult) -> dict[str, Any]:
    """Where the agent made a stored run: its own `reusedFrom`, else the session that holds it."""
    if run.reused_from:
        return dict(run.reused_from)
    return {"session": session.started_at, "index": run.index, "agentCostUsd": run.cost_usd - run.judge_cost_usd}


@dataclass(frozen=True)
class Reuse:
    """A stored run chosen to stand for run `index` of this session."""

    stored: StoredRun
    origin: dict[str, Any]


@dataclass(frozen=True)
class Decision:
    """For one case: the stored run per index, and why runs of the newest session that has some were not
    taken (None: they were, or no session has any)."""

    runs: dict[int, Reuse]
    refused: str | None = None


class Baselines:
    """The stored sessions of a suite, newest first, whose without-plugin runs may be reused."""

    def __init__(self, sessions: Iterable[tuple[Path, SuiteResult]]):
        self._sessions = [(folder, doc) for folder, doc in sessions if not doc.suite.regraded_from]
        self._stored: dict[Path, StoredResults | None] = {}

    def _results(self, folder: Path, document: SuiteResult) -> StoredResults | None:
        if folder not in self._stored:
            try:
                self._stored[folder] = StoredResults(folder, document)
            except (OSError, ValueError):
                self._stored[folder] = None
        return self._stored[folder]

    def decide(self, case_dir: str, conditions: dict[str, Any], indexes: Iterable[int], arm: Arm = ARM) -> Decision:
        """Which stored run of `arm` stands for each of `indexes` of the case at `case_dir`: of its without arm, or
        (arm=PLUGIN_ARM, `conditions` those of --against's version) of its against arm. None taken, the refusal
        says what changed in the newest session with runs on the same model (a matrix's folder holds one per
        model: "model sonnet → haiku" would hide the change that matters), else in the newest with any."""
        wanted = sorted(set(indexes))
        runs: dict[int, Reuse] = {}
        refused: str | None = None  # said of the newest session with runs on this model
        elsewhere: str | None = None  # of the newest with runs on another (a matrix's other model's folder)
        if conditions.get("claudeCode") in (None, "unknown"):
            return Decision({}, "the version of Claude Code is unknown")
        for folder, document in self._sessions:
            case = _case(document, case_dir)
            if case is None or not case.runs(arm):
                continue
            matching = [run for run in case.runs(arm) if run.conditions == conditions]
            if not matching:
                newest = case.runs(arm)[-1].conditions or {}
                if newest.get("model", conditions.get("model")) != conditions.get("model"):
                    elsewhere = elsewhere or "; ".join(_first_differences(case, conditions, arm))
                elif refused is None and not runs:
                    refused = "; ".join(_first_differences(case, conditions, arm))
                continue
            stored = self._results(folder, document)
            if stored is None:
                continue
            unusable = True
            for run in matching:
                if run.index in wanted and run.index not in runs and finished(run):
                    kept = stored.runs.get(RunId(case_dir, arm, run.index))
                    if kept is not None and kept.folder.trace.is_file():
                        runs[run.index] = Reuse(kept, origin(run, document))
                        unusable = False
            if unusable and refused is None and not runs:
                refused = "its stored runs did not finish, or their files are missing"
            if all(i in runs for i in wanted):
                break
        return Decision(runs, None if runs else refused or elsewhere)


def _case(document: SuiteResult, case_dir: str) -> CaseResult | None:
    return next((case for case in document.cases if case.dir == case_dir), None)


def _first_differences(case: CaseResult, conditions: dict[str, Any], arm: Arm) -> list[str]:
    """What differs for the newest run of the case's `arm` (its conditions say it best)."""
    run = case.runs(arm)[-1]
    return differences(run.conditions, conditions, CHANGED if arm == ARM else CHANGED_WITH) or [
        "its runs did not finish"
    ]


def as_reused(result: RunResult, reuse: Reuse, conditions: dict[str, Any], arm: Arm = ARM) -> RunResult:
    """A stored run graded again (`result`) as this session's run of `arm`: what this session paid is its judges
    only, and where the agent made it is said."""
    return dataclasses.replace(
        result,
        arm=arm,
        cost_usd=result.judge_cost_usd,
        conditions=conditions,
        reused_from=reuse.origin,
    )


def baseline_origins(document: SuiteResult) -> dict[RunId, str]:
    """Each without-plugin run (its case's dir as the document names it) → the session where the agent made it
    (for `compare`)."""
    return {
        RunId(case.dir, ARM, run.index): str(origin(run, document).get("session"))
        for case in document.cases
        for run in case.runs(ARM)
    }


def shared_baseline(old: SuiteResult, new: SuiteResult) -> int:
    """How many without-plugin runs the two sessions share: the same run, made once, reused by one or both."""
    a, b = baseline_origins(old), baseline_origins(new)
    reused = {
        RunId(case.dir, ARM, run.index)
        for doc in (old, new)
        for case in doc.cases
        for run in case.runs(ARM)
        if run.reused_from
    }
    return sum(1 for run, session in b.items() if run in reused and a.get(run) == session)
