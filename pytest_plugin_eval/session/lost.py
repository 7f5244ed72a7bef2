"""Runs the controller records without a report from the worker that ran them: a pytest-xdist worker that died
in the middle of one (`worker_lost`), or runs still in flight on the workers when the session was stopped
(`interrupted` — the workers are torn down after the results are written, so no report of theirs comes back).
Either way the run is in the results, errored and not scored, never lost and never a pass."""

from __future__ import annotations

from ..core.kinds import Arm, ErrorKind
from ..load.case import CaseLoadError
from ..results.model import RunResult
from ..run.workspace import Workspace, run_label
from . import wire
from .view import SessionView


def run_of(nodeid: str) -> tuple[Arm, int]:
    """`…::greets[with-plugin-2]` → ("with", 2)."""
    params = nodeid.rsplit("[", 1)[1].rstrip("]")
    arm: Arm = "with" if params.startswith("with-") else "without"
    return arm, int(params.rsplit("-", 1)[1])


def lost_run(session: SessionView, nodeid: str, case_file: str, kind: ErrorKind, message: str) -> wire.RunReport | None:
    """The report of the run of item `nodeid` (in `case_file`) that never came: errored with `kind` and `message`.
    None when its case no longer loads."""
    arm, index = run_of(nodeid)
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
        case=session.case_result(case),
        run=run,
        suite=session.suite_info(case),
        eval_root=str(case.eval_root),
        label=session.suite_label(case.eval_root),
    )


def remove_workspace(session: SessionView, nodeid: str, case_file: str) -> None:
    """Remove the workspace (and TMPDIR) of the run of a worker that died: nothing else would before the session
    ends."""
    base = session.workspace_base
    if base is None:  # --keep-temp
        return
    arm, index = run_of(nodeid)
    for workspace in Workspace.of_run(base, run_label((session.config.rootpath / case_file).parent, arm, index)):
        workspace.remove()
