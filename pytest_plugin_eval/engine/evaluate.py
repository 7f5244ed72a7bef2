"""One item's run, start to finish: the agent in a fresh workspace (again after an API error), the graders,
the kept artefacts, and the RunResult — paying what it costs into the ledger.

Whatever goes wrong in the harness itself (an exception while grading, keeping the artefacts, reading the trace)
ends the run as a run error of its own — `errorKind: "harness"`, the exception's type and message — not scored,
and never lost: the run is still reported and recorded. The session stopping while the run is graded leaves it
`interrupted`, like a run stopped while the agent worked."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.clock import now_iso
from ..core.kinds import Arm, ErrorKind
from ..core.prices import Usage
from ..grade.engine import GradingStopped, grade, graders_for
from ..results.efficiency import Tokens
from ..results.model import RunResult
from ..results.record import grader_results
from ..results.scoring import judge_cost, run_score
from ..run.agent import AgentStartError, missed_its_prompt
from ..run.artefacts import RunFolder
from ..run.execute import (
    RunPlan,
    StartedAgent,
    mock_calls_with_only,
    run_agent,
    skill_failures,
    unpriced_models,
)
from ..run.refusals import describe, refused_tools
from ..run.transcript import Transcript
from ..run.workspace import ScaffoldFailed, Workspace
from .ledger import CostLedger


@dataclass(frozen=True)
class Evaluation:
    """What grading and recording a run need besides its plan."""

    two_arm: bool  # indicators are left out of the score
    artefacts: RunFolder  # where its trace and files are kept
    workspace_base: Path | None = None  # where its throwaway workspace is made (the session's scratch folder)
    judge: Any = None  # the Judge for paid graders (None: the case has none)
    ledger: CostLedger | None = None  # the --max-cost-usd ledger
    attempts: int = 2  # whole-run attempts after API errors
    retry_pause: float = 5.0  # seconds before the second attempt (×2 before the third…)


def evaluate(plan: RunPlan, how: Evaluation, ready: StartedAgent | None = None) -> RunResult:
    """Run, and run again (fresh) after an API error, up to `how.attempts` times with a growing pause. The run
    costs what all its attempts cost. `ready`: the first attempt's agent, started ahead (engine/prestart.py)."""
    spent = 0.0
    for attempt in range(1, how.attempts + 1):
        result = attempt_run(plan, how, ready if attempt == 1 else None)
        result.attempts = attempt
        result.cost_usd += spent
        if result.error_kind != "api" or attempt == how.attempts:
            return result
        spent = result.cost_usd
        time.sleep(how.retry_pause * attempt)
    raise AssertionError("unreachable")


@dataclass
class Progress:
    """What an attempt has got to, for the record when it ends early: what it cost, where its trace went."""

    started_at: str
    started: float
    cost_usd: float = 0.0
    judge_cost_usd: float = 0.0
    trace_path: str | None = None


def attempt_run(plan: RunPlan, how: Evaluation, ready: StartedAgent | None = None) -> RunResult:
    """One attempt: a RunResult whatever happens in the harness (a BaseException — Ctrl-C in the main thread —
    still goes up). `ready`: its agent, already started and waiting for the prompt."""
    progress = Progress(now_iso(), time.monotonic())
    try:
        return _attempt(plan, how, progress, ready)
    except GradingStopped:
        return ended_early(
            plan, progress, "interrupted", "interrupted: the session was stopped while the run was graded"
        )
    except Exception as e:  # a harness bug or fault must not lose the run, nor pass for the plugin's failure
        return ended_early(plan, progress, "harness", harness_error(e))


def harness_error(error: Exception) -> str:
    """`harness error: OSError: [Errno 28] No space left on device (artefacts.py:62, in keep)`."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno}, in {frames[-1].name})" if frames else ""
    return f"harness error: {type(error).__name__}: {error}{where}"


def harness_result(arm: Arm, index: int, error: Exception) -> RunResult:
    """The record of a run whose harness failed before `attempt_run` could (for the session's own callers: a fault
    while planning the run, or in the pool)."""
    return RunResult(arm, index, score=None, passed=False, error=harness_error(error), error_kind="harness")


def tokens_of(transcript: Transcript) -> Tokens:
    """A run's tokens by kind over every model it used."""
    usage = sum(transcript.usage_by_model().values(), Usage())
    return Tokens(
        usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    )


def conversation_record(run) -> dict:
    """What the results document keeps of a conversation's user side (RunResult.conversation)."""
    return {
        "messages": [said.to_json() for said in run.said],
        "questions": [asked.to_json() for asked in run.asked],
        "userCostUsd": run.user_cost_usd,
        "userCapped": run.user_capped,
    }


