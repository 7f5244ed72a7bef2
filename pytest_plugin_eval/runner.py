"""One run of one case in one arm: workspace → agent → transcript → graders → RunResult."""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import cost, permissions, scoring
from .cost import CostLedger
from .agent import AgentCommand, AgentStartError, RunError, classify, run_child
from .case import Case
from .graders import GradeContext, GraderSpec, Verdict
from .options import EvalOptions
from .regrade import CREATED_FILES, MOCK_CALLS
from .results import GraderOutcome, RunResult, now_iso
from .transcript import RunOutput, Transcript
from .mocks.plan import MockPlan, first_abort, grader_view, plan_mocks, read_calls, run_summary, write_configs
from .target import plugin_at
from .workspace import ScaffoldFailed, Workspace

MAX_COPIED_BYTES = 20 * 1024 * 1024  # created files kept per run, in total


@dataclass(frozen=True)
class RunPlan:
    case: Case
    arm: str                 # "with" | "without"
    index: int               # 1-based
    two_arm: bool
    options: EvalOptions
    claude: Path
    artefacts: Path          # where this run's trace and files are kept
    base_url: Callable[[Path], str] | None = None  # cwd → this run's model endpoint (scripted); None: inherited
    judge: object = None          # the Judge for paid graders (None: the case has none)
    mock_agent: dict | None = None    # model settings for agent mocks: {model, baseUrl, prices}
    record_dir: Path | None = None    # where agent mocks record their answers
    ledger: CostLedger | None = None  # the --max-cost-usd ledger
    attempts: int = 2             # whole-run attempts after API errors
    retry_pause: float = 5.0      # seconds before the second attempt (×2 before the third…)
    environ: dict = field(default_factory=lambda: dict(os.environ))

    @property
    def model(self) -> str | None:
        return self.options.model or self.case.model


def run_folders(plan: RunPlan, ws: Workspace) -> permissions.RunFolders:
    case = plan.case
    return permissions.RunFolders(home=ws.home, cwd=ws.cwd, tmp=ws.tmp, config=ws.config, out=ws.out,
                                  plugin=case.plugin_dirs[0] if case.plugin_dirs else None, case_dir=case.dir,
                                  eval_root=case.eval_root, add_dirs=case.context.add_dirs)


def stage(plan: RunPlan, ws: Workspace) -> None:
    """Prepare the workspace before the child starts: the case's context (a resumed history, the scaffold script
    with --scaffold), and the OS sandbox for a granted shell."""
    context = plan.case.context
    if context.history_file is not None:
        shutil.copyfile(context.history_file, ws.history)
    if context.scaffold_script is not None and plan.options.scaffold:
        ws.run_scaffold(context.scaffold_script)
    if permissions.shell_granted(plan.options.allow_tools):
        problem = permissions.sandbox_missing()
        if problem:
            raise AgentStartError(problem)
        folders = run_folders(plan, ws)
        ws.write_settings(sandbox=permissions.sandbox_settings(folders, plan.case.plugin_dirs, Path.home()))


def stand_ins(plan: RunPlan, ws: Workspace) -> MockPlan | None:
    """The run's MCP stand-ins (None with --mocks off: every real server starts), their configs written."""
    if plan.options.mocks != "record":
        return None
    # The plugins' declared servers matter in both arms: without the plugin, their mocks are simply not served.
    plugins = {plugin_at(folder).name: folder for folder in plan.case.plugin_dirs}
    mock_plan = plan_mocks(plan.case.mocks, plugins, plan.arm, allow_real_servers=plan.options.allow_real_servers)
    if mock_plan.active:
        write_configs(mock_plan, ws.out, plan.mock_agent, plan.record_dir, env={})
    return mock_plan


def build_argv(plan: RunPlan, ws: Workspace, mock_plan: MockPlan | None = None) -> list[str]:
    case, options = plan.case, plan.options
    argv = [str(plan.claude), "-p", "--output-format", "stream-json", "--verbose",
            "--max-turns", str(case.max_turns), "--permission-mode", "dontAsk", "--setting-sources", "user"]
    if plan.model:
        argv.append(f"--model={plan.model}")
    if plan.arm == "with":
        for folder in case.plugin_dirs:
            argv += ["--plugin-dir", str(folder)]
    folders = run_folders(plan, ws)
    allowed = permissions.allowed_tools(case.allowed_tools, options.allow_tools, folders)
    allowed += [f"{tool}(/{folder}/**)" for folder in case.context.add_dirs for tool in permissions.PATH_READERS]
    if mock_plan is not None and mock_plan.active:
        allowed += mock_plan.granted_tools()  # mocked tools are safe: they only answer from the mock files
    if allowed:
        argv.append("--allowed-tools=" + ",".join(allowed))
    removed = tuple(dict.fromkeys(case.disallowed_tools + options.disallow_tools))
    argv.append("--disallowed-tools=" + ",".join(permissions.disallowed_tools(options.allow_tools, removed, folders)))
    for folder in case.context.add_dirs:
        argv += ["--add-dir", str(folder)]  # the agent is told where its fixture folders are
    if case.context.history_file is not None:
        argv += ["--resume", str(ws.history)]
    if mock_plan is not None and mock_plan.active:
        argv.append(f"--mcp-config={ws.out / 'mcp-config.json'}")
    if case.append_system_prompt:
        argv.append(f"--append-system-prompt={case.append_system_prompt}")
    return argv


