"""Runs the controller records without a report from the worker that ran them: a pytest-xdist worker that died
in the middle of one (`worker_lost`), or runs still in flight on the workers when the session was stopped
(`interrupted` — the workers are torn down after the results are written, so no report of theirs comes back).
Either way the run is in the results, errored and not scored, never lost and never a pass."""

from __future__ import annotations

import re

from ..core.kinds import Arm, ErrorKind
from ..core.run_id import NodeRun, RunId
from ..load.case import CaseLoadError
from ..load.triggers import TriggerLoadError, query_case
from ..results.matrix import model_dirname
from ..results.model import RunResult
from ..results.triggers import TriggerRun
from ..run.workspace import Workspace, run_label
from . import trigger_outcomes, wire
from .session_view import SessionView


def run_of(nodeid: str) -> NodeRun:
    """`…::greets[with-plugin-2]` (or `[haiku-with-plugin-2]`) → its arm, index and model as spelt."""
    run = NodeRun.parse(nodeid)
    assert run is not None, nodeid
    return run


def model_of(session: SessionView, spelt: str | None) -> str | None:
    """A matrix's model as a node id spells it (session/items/case.py's run_params) → the model."""
    if spelt is None:
        return None
    return next((model for model in session.options.models if model_dirname(model) == spelt), spelt)


def lost_run(session: SessionView, nodeid: str, case_file: str, kind: ErrorKind, message: str) -> wire.RunReport | None:
    """The report of the run of item `nodeid` (in `case_file`) that never came: errored with `kind` and `message`.
    None when its case no longer loads."""
    spelt = run_of(nodeid)
    arm, index, model = spelt.arm, spelt.index, model_of(session, spelt.model_spelt)
    case_dir = (session.config.rootpath / case_file).parent
    eval_root = session.eval_root(case_dir)
    try:
        case = session.load(case_dir, eval_root) if eval_root is not None else None
    except CaseLoadError:
        case = None
    if case is None:
        return None
    run = RunResult(arm, index, score=None, passed=False, error_kind=kind, error=message)
    return wire.RunReport(
        case=session.case_result(case, model),
        run=run,
        suite=session.suite_info(case, model),
        eval_root=str(case.eval_root),
        label=session.suite_label(case.eval_root, model),
        model=model,
    )


def remove_workspace(session: SessionView, nodeid: str, case_file: str) -> None:
    """Remove the workspace (and TMPDIR) of the run of a worker that died: nothing else would before the session
    ends."""
    base = session.workspace_base
    if base is None:  # --keep-temp
        return
    run = run_of(nodeid)
    for workspace in Workspace.of_run(
        base, run_label((session.config.rootpath / case_file).parent, run.arm, run.index)
    ):
        workspace.remove()


TRIGGER_RUN = re.compile(
    r"^(?P<file>[^:]+)::(?P<skill>[^/\[]+)/(?P<query>[^\[]+)\[(?:(?P<model>[^\[\]]+?)-)??(?P<against>against-)?"
    r"run-(?P<index>\d+)\]$"
)


def lost_trigger_run(session: SessionView, nodeid: str, kind: ErrorKind, message: str) -> wire.TriggerReport | None:
    """The report of trigger run `nodeid` (`<file>::<skill>/<query>[run-N]`) that never came: it decided nothing.
    None for another node id, or a trigger file that no longer loads."""
    match = TRIGGER_RUN.match(nodeid)
    if match is None:
        return None
    path = (session.config.rootpath / match["file"]).absolute()
    # the eval dir whose suite it belongs to (a skill folder's file belongs to its plugin's eval dir)
    eval_root = next((r for r in session.eval_roots if path.is_relative_to(r.parent)), None)
    try:
        sets = session.load_triggers(path, eval_root) if eval_root is not None else []
    except TriggerLoadError:
        return None
    for trigger_set in sets:
        query = next((q for q in trigger_set.queries if q.id == match["query"]), None)
        if trigger_set.name == match["skill"] and query is not None:
            run = TriggerRun(int(match["index"]), None, error=message, error_kind=kind)
            arm: Arm = "against" if match["against"] else "with"
            run_id = RunId.of(query_case(trigger_set, query).dir, arm, run.index, model_of(session, match["model"]))
            return trigger_outcomes.report_of(session, trigger_set, query, run, run_id)
    return None
