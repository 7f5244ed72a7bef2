"""`plugin-eval calibrate --controls`: what the controls (grade.controls) are asked of and by whom — each judged
grader of the results folders' cases (the last folder's definition of a case wins), its rubric as the document
records it, a baseline's reference read from the case folder, and a judge model: the session's judge client
(grade/clients.py: whatever Claude Code signs in with), or with
`--scripted` the scripted endpoint answering from each case's scripted.yaml `controls:` (FAIL when it has none).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.problems import SpecError
from ..core.run_id import RunId
from ..grade import controls
from ..grade.clients import command_judge_client, not_signed_in
from ..grade.judge import Judge, resolve_judge_model
from ..grade.types.judged import read_baseline
from ..results.calibration import ControlAnswer, Session, judged_verdict
from ..results.model import CaseResult
from ..run.transcript import Transcript
from .pairwise import script_of


class ControlsRefused(UsageError):
    """--controls cannot run: printed, exit 1."""


def check_judge(sessions: Sequence[Session], scripted: bool, environ=os.environ) -> None:
    if any(s.document.suite.scripted for s in sessions) and not scripted:
        raise ControlsRefused(
            "Error: --controls: these runs were made with --scripted; add --scripted so that the judge answers the "
            "controls from each case's scripted.yaml (controls:) rather than a real model"
        )
    problem = None if scripted else not_signed_in("--controls", environ)
    if problem is not None:
        raise ControlsRefused(problem)


def _passed_trace(session: Session, case: CaseResult, grader: str) -> str | None:
    """The trace of a with-arm run the judge passed, for the swapped control."""
    from .regrade import StoredResults

    stored = StoredResults(session.folder, session.document)
    for run in case.runs("with"):
        found = next((g for g in run.graders if g.name == grader), None)
        kept = stored.runs.get(RunId(case.dir, run.arm, run.index))
        if found is not None and judged_verdict(found) and kept is not None and kept.folder.trace.is_file():
            return Transcript.from_file(kept.folder.trace).text
    return None


def plan(sessions: Sequence[Session]) -> list[tuple[controls.Control, CaseResult, str]]:
    """Every control to ask, with its case and the suite root its script is read from."""
    cases: dict[str, tuple[Session, CaseResult]] = {}
    for session in sessions:
        for case in session.document.cases:
            cases[case.name] = (session, case)
    out = []
    for name, (session, case) in sorted(cases.items()):
        root = session.document.suite.root
        for info in case.graders:
            if info.type == "llm":
                asked = controls.llm_controls(name, info.name, info.config)
            elif info.type == "baseline":
                try:
                    reference = "\n".join(read_baseline(Path(root) / case.dir, str(info.config.get("baseline_file"))))
                except SpecError as e:
                    raise ControlsRefused(f"Error: --controls: {name} · {info.name}: {e.message}") from None
                criteria = str(info.config.get("criteria") or "")
                asked = controls.baseline_controls(
                    name, info.name, criteria, reference, _passed_trace(session, case, info.name)
                )
            else:
                continue
            out += [(control, case, root) for control in asked]
    return out


def scripted_url(scripts: dict[str, Any]) -> Callable[[Any, str], str]:
    """The scripted endpoint's URL for one control; keys are `case\\0grader\\0control`."""

    def url_for(endpoint, key: str) -> str:
        case, grader, control = key.split("\0")
        return endpoint.control_url(scripts.get(case), grader, control)

    return url_for


def run_controls(
    sessions: Sequence[Session],
    scripted: bool,
    judge_model_option: str | None,
    say: Callable[[str], None],
    claude: str | None = None,
) -> list[ControlAnswer]:
    check_judge(sessions, scripted)
    asked = plan(sessions)
    model = resolve_judge_model(judge_model_option)
    say(
        f"controls: {len(asked)} control(s) to {model}"
        + (" (the scripted endpoint)" if scripted else "")
        + ", each asked as a run is (two votes, a third on a split)"
    )
    scripts = {case.name: script_of(root, case) for _, case, root in asked} if scripted else {}
    client_for, stop = command_judge_client(scripted_url(scripts) if scripted else None, claude)
    judge = Judge(model, client_for)
    try:
        results = [controls.ask(judge, f"{c.case}\0{c.grader}\0{c.control}", c) for c, _, _ in asked]
    finally:
        stop()
    return [answer(r) for r in results]


def answer(result: controls.ControlResult) -> ControlAnswer:
    """A control's result as calibrate's document holds it."""
    asked = result.control
    return ControlAnswer(
        asked.case,
        asked.grader,
        asked.type,
        asked.control,
        controls.CONTROL_TEXT[asked.control],
        result.passed,
        votes=list(result.votes),
        cost_usd=result.cost_usd,
        error=result.error,
    )