def grade(graders: list[tuple[GraderSpec, bool]], output: RunOutput, judge=None,
          judge_allowed: Callable[[], bool] = lambda: True) -> list[GraderOutcome]:
    """Evaluate each grader; a grader that raises is a failed grader with the error as its explanation."""
    outcomes = []
    for spec, indicator in graders:
        if spec.kind.paid and not judge_allowed():
            verdict = Verdict(False, "skipped: cost ceiling", skipped=True)
        else:
            try:
                verdict = spec.kind.grade(spec.config, output, GradeContext(spec.name, judge))
            except Exception as e:  # a grader bug must not lose the run
                verdict = Verdict(False, f"grader error: {type(e).__name__}: {e}")
        details = dict(verdict.details)
        if verdict.cost_usd:
            details["costUsd"] = verdict.cost_usd
        if verdict.errored:
            details["errored"] = True
        if verdict.skipped:
            details["skipped"] = True
        counts = not indicator and not verdict.errored and not verdict.skipped
        outcomes.append(GraderOutcome(spec.name, verdict.passed, spec.weight, verdict.explanation, indicator,
                                      counts, details))
    return outcomes


def score_of(outcomes: list[GraderOutcome]) -> float | None:
    """A graded run's score: the weighted share of its counted graders that passed."""
    return scoring.run_score([scoring.Scored(o.weight, o.passed, o.scored) for o in outcomes])


def judge_cost_of(outcomes: list[GraderOutcome]) -> float:
    return sum(o.details.get("costUsd", 0.0) for o in outcomes)


def _copy_created(ws: Workspace, files: list[str], dest: Path) -> None:
    budget = MAX_COPIED_BYTES
    for rel in files:
        src = ws.cwd / rel
        try:
            size = src.lstat().st_size
            if src.is_symlink() or size > budget:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            budget -= size
        except OSError:
            continue


def agent_cost(transcript: Transcript, model: str | None) -> float:
    """Claude Code's own total when the child finished; otherwise priced from the usage it streamed."""
    result = transcript.result
    if result is not None and isinstance(result.get("total_cost_usd"), (int, float)):
        return float(result["total_cost_usd"])
    return sum(cost.price(model, usage) for usage in transcript.usage_by_model().values())


def unpriced_models(transcript: Transcript) -> list[str]:
    """Models Claude Code had no list price for (it prices them as its default model)."""
    usage = (transcript.result or {}).get("modelUsage") or {}
    return [model for model, data in usage.items() if isinstance(data, dict) and data.get("costBasis") == "unknown"]


# Bounded retries (the child's own, then a whole run again) instead of Claude Code's ten retries over
# minutes: a throttled API becomes an infrastructure error in seconds, not a regression after an hour.
CHILD_DEFAULTS = {
    "CLAUDE_CODE_MAX_RETRIES": "3",                  # per request; Claude Code honours retry-after
    "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS": "90000",   # a stream silent this long is dropped and retried
}


def child_env(plan: RunPlan, ws: Workspace) -> dict[str, str]:
    env = ws.agent_env(plan.environ, dict(plan.case.env))
    for name, value in CHILD_DEFAULTS.items():
        env.setdefault(name, value)
    if plan.base_url:
        env["ANTHROPIC_BASE_URL"] = plan.base_url(ws.cwd)
        env.setdefault("ANTHROPIC_API_KEY", "scripted")
    return env


def execute(plan: RunPlan) -> RunResult:
    """Run, and run again (fresh) after an API error, up to `plan.attempts` times with a growing pause."""
    for attempt in range(1, plan.attempts + 1):
        result = attempt_run(plan)
        result.attempts = attempt
        if result.error_kind != "api" or attempt == plan.attempts:
            return result
        time.sleep(plan.retry_pause * attempt)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class AgentRun(RunOutput):
    """A finished agent run whose workspace is still on disk: what graders read, and what the `eval_agent`
    fixture hands to a Python test (error, cost and the workspace besides the RunOutput views)."""
    error: RunError | None = None
    cost_usd: float = 0.0
    workspace: Workspace | None = None
    started_at: str = ""
    duration_seconds: float = 0.0
    judge: object = None  # for assert_llm/assert_baseline on runs of the eval_agent fixture
    aborted: dict | None = None       # {server, tool, reason}: a mock stopped the run
    mocks: dict | None = None         # the run's mock summary (servers, warnings, calls)
    notes: tuple[str, ...] = ()

    @property
    def trace_path(self) -> Path | None:
        return self.workspace.trace if self.workspace else None