def ended_early(plan: RunPlan, progress: Progress, kind: ErrorKind, message: str) -> RunResult:
    """A run the harness could not finish: not scored, with what it cost and the trace if it was kept."""
    return RunResult(
        plan.arm,
        plan.index,
        score=None,
        passed=False,
        cost_usd=progress.cost_usd + progress.judge_cost_usd,
        judge_cost_usd=progress.judge_cost_usd,
        duration_seconds=time.monotonic() - progress.started,
        started_at=progress.started_at,
        error=message,
        error_kind=kind,
        trace_path=progress.trace_path,
    )


def _attempt(plan: RunPlan, how: Evaluation, progress: Progress, ready: StartedAgent | None) -> RunResult:
    case, ledger = plan.case, how.ledger
    started_at, started = progress.started_at, progress.started
    ws = ready.workspace if ready is not None else Workspace.create(how.workspace_base)
    try:
        how.artefacts.path.mkdir(parents=True, exist_ok=True)
        try:
            run = ready.finish() if ready is not None else run_agent(plan, ws)
            if ready is not None and missed_its_prompt(run):
                # Claude Code stopped waiting for the prompt of a child started ahead (a loaded machine can hold
                # its event loop past the 3 s stdin timer): nothing reached the model, so the run is made afresh.
                ws.remove()
                ws = Workspace.create(how.workspace_base)
                run = run_agent(plan, ws)
        except AgentStartError as e:
            # A failed scaffold is a failed run (score 0); a harness that cannot start the agent scores nothing.
            scaffold = isinstance(e, ScaffoldFailed)
            return RunResult(
                plan.arm,
                plan.index,
                score=0.0 if scaffold else None,
                passed=False,
                started_at=started_at,
                error=str(e),
                error_kind="scaffold" if scaffold else "start",
                duration_seconds=time.monotonic() - started,
            )
        # The simulated user's replies are priced like judge calls, and belong to the run (a regrade keeps them).
        progress.cost_usd = run.cost_usd + run.user_cost_usd
        if ledger is not None:
            ledger.add(run.cost_usd + run.user_cost_usd)
        # A run that never reached the model says nothing about the plugin: it is not graded or scored.
        # A run a mock aborted is not graded either: it scores 0, and `aborted` says why.
        ungraded = (run.error is not None and run.error.ungraded) or run.aborted is not None
        within_budget = (lambda: not ledger.over()) if ledger is not None else (lambda: True)
        graders_run = graders_for(case.graders, plan.arm, how.two_arm, mock_calls_with_only(plan))
        graded = [] if ungraded else grade(graders_run, run, how.judge, within_budget, stop=plan.stop)
        graders = grader_results(graded)
        score = (0.0 if run.aborted else None) if ungraded else run_score(graders)
        judged = judge_cost(graders)
        progress.judge_cost_usd = judged
        if ledger is not None:
            ledger.add(judged)
        how.artefacts.keep(ws.trace, ws.stderr, ws.cwd, run.created_files, run.mock_calls)
        progress.trace_path = str(how.artefacts.trace)
        notes = [
            f"model {m} has no list price in Claude Code; its cost is estimated at the default model's price"
            for m in unpriced_models(run.transcript)
        ] + [f"{case.name}: {n}" for n in run.notes]
        if plan.arm in ("with", "against"):  # an ablation may leave out the very skill the agent calls
            notes += [f"{case.name}: {n}" for n in skill_failures(run.transcript)]
        error_kind: ErrorKind | None = run.error.kind if run.error else None
        error_text = run.error.message if run.error else None
        refused = refused_tools(run.transcript)
        if refused and error_kind is None and plan.settings.strict_tools and case.trigger is None:
            # --strict-tools: the run measured nothing the plugin did, so it is not scored (the session is partial).
            # A trigger run is decided by the skill it picks, whatever was refused on the way: left alone.
            error_kind, error_text, score = "tool_refused", f"--strict-tools: {describe(refused)}", None
        result = RunResult(
            plan.arm,
            plan.index,
            score=score,
            passed=score == 1.0,
            turns=run.transcript.num_turns,
            cost_usd=run.cost_usd + run.user_cost_usd + judged,
            judge_cost_usd=judged,
            duration_seconds=time.monotonic() - started,
            started_at=started_at,
            error=error_text,
            error_kind=error_kind,
            trace_path=str(how.artefacts.trace),
            graders=graders,
            skipped_paid_graders=any(g.skipped for g in graders),
            workspace=str(ws.root) if plan.settings.keep_temp else None,
            aborted=run.aborted,
            mocks=run.mocks,
            refused_tools=refused,
            tool_calls=len(run.transcript.tool_calls),
            tokens=tokens_of(run.transcript),
            agent_seconds=run.duration_seconds,
            conversation=conversation_record(run) if plan.talks else None,
        )
        result.notes = notes
        return result
    finally:
        if not plan.settings.keep_temp:
            ws.remove()
