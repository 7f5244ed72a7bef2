"""Unit tests for one item's run, start to finish (pytest_plugin_eval.engine.evaluate): workspace → run_agent →
graders → RunResult, the retries after API errors, the cost ledger and the kept artefacts.

No subprocess and no binary: `run_agent` is replaced by a fake that writes a trace into the workspace and returns
an AgentRun built around a Transcript of a few stream-json lines; `Workspace.create` is replaced by a factory of
real `Workspace` objects whose folders are made by hand (no `git init`)."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers.fakes import FakeJudge

from pytest_plugin_eval.engine import evaluate as execute
from pytest_plugin_eval.engine.evaluate import Evaluation, attempt_run, evaluate
from pytest_plugin_eval.engine.ledger import CostLedger
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import Case, load_case
from pytest_plugin_eval.run.agent import AgentStartError, RunError
from pytest_plugin_eval.run.artefacts import CREATED_FILES, MOCK_CALLS, RunFolder
from pytest_plugin_eval.run.execute import AgentRun, RunPlan, RunSettings
from pytest_plugin_eval.run.transcript import Transcript
from pytest_plugin_eval.run.workspace import ScaffoldFailed, Workspace

MODEL = "claude-sonnet-5-5"
REGEX_HELLO = "---\ntype: regex\npattern: hello\n---\n"
FILE_MADE = "---\ntype: file_exists\npath: out.txt\n---\n"
LLM_POLITE = "---\ntype: llm\n---\nThe answer is polite.\n"
SKILL_FIRED = "---\ntype: tool_used\ntool: Skill\n---\n"


# ---- the case ------------------------------------------------------------------------------------------------


def write_case(root: Path, graders: dict[str, str], name: str = "c") -> Case:
    """A plugin `p` under `root` with the case evals/<name>/ and its graders; loaded as the session loads it."""
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p", "version": "1.0.0"}))
    case_dir = plugin / "evals" / name
    (case_dir / "graders").mkdir(parents=True)
    (case_dir / "prompt.md").write_text("Say hello and write out.txt.\n")
    for grader, text in graders.items():
        (case_dir / "graders" / f"{grader}.md").write_text(text)
    return load_case(case_dir, plugin / "evals", grader_types())


@pytest.fixture
def case(tmp_path) -> Case:
    return write_case(tmp_path, {"says-hello": REGEX_HELLO, "made-file": FILE_MADE})


def plan_for(case: Case, arm: str = "with", index: int = 1, **settings) -> RunPlan:
    return RunPlan(
        case=case,
        arm=arm,
        index=index,
        settings=RunSettings(**settings),
        claude=Path("/nonexistent/claude"),
        environ={},
    )


# ---- the trace -----------------------------------------------------------------------------------------------


def trace_lines(
    text: str = "hello there",
    *,
    turns: int = 2,
    cost: float | None = 0.25,
    is_error: bool = False,
    subtype: str = "success",
    unpriced: tuple[str, ...] = (),
    **result,
) -> str:
    """A small stream-json trace: init, one assistant text block, one tool call, and the result line."""
    usage: dict[str, dict[str, object]] = {MODEL: {"inputTokens": 10, "outputTokens": 5, "costUSD": 0.25}}
    usage.update({m: {"inputTokens": 1, "outputTokens": 1, "costBasis": "unknown"} for m in unpriced})
    lines = [
        {"type": "system", "subtype": "init", "model": MODEL, "tools": ["Read"]},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "model": MODEL,
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.txt"}}],
            },
            "parent_tool_use_id": None,
        },
        {
            "type": "assistant",
            "message": {"id": "m2", "model": MODEL, "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": None,
        },
        {
            "type": "result",
            "subtype": subtype,
            "is_error": is_error,
            "num_turns": turns,
            "result": text,
            "modelUsage": usage,
            **({"total_cost_usd": cost} if cost is not None else {}),
            **result,
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


# ---- fakes ---------------------------------------------------------------------------------------------------


class Workspaces:
    """Stands in for Workspace.create: real Workspace objects under tmp_path, folders made by hand."""

    def __init__(self, base: Path):
        self.base = base
        self.made: list[Workspace] = []

    def create(self, base=None) -> Workspace:
        ws = Workspace(self.base / f"ws-{len(self.made) + 1}")
        for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
            folder.mkdir(parents=True)
        self.made.append(ws)
        return ws


class Agent:
    """Stands in for run_agent: each call takes the next outcome (an exception to raise, or the keyword arguments
    of `outcome`) and records the workspace it ran in."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.calls: list[tuple[RunPlan, Workspace]] = []

    def __call__(self, plan: RunPlan, ws: Workspace) -> AgentRun:
        self.calls.append((plan, ws))
        outcome = self.outcomes[min(len(self.calls), len(self.outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome_run(plan, ws, **outcome)


def outcome(
    *,
    trace: str | None = None,
    files: dict[str, str] | None = None,
    error: RunError | None = None,
    cost: float = 0.25,
    aborted: dict | None = None,
    mock_calls: tuple | None = None,
    notes: tuple[str, ...] = (),
    stderr: str = "warming up\n",
) -> dict:
    return dict(
        trace=trace_lines() if trace is None else trace,
        files=files if files is not None else {"out.txt": "x"},
        error=error,
        cost=cost,
        aborted=aborted,
        mock_calls=mock_calls,
        notes=notes,
        stderr=stderr,
    )


def outcome_run(plan, ws, *, trace, files, error, cost, aborted, mock_calls, notes, stderr) -> AgentRun:
    ws.trace.write_text(trace)
    ws.stderr.write_text(stderr)
    for rel, text in files.items():
        (ws.cwd / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws.cwd / rel).write_text(text)
    return AgentRun(
        transcript=Transcript(trace),
        cwd=ws.cwd,
        created_files=tuple(sorted(files)),
        arm=plan.arm,
        mock_calls=mock_calls,
        error=error,
        cost_usd=cost,
        workspace=ws,
        aborted=aborted,
        mocks={"servers": []} if mock_calls is not None else None,
        notes=notes,
    )


@pytest.fixture
def workspaces(tmp_path, monkeypatch) -> Workspaces:
    made = Workspaces(tmp_path / "workspaces")
    monkeypatch.setattr(execute, "Workspace", SimpleNamespace(create=made.create))
    return made


@pytest.fixture
def pauses(monkeypatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(execute, "time", SimpleNamespace(sleep=slept.append, monotonic=time.monotonic))
    return slept


def use_agent(monkeypatch, *outcomes) -> Agent:
    agent = Agent(*outcomes)
    monkeypatch.setattr(execute, "run_agent", agent)
    return agent


def evaluation(tmp_path, **kw) -> Evaluation:
    kw.setdefault("artefacts", RunFolder(tmp_path / "results" / "runs" / "c" / "with-1"))
    kw.setdefault("two_arm", False)
    return Evaluation(**kw)


API_ERROR = RunError("api", "exit 1: API Error: Repeated 529 Overloaded errors.", 529)


# ---- a graded run --------------------------------------------------------------------------------------------


def test_a_graded_run_is_scored_costed_and_its_artefacts_kept(tmp_path, case, workspaces, pauses, monkeypatch):
    calls = ({"tool": "mcp__s__t", "input": {"q": 1}, "output": "ok", "verdict": "ok"},)
    use_agent(monkeypatch, outcome(files={"out.txt": "written", "sub/b.txt": "b"}, mock_calls=calls, cost=0.25))
    how = evaluation(tmp_path)
    result = evaluate(plan_for(case), how)

    assert (result.arm, result.index, result.score, result.passed) == ("with", 1, 1.0, True)
    assert [(g.name, g.passed, g.scored, g.explanation) for g in result.graders] == [
        ("made-file", True, True, "out.txt exists as expected"),
        ("says-hello", True, True, "matched hello"),
    ]
    assert (result.turns, result.cost_usd, result.judge_cost_usd) == (2, 0.25, 0.0)
    assert (result.error, result.error_kind, result.attempts, result.aborted) == (None, None, 1, None)
    assert result.skipped_paid_graders is False
    assert result.mocks == {"servers": []}
    assert result.started_at.endswith("Z") and result.duration_seconds >= 0
    assert pauses == []
    # The artefacts are copied out of the workspace, which is removed.
    folder = how.artefacts
    assert result.trace_path == str(folder.trace)
    assert folder.trace.read_text() == trace_lines()
    assert folder.stderr.read_text() == "warming up\n"
    assert json.loads((folder.path / CREATED_FILES).read_text()) == ["out.txt", "sub/b.txt"]
    assert (folder.files / "out.txt").read_text() == "written"
    assert (folder.files / "sub" / "b.txt").read_text() == "b"
    assert [json.loads(line) for line in (folder.path / MOCK_CALLS).read_text().splitlines()] == list(calls)
    assert result.workspace is None
    assert [ws.root.exists() for ws in workspaces.made] == [False]


def test_a_run_without_mock_calls_keeps_no_mock_calls_file(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome())
    how = evaluation(tmp_path)
    evaluate(plan_for(case), how)
    assert sorted(p.name for p in how.artefacts.path.iterdir()) == [
        "created-files.json",
        "files",
        "stderr.txt",
        "trace.jsonl",
    ]


def test_a_failing_grader_lowers_the_score_by_its_weight(tmp_path, workspaces, pauses, monkeypatch):
    case = write_case(
        tmp_path, {"says-hello": "---\ntype: regex\npattern: hello\nweight: 3\n---\n", "made-file": FILE_MADE}
    )
    use_agent(monkeypatch, outcome(files={}))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert result.score == 0.75 and result.passed is False
    assert [(g.name, g.passed, g.weight) for g in result.graders] == [("made-file", False, 1), ("says-hello", True, 3)]
    assert [g.name for g in result.failing] == ["made-file"]


def test_the_turns_come_from_the_result_line(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(trace=trace_lines(turns=7)))
    assert evaluate(plan_for(case), evaluation(tmp_path)).turns == 7


def test_an_agent_error_that_reached_the_model_is_graded(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(error=RunError("timeout", "timed out after 300s")))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert (result.error_kind, result.error, result.score, result.attempts) == (
        "timeout",
        "timed out after 300s",
        1.0,
        1,
    )
    assert len(result.graders) == 2
    assert pauses == []


# ---- API errors: the run again, fresh, after a growing pause ---------------------------------------------------


def test_an_api_error_is_retried_up_to_attempts_with_growing_pauses(tmp_path, case, workspaces, pauses, monkeypatch):
    agent = use_agent(monkeypatch, outcome(error=API_ERROR, cost=0.01))
    result = evaluate(plan_for(case), evaluation(tmp_path, attempts=4, retry_pause=5.0))
    assert len(agent.calls) == 4
    assert pauses == [5.0, 10.0, 15.0]
    assert (result.attempts, result.error_kind, result.error) == (4, "api", API_ERROR.message)
    assert (result.score, result.passed, result.graders) == (None, False, [])
    # Each attempt gets its own fresh workspace, and each is removed.
    assert [ws for _, ws in agent.calls] == workspaces.made
    assert len({ws.root for ws in workspaces.made}) == 4
    assert not any(ws.root.exists() for ws in workspaces.made)
    assert result.to_json()["attempts"] == 4


def test_a_retry_that_succeeds_records_its_attempt(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(error=API_ERROR), outcome())
    result = evaluate(plan_for(case), evaluation(tmp_path, attempts=3, retry_pause=2.0))
    assert pauses == [2.0]
    assert (result.attempts, result.error_kind, result.score) == (2, None, 1.0)


def test_the_default_is_two_attempts_and_a_five_second_pause(tmp_path, case, workspaces, pauses, monkeypatch):
    agent = use_agent(monkeypatch, outcome(error=API_ERROR))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert (len(agent.calls), pauses, result.attempts) == (2, [5.0], 2)


def test_one_attempt_means_no_retry(tmp_path, case, workspaces, pauses, monkeypatch):
    agent = use_agent(monkeypatch, outcome(error=API_ERROR))
    result = evaluate(plan_for(case), evaluation(tmp_path, attempts=1))
    assert (len(agent.calls), pauses, result.attempts) == (1, [], 1)
    assert "attempts" not in result.to_json()


# ---- runs that are not graded ----------------------------------------------------------------------------------


def test_an_auth_error_is_not_graded_nor_retried(tmp_path, case, workspaces, pauses, monkeypatch):
    agent = use_agent(monkeypatch, outcome(error=RunError("auth", "exit 1: Not logged in", None), cost=0.0))
    how = evaluation(tmp_path, attempts=3)
    result = evaluate(plan_for(case), how)
    assert len(agent.calls) == 1 and pauses == []
    assert (result.score, result.passed, result.graders, result.error_kind) == (None, False, [], "auth")
    assert result.infrastructure_error
    # What it produced is still kept, for the operator to read.
    assert how.artefacts.trace.exists()
    assert result.trace_path == str(how.artefacts.trace)


def test_a_run_a_mock_aborted_scores_zero_ungraded(tmp_path, case, workspaces, pauses, monkeypatch):
    aborted = {"server": "s", "tool": "delete", "reason": "expect: violated"}
    use_agent(monkeypatch, outcome(aborted=aborted))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert (result.score, result.passed, result.graders, result.aborted) == (0.0, False, [], aborted)
    assert result.error is None and result.attempts == 1


def test_a_harness_that_cannot_start_the_agent_scores_nothing(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, AgentStartError("could not start /nonexistent/claude: No such file"))
    how = evaluation(tmp_path, attempts=3)
    result = evaluate(plan_for(case), how)
    assert (result.error_kind, result.score, result.passed) == ("start", None, False)
    assert result.error == "could not start /nonexistent/claude: No such file"
    assert (result.graders, result.trace_path, result.attempts) == ([], None, 1)
    assert pauses == []
    assert how.artefacts.path.is_dir() and not how.artefacts.trace.exists()
    assert not workspaces.made[0].root.exists()


def test_a_failed_scaffold_is_a_failed_run(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, ScaffoldFailed("scaffold failed (exit 3): boom"))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert (result.error_kind, result.score, result.passed, result.error) == (
        "scaffold",
        0.0,
        False,
        "scaffold failed (exit 3): boom",
    )


def test_a_start_error_is_not_charged_to_the_ledger(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, AgentStartError("no sandbox"))
    ledger = CostLedger(tmp_path / "ledger.sqlite", 1.0)
    evaluate(plan_for(case), evaluation(tmp_path, ledger=ledger))
    assert ledger.spent() == 0.0


# ---- the judge and the ledger ----------------------------------------------------------------------------------


def test_a_paid_grader_adds_the_judge_cost(tmp_path, workspaces, pauses, monkeypatch):
    case = write_case(tmp_path, {"says-hello": REGEX_HELLO, "polite": LLM_POLITE})
    use_agent(monkeypatch, outcome(cost=0.25))
    judge = FakeJudge(cost=0.004)
    ledger = CostLedger(tmp_path / "ledger.sqlite", 10.0)
    result = evaluate(plan_for(case), evaluation(tmp_path, judge=judge, ledger=ledger))
    assert judge.asked == ["polite"]
    polite = next(g for g in result.graders if g.name == "polite")
    assert (polite.passed, polite.cost_usd, polite.judge_model, polite.judge_votes) == (
        True,
        0.004,
        "claude-haiku-5-5",
        [True, True],
    )
    assert polite.evidence == "hello there"
    assert result.judge_cost_usd == pytest.approx(0.004)
    assert result.cost_usd == pytest.approx(0.254)
    assert ledger.spent() == pytest.approx(0.254)


def test_over_the_cap_after_the_agent_the_paid_graders_are_skipped(tmp_path, workspaces, pauses, monkeypatch):
    case = write_case(tmp_path, {"says-hello": REGEX_HELLO, "polite": LLM_POLITE})
    use_agent(monkeypatch, outcome(cost=0.5))
    judge = FakeJudge(votes=(False, False))
    ledger = CostLedger(tmp_path / "ledger.sqlite", 0.4)
    result = evaluate(plan_for(case), evaluation(tmp_path, judge=judge, ledger=ledger))
    assert judge.asked == []
    polite = next(g for g in result.graders if g.name == "polite")
    assert (polite.skipped, polite.scored, polite.passed, polite.explanation) == (
        True,
        False,
        False,
        "skipped: cost ceiling",
    )
    assert result.skipped_paid_graders is True
    # The skipped grader is left out of the score: the free one alone decides.
    assert (result.score, result.passed) == (1.0, True)
    assert (result.judge_cost_usd, result.cost_usd) == (0.0, 0.5)
    assert ledger.spent() == pytest.approx(0.5)


def test_at_the_cap_exactly_the_paid_graders_still_run(tmp_path, workspaces, pauses, monkeypatch):
    case = write_case(tmp_path, {"polite": LLM_POLITE})
    use_agent(monkeypatch, outcome(cost=0.5))
    judge = FakeJudge(cost=0.01)
    ledger = CostLedger(tmp_path / "ledger.sqlite", 0.5)
    result = evaluate(plan_for(case), evaluation(tmp_path, judge=judge, ledger=ledger))
    assert judge.asked == ["polite"] and result.skipped_paid_graders is False
    assert ledger.spent() == pytest.approx(0.51)
    assert ledger.over()


def test_every_attempt_is_charged_to_the_ledger(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(error=API_ERROR, cost=0.1), outcome(error=API_ERROR, cost=0.1), outcome(cost=0.3))
    ledger = CostLedger(tmp_path / "ledger.sqlite", None)
    result = evaluate(plan_for(case), evaluation(tmp_path, ledger=ledger, attempts=3))
    # The run's cost is what all its attempts cost, as the ledger counts it.
    assert result.attempts == 3 and result.cost_usd == pytest.approx(0.5)
    assert ledger.spent() == pytest.approx(0.5)


# ---- two arms --------------------------------------------------------------------------------------------------


def test_an_indicator_is_reported_in_the_with_arm_and_not_run_without(tmp_path, workspaces, pauses, monkeypatch):
    case = write_case(tmp_path, {"says-hello": REGEX_HELLO, "skill-fired": SKILL_FIRED})
    use_agent(monkeypatch, outcome())
    with_run = evaluate(plan_for(case, "with"), evaluation(tmp_path, two_arm=True))
    without = evaluate(
        plan_for(case, "without", 2),
        evaluation(tmp_path, two_arm=True, artefacts=RunFolder(tmp_path / "results" / "runs" / "c" / "without-2")),
    )
    fired = next(g for g in with_run.graders if g.name == "skill-fired")
    assert (fired.passed, fired.with_only, fired.scored) == (False, True, False)
    assert with_run.score == 1.0
    assert (without.arm, without.index, [g.name for g in without.graders], without.score) == (
        "without",
        2,
        ["says-hello"],
        1.0,
    )


# ---- the workspace and the notes -------------------------------------------------------------------------------


def test_keep_temp_keeps_the_workspace_and_records_its_path(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome())
    result = evaluate(plan_for(case, keep_temp=True), evaluation(tmp_path))
    root = workspaces.made[0].root
    assert result.workspace == str(root)
    assert (root / "home" / "cwd" / "out.txt").read_text() == "x"
    assert result.to_json()["workspace"] == str(root)


def test_notes_name_unpriced_models_and_the_runs_own_notes(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(trace=trace_lines(unpriced=("claude-new-9",)), notes=("mocks: s has no mock",)))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert result.notes == [
        "model claude-new-9 has no list price in Claude Code; its cost is estimated at the default model's price",
        "c: mocks: s has no mock",
    ]
    assert "notes" not in result.to_json()


def test_a_priced_run_has_no_notes(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome())
    assert evaluate(plan_for(case), evaluation(tmp_path)).notes == []


def test_attempt_run_alone_leaves_attempts_at_one(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(error=API_ERROR))
    result = attempt_run(plan_for(case), evaluation(tmp_path, attempts=5))
    assert (result.attempts, result.error_kind) == (1, "api")
    assert pauses == []


def test_a_retried_run_keeps_only_the_last_attempts_files(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(error=API_ERROR, files={"draft.txt": "half done"}), outcome(files={"out.txt": "x"}))
    how = evaluation(tmp_path, attempts=2)
    result = evaluate(plan_for(case), how)
    assert result.attempts == 2
    assert json.loads((how.artefacts.path / CREATED_FILES).read_text()) == ["out.txt"]
    assert sorted(p.name for p in how.artefacts.files.iterdir()) == ["out.txt"]


# ---- the harness failing -------------------------------------------------------------------------------------


def test_an_exception_while_grading_is_a_harness_error_not_a_lost_run(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(cost=0.25))

    def broken_grade(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(execute, "grade", broken_grade)
    result = evaluate(plan_for(case), evaluation(tmp_path, attempts=3))
    assert (result.error_kind, result.score, result.passed, result.attempts) == ("harness", None, False, 1)
    assert result.error.startswith("harness error: RuntimeError: boom (test_evaluate.py:")
    assert result.error.endswith(", in broken_grade)")
    assert result.cost_usd == 0.25 and result.graders == []  # what the agent cost is still counted
    assert result.to_json()["errorKind"] == "harness"
    assert pauses == []  # not retried: the harness, not the API
    assert not workspaces.made[0].root.exists()  # and the workspace is still removed


def test_an_exception_while_keeping_the_artefacts_is_a_harness_error(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome())

    def full_disk(self, *args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunFolder, "keep", full_disk)
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert result.error_kind == "harness" and result.score is None
    assert result.error == (
        "harness error: OSError: [Errno 28] No space left on device (test_evaluate.py:"
        f"{full_disk.__code__.co_firstlineno + 1}, in full_disk)"
    )
    assert result.trace_path is None  # never kept


def test_a_workspace_that_cannot_be_made_is_a_harness_error(tmp_path, case, pauses, monkeypatch):
    def no_workspace(base=None):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(execute, "Workspace", SimpleNamespace(create=no_workspace))
    result = attempt_run(plan_for(case), evaluation(tmp_path))
    assert result.error_kind == "harness" and result.error.startswith("harness error: PermissionError: ")


def test_the_session_stopping_while_a_run_is_graded_leaves_it_interrupted(
    tmp_path, case, workspaces, pauses, monkeypatch
):
    use_agent(monkeypatch, outcome(cost=0.25))
    stop = threading.Event()
    real_grade = execute.grade

    def stop_then_grade(*args, **kwargs):
        stop.set()  # Ctrl-C or SIGTERM arrives as grading starts
        return real_grade(*args, **kwargs)

    monkeypatch.setattr(execute, "grade", stop_then_grade)
    plan = dataclasses.replace(plan_for(case), stop=stop)
    result = evaluate(plan, evaluation(tmp_path))
    assert (result.error_kind, result.score, result.graders) == ("interrupted", None, [])
    assert result.error == "interrupted: the session was stopped while the run was graded"
    assert result.cost_usd == 0.25


def test_a_keyboard_interrupt_still_goes_up(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        evaluate(plan_for(case), evaluation(tmp_path))


def test_a_harness_result_for_the_sessions_own_callers():
    try:
        raise ValueError("no judge")
    except ValueError as e:
        result = execute.harness_result("without", 2, e)
    assert (result.arm, result.index, result.score, result.passed, result.error_kind) == (
        "without",
        2,
        None,
        False,
        "harness",
    )
    assert result.error.startswith("harness error: ValueError: no judge (test_evaluate.py:")


# ---- a run started ahead ------------------------------------------------------------------------------------


class StartedAhead:
    """Stands in for a StartedAgent: its child's run ends as `outcome` says, in its own workspace."""

    def __init__(self, plan, ws, **kw):
        self.plan, self.workspace, self.kw = plan, ws, kw

    def finish(self) -> AgentRun:
        return outcome_run(self.plan, self.workspace, **outcome(**self.kw))


NO_PROMPT = RunError("crash", "exit 1: Error: Input must be provided either through stdin or as a prompt argument")


def test_a_child_started_ahead_that_stopped_waiting_for_its_prompt_is_replaced_by_a_fresh_run(
    tmp_path, case, workspaces, pauses, monkeypatch
):
    agent = use_agent(monkeypatch, outcome(cost=0.25))
    plan = plan_for(case)
    ahead = StartedAhead(plan, workspaces.create(), error=NO_PROMPT, cost=0.0)
    result = evaluate(plan, evaluation(tmp_path), ahead)
    assert (result.error, result.score, result.attempts) == (None, 1.0, 1)  # not a crash of the case, nor a retry
    assert len(agent.calls) == 1 and agent.calls[0][1] is not ahead.workspace  # made afresh, elsewhere
    assert not ahead.workspace.root.exists()


def test_a_child_started_ahead_that_crashed_otherwise_is_the_runs_crash(
    tmp_path, case, workspaces, pauses, monkeypatch
):
    agent = use_agent(monkeypatch, outcome())
    plan = plan_for(case)
    crash = RunError("crash", "exit 1: Segmentation fault")
    result = evaluate(plan, evaluation(tmp_path), StartedAhead(plan, workspaces.create(), error=crash))
    assert result.error_kind == "crash" and agent.calls == []


# ---- refused tools (--strict-tools) ---------------------------------------------------------------------------

NOT_GRANTED = (
    "<tool_use_error>Error: No such tool available: Write. Write is disabled for this session</tool_use_error>"
)


def refused_trace() -> str:
    """trace_lines with a Write call that Claude Code refused before the answer."""
    lines = [json.loads(line) for line in trace_lines().splitlines()]
    use = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "out.txt", "content": "x"}}
    refused = {"type": "tool_result", "tool_use_id": "w1", "is_error": True, "content": NOT_GRANTED}
    lines[1:1] = [
        {"type": "assistant", "message": {"id": "m0", "model": MODEL, "content": [use]}, "parent_tool_use_id": None},
        {"type": "user", "message": {"role": "user", "content": [refused]}, "parent_tool_use_id": None},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_refused_tool_is_recorded_and_the_run_still_scored(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(trace=refused_trace()))
    result = evaluate(plan_for(case), evaluation(tmp_path))
    assert result.refused_tools == [{"tool": "Write", "why": "not granted"}]
    assert (result.score, result.error_kind) == (1.0, None)


def test_strict_tools_makes_a_refused_run_an_error(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome(trace=refused_trace()))
    result = evaluate(plan_for(case, strict_tools=True), evaluation(tmp_path))
    assert (result.score, result.passed, result.error_kind) == (None, False, "tool_refused")
    assert result.error == "--strict-tools: Write refused ×1 (not granted)"
    assert result.graders  # graded all the same, for the report: only the score is withheld


def test_strict_tools_leaves_a_run_nothing_was_refused_alone(tmp_path, case, workspaces, pauses, monkeypatch):
    use_agent(monkeypatch, outcome())
    result = evaluate(plan_for(case, strict_tools=True), evaluation(tmp_path))
    assert (result.score, result.error_kind, result.refused_tools) == (1.0, None, [])