def run_agent(plan: RunPlan, ws: Workspace) -> AgentRun:
    """Run the child in `ws` and read what it produced. Raises AgentStartError when it cannot start."""
    case = plan.case
    started_at, started = now_iso(), time.monotonic()
    stage(plan, ws)
    mock_plan = stand_ins(plan, ws)
    active = mock_plan is not None and mock_plan.active
    before = ws.files()
    command = AgentCommand(tuple(build_argv(plan, ws, mock_plan)), child_env(plan, ws), ws.cwd, case.prompt,
                           case.timeout_seconds)
    # A mock's expect: violation (or an agent mock's ABORT:) stops the run at once.
    watch = (lambda: first_abort(read_calls(ws.out))) if active else None
    try:
        exit_ = run_child(command, ws.trace, ws.out / "stderr.txt", watch)
    except OSError as e:
        raise AgentStartError(f"could not start {plan.claude}: {e}") from None
    transcript = Transcript.from_file(ws.trace)
    calls = read_calls(ws.out) if active else []
    warnings = mock_warnings(mock_plan)
    summary = run_summary(mock_plan, calls, transcript.tool_calls, warnings) if active else None
    mock_cost = summary["calls"]["costUsd"] if summary else 0.0
    return AgentRun(transcript=transcript, cwd=ws.cwd, created_files=tuple(ws.created_files(before)), arm=plan.arm,
                    mock_calls=grader_view(calls) if active else None,
                    error=classify(exit_, transcript, case.timeout_seconds),
                    cost_usd=agent_cost(transcript, plan.model) + mock_cost, workspace=ws, started_at=started_at,
                    duration_seconds=time.monotonic() - started, aborted=first_abort(calls), mocks=summary,
                    notes=tuple(warnings))


def mock_warnings(mock_plan: MockPlan | None) -> list[str]:
    if mock_plan is None:
        return []
    listed = [w for s in mock_plan.stand_ins if s.mocks for w in s.mocks.tool_listing()[1]]
    return [*mock_plan.notes, *listed]


def attempt_run(plan: RunPlan) -> RunResult:
    case, ledger = plan.case, plan.ledger
    started_at, started = now_iso(), time.monotonic()
    ws = Workspace.create()
    plan.artefacts.mkdir(parents=True, exist_ok=True)
    trace_copy = plan.artefacts / "trace.jsonl"
    try:
        try:
            run = run_agent(plan, ws)
        except AgentStartError as e:
            # A failed scaffold is a failed run (score 0); a harness that cannot start the agent scores nothing.
            scaffold = isinstance(e, ScaffoldFailed)
            return RunResult(case.name, case.rel_dir, plan.arm, plan.index, score=0.0 if scaffold else None,
                             passed=False, started_at=started_at, error=str(e),
                             error_kind="scaffold" if scaffold else "start",
                             duration_seconds=time.monotonic() - started)
        if ledger is not None:
            ledger.add(run.cost_usd)
        # A run that never reached the model says nothing about the plugin: it is not graded or scored.
        # A run a mock aborted is not graded either: it scores 0, and `aborted` says why.
        ungraded = (run.error is not None and run.error.infrastructure) or run.aborted is not None
        within_budget = (lambda: not ledger.over()) if ledger is not None else (lambda: True)
        graders = scoring.graders_for(case.graders, plan.arm, plan.two_arm)
        outcomes = [] if ungraded else grade(graders, run, plan.judge, within_budget)
        score = (0.0 if run.aborted else None) if ungraded else score_of(outcomes)
        judge_cost = judge_cost_of(outcomes)
        if ledger is not None:
            ledger.add(judge_cost)
        shutil.copyfile(ws.trace, trace_copy)
        shutil.copyfile(ws.out / "stderr.txt", plan.artefacts / "stderr.txt")
        _copy_created(ws, list(run.created_files), plan.artefacts / "files")
        (plan.artefacts / CREATED_FILES).write_text(json.dumps(list(run.created_files)))
        notes = [f"model {m} has no list price in Claude Code; its cost is estimated at the default model's price"
                 for m in unpriced_models(run.transcript)] + [f"{case.name}: {n}" for n in run.notes]
        if run.mock_calls is not None:
            (plan.artefacts / MOCK_CALLS).write_text(
                "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in run.mock_calls))
        error = run.error
        return RunResult(
            case=case.name, case_dir=case.rel_dir, arm=plan.arm, index=plan.index,
            score=score, passed=score == 1.0, turns=run.transcript.num_turns,
            cost_usd=run.cost_usd + judge_cost, judge_cost_usd=judge_cost,
            duration_seconds=time.monotonic() - started, started_at=started_at,
            error=error.message if error else None, error_kind=error.kind if error else None,
            trace_path=str(trace_copy), graders=outcomes,
            skipped_paid_graders=any(o.details.get("skipped") for o in outcomes),
            workspace=str(ws.root) if plan.options.keep_temp else None, notes=notes,
            aborted=run.aborted, mocks=run.mocks,
        )
    finally:
        if not plan.options.keep_temp:
            ws.remove()
