"""Unit tests for `--regrade` (pytest_plugin_eval.analysis.regrade): a results folder written by hand — its
document from the model objects, and the run folders with their trace, created files and mock calls — read back
by StoredResults, and its runs graded again with the case's current graders."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.analysis import regrade
from pytest_plugin_eval.analysis.baseline import Reuse
from pytest_plugin_eval.analysis.regrade import (
    MISSING,
    UNGRADED_KINDS,
    StoredResults,
    regrade_run,
    results_folder_problem,
)
from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.ledger import CostLedger
from pytest_plugin_eval.engine.reuse import BaselineReuse
from pytest_plugin_eval.grade.engine import grade, graders_for
from pytest_plugin_eval.grade.judge import Ballot
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import Case, load_case
from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import CaseResult, GraderInfo, GraderResult, RunResult, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.record import grader_results
from pytest_plugin_eval.results.store import ResultsFolder, write_json
from pytest_plugin_eval.run.artefacts import CREATED_FILES, MOCK_CALLS, RunFolder
from pytest_plugin_eval.run.output import Changes, RunOutput
from pytest_plugin_eval.run.transcript import Transcript
from pytest_plugin_eval.run.workspace import Workspace

GRADERS = {
    "says-hello": "---\ntype: regex\npattern: hello\n---\n",
    "made-file": "---\ntype: file_exists\npath: out.txt\n---\n",
    "file-content": "---\ntype: regex\npattern: ^content v2$\ntarget:\n  source: file\n  path: out.txt\n---\n",
    "called-lookup": "---\ntype: regex\npattern: lookup\ntarget: mock_calls\n---\n",
}


def trace(text: str) -> str:
    lines = [
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": text}]}},
        {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "total_cost_usd": 0.2},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


class Stored:
    """A plugin with the case evals/c, and a results folder evals/results/old/ written by hand."""

    def __init__(self, root: Path, graders: dict[str, str] | None = None):
        self.plugin = root / "plugin"
        (self.plugin / ".claude-plugin").mkdir(parents=True)
        (self.plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p"}))
        self.evals = self.plugin / "evals"
        self.case_dir = self.evals / "c"
        (self.case_dir / "graders").mkdir(parents=True)
        (self.case_dir / "prompt.md").write_text("Say hello and write out.txt.\n")
        self.set_graders(graders or GRADERS)
        self.results = ResultsFolder(self.evals / "results" / "old")
        self.runs: list[RunResult] = []

    def set_graders(self, graders: dict[str, str]) -> None:
        for file in (self.case_dir / "graders").glob("*.md"):
            file.unlink()
        for name, text in graders.items():
            (self.case_dir / "graders" / f"{name}.md").write_text(text)

    def case(self) -> Case:
        return load_case(self.case_dir, self.evals, grader_types())

    def add(
        self,
        run: RunResult,
        *,
        text: str | None = "hello",
        files: dict[str, str] | None = None,
        calls: list[dict] | None = None,
        trace_path: str | None = "kept",
    ) -> RunFolder:
        """A stored run and its folder. trace_path "kept": the document points at the run folder's trace."""
        folder = self.results.run_folder("c", run.arm, run.index)
        folder.path.mkdir(parents=True)
        if text is not None:
            folder.trace.write_text(trace(text))
        folder.stderr.write_text("stderr of the run\n")
        files = {"out.txt": "content v2"} if files is None else files
        for rel, content in files.items():
            (folder.files / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder.files / rel).write_text(content)
        (folder.path / CREATED_FILES).write_text(json.dumps(sorted(files)))
        if calls is not None:
            (folder.path / MOCK_CALLS).write_text("".join(json.dumps(c) + "\n" for c in calls))
        run.trace_path = str(folder.trace) if trace_path == "kept" else trace_path
        self.runs.append(run)
        return folder

    def write(self) -> Path:
        case = CaseResult(
            name="c",
            dir="evals/c",
            source="prose",
            prompt="Say hello and write out.txt.",
            runs_per_case=3,
            timeout_seconds=300,
            max_turns=10,
            graders=[GraderInfo("says-bye", "regex", 1, {"pattern": "bye"})],
            runs_per_arm=2,
        )
        for run in self.runs:
            case.arms.setdefault(run.arm, []).append(run)
        case = scoring.aggregate(case)
        document = SuiteResult(
            claude_version="2.1.300",
            started_at="2026-01-01T00:00:00.000Z",
            duration_seconds=9,
            suite=SuiteInfo(root=str(self.plugin), ablation="with-without"),
            cases=[case],
            aggregates=scoring.suite_aggregates([case], 1.0),
        )
        write_json(self.results.results_file, document.to_json())
        return self.results.path


OLD_GRADER = GraderResult("says-bye", False, 1, "pattern not found in last_message")
LOOKUP = {"tool": "mcp__s__lookup", "input": {"q": "x"}, "output": "found", "verdict": "ok"}


def graded_run(arm="with", index=1, score=0.0, cost=0.3, judge=0.05, **kw) -> RunResult:
    return RunResult(
        arm,
        index,
        score=score,
        passed=score == 1.0,
        turns=1,
        cost_usd=cost,
        judge_cost_usd=judge,
        started_at="2026-01-01T00:00:01.000Z",
        graders=[OLD_GRADER],
        **kw,
    )


@pytest.fixture
def stored(tmp_path) -> Stored:
    return Stored(tmp_path)


def new_folder(tmp_path, arm="with", index=1) -> RunFolder:
    return ResultsFolder(tmp_path / "new").run_folder("c", arm, index)


# ---- StoredResults -------------------------------------------------------------------------------------------


def test_stored_results_index_runs_by_case_arm_and_index(stored, tmp_path):
    kept = stored.add(graded_run("with", 2))
    stored.add(graded_run("without", 1))
    moved = stored.add(graded_run("with", 1), trace_path="/moved/away/runs/c/with-1/trace.jsonl")
    stored.add(graded_run("with", 3), trace_path=None)
    results = StoredResults(stored.write())
    assert results.document.claude_version == "2.1.300"
    expected = [RunId("evals/c", "with", 1), RunId("evals/c", "with", 2), RunId("evals/c", "with", 3)]
    expected.append(RunId("evals/c", "without", 1))
    assert sorted(results.runs) == expected
    assert results.runs_of("evals/c") == expected
    assert results.runs_of("evals/other") == []
    # Always the run's folder in this results folder, whatever the document's tracePath says.
    assert results.runs[RunId("evals/c", "with", 2)].folder == kept
    assert results.runs[RunId("evals/c", "with", 1)].folder.path == moved.path
    assert results.runs[RunId("evals/c", "with", 3)].folder.path == stored.results.path / "runs" / "c" / "with-3"
    assert results.runs[RunId("evals/c", "with", 2)].run.score == 0.0


def test_a_folder_without_a_document_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^--regrade .*: no aggregate-result.json there — name a results folder"):
        StoredResults(tmp_path)


def test_a_document_that_is_not_an_object_is_refused(tmp_path):
    (tmp_path / "aggregate-result.json").write_text("[1, 2]")
    with pytest.raises(
        ValueError, match=r"aggregate-result.json is not a results document \(the JSON is not an object\)"
    ):
        StoredResults(tmp_path)


def document(**case) -> dict:
    run = {"index": 1, "score": 1.0, "passed": True, "tracePath": None}
    base = {"name": "c", "dir": "evals/c", "arms": {"with": [run]}}
    return {"schemaVersion": 1, "suite": {"root": "/x"}, "cases": [{**base, **case}]}


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            '{"schemaVersion": "1", "cases": [{"name": "c", "arms": {"with": [{"score": 1',
            "is not valid JSON — truncated",
        ),
        ("", "is not valid JSON — truncated or damaged? (Expecting value: line 1 column 1 (char 0))"),
        ('"just a string"', "is not a results document (the JSON is not an object)"),
        ('{"cases": {"c": 1}}', "is not a results document: cases: must be a list (got an object)"),
        ('{"cases": [1]}', "is not a results document: cases[0]: must be an object (got a number)"),
        ('{"cases": [{"dir": "evals/c"}]}', "is not a results document: cases[0].name: missing"),
        (json.dumps(document(dir="../../etc")), "cases[0].dir: must be a folder relative to the suite, with no .."),
        (json.dumps(document(arms=[1])), "cases[0].arms: must be an object (got a list)"),
        (json.dumps(document(arms={"maybe": []})), "cases[0].arms: 'maybe' is not one of with, without"),
        (json.dumps(document(arms={"with": {}})), "cases[0].arms.with: must be a list (got an object)"),
        (json.dumps(document(arms={"with": ["run"]})), "cases[0].arms.with[0]: must be an object (got a string)"),
        (
            json.dumps(document(arms={"with": [{"index": "1"}]})),
            "cases[0].arms.with[0].index: must be a number (got a string)",
        ),
        (json.dumps(document(arms={"with": [{"score": "high"}]})), "with[0].score: must be a number (got a string)"),
        (json.dumps(document(arms={"with": [{"costUsd": [1]}]})), "with[0].costUsd: must be a number or null (got a"),
        (json.dumps(document(arms={"with": [{"tracePath": 3}]})), "with[0].tracePath: must be a string or null"),
        (json.dumps(document(arms={"with": [{"graders": [{"x": 1}]}]})), "with[0].graders[0].name: missing"),
        (json.dumps(document(arms={"with": [{"index": 1}, {"index": 1}]})), "with[1].index: run 1 of the with arm "),
        (json.dumps({"suites": [document()]}), "holds several suites"),
    ],
)
def test_a_document_that_is_not_a_results_document_says_what_is_wrong_and_where(tmp_path, text, problem):
    (tmp_path / "aggregate-result.json").write_text(text)
    found = results_folder_problem(tmp_path)
    assert found is not None and found.startswith("aggregate-result.json ") and problem in found
    with pytest.raises(ValueError) as info:
        StoredResults(tmp_path)
    assert str(info.value) == f"--regrade {tmp_path}: {found}"


def test_a_results_document_passes_the_check(stored):
    stored.add(graded_run())
    assert results_folder_problem(stored.write()) is None


def test_scripted_runs_are_regraded_with_scripted_judges_only(stored):
    stored.add(graded_run())
    folder = stored.write()
    data = json.loads((folder / "aggregate-result.json").read_text())
    data["suite"]["scripted"] = True
    (folder / "aggregate-result.json").write_text(json.dumps(data))
    assert "regrade them with --scripted too" in (results_folder_problem(folder, scripted=False) or "")
    assert results_folder_problem(folder, scripted=True) is None
    assert results_folder_problem(folder) is None  # the document itself is fine


# ---- regrade_run ---------------------------------------------------------------------------------------------


def test_a_changed_grader_gives_a_new_verdict(stored, tmp_path):
    stored.add(graded_run("with", 1, score=0.0), calls=[LOOKUP])
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert [(g.name, g.passed, g.scored) for g in result.graders] == [
        ("called-lookup", True, True),
        ("file-content", True, True),
        ("made-file", True, True),
        ("says-hello", True, True),
    ]
    assert (result.score, result.passed) == (1.0, True)
    assert (result.arm, result.index, result.turns, result.started_at) == ("with", 1, 1, "2026-01-01T00:00:01.000Z")


def test_a_regraded_run_reads_its_refused_tools_from_its_trace(stored, tmp_path):
    """A document written before refusedTools existed gets them on --regrade (the trace says them)."""
    folder = stored.add(graded_run("with", 1, score=0.0), calls=[LOOKUP])
    refused = {"type": "tool_result", "tool_use_id": "w1", "is_error": True, "content": "No such tool available: Write"}
    lines = [
        {"type": "assistant", "message": {"id": "m0", "content": [{"type": "tool_use", "id": "w1", "name": "Write"}]}},
        {"type": "user", "message": {"role": "user", "content": [refused]}},
    ]
    folder.trace.write_text("".join(json.dumps(line) + "\n" for line in lines) + folder.trace.read_text())
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert result.refused_tools == [{"tool": "Write", "why": "not granted"}]


def test_a_regraded_run_can_fail(stored, tmp_path):
    stored.add(graded_run("with", 1, score=1.0), text="goodbye", files={"out.txt": "content v1"})
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    verdicts = {g.name: (g.passed, g.explanation) for g in result.graders}
    assert verdicts == {
        "called-lookup": (
            False,
            "no mock stand-ins were active in this run (--mocks off, or no mocks/ directory "
            "applies to this case) — a mock_calls grader has nothing to check",
        ),
        "file-content": (False, 'pattern /^content v2$/ not found in file out.txt: "content v1"'),
        "made-file": (True, "out.txt exists as expected"),
        "says-hello": (False, 'pattern /hello/ not found in last_message: "goodbye"'),
    }
    assert (result.score, result.passed) == (0.25, False)


def shadow_mocks(stored: Stored) -> None:
    """The plugin declares server s, and the suite mocks it: its stand-in is served with the plugin only."""
    (stored.plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": {"command": "s"}}}))
    (stored.evals / "mocks" / "s").mkdir(parents=True)
    (stored.evals / "mocks" / "s" / "lookup.md").write_text("found\n")


SERVED = {"servers": [{"server": "s", "kind": "shadow", "tools": []}], "warnings": [], "calls": {}}


def test_the_without_arm_leaves_out_the_indicators_when_two_arm(stored, tmp_path):
    shadow_mocks(stored)
    stored.add(graded_run("with", 1, mocks=SERVED), calls=[LOOKUP])
    stored.add(graded_run("without", 1))
    results = StoredResults(stored.write())
    result = regrade_run(
        stored.case(), results.runs[RunId("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert [g.name for g in result.graders] == ["file-content", "made-file", "says-hello"]
    with_arm = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], True, None, new_folder(tmp_path))
    assert [(g.name, g.with_only) for g in with_arm.graders if g.name == "called-lookup"] == [("called-lookup", True)]


def test_mock_calls_graders_count_in_both_arms_as_they_did_in_the_run(stored, tmp_path):
    # No mocks apply (or a standalone one does): the run graded mock_calls in the without arm too; so does regrade.
    stored.add(graded_run("without", 1), calls=[LOOKUP])
    results = StoredResults(stored.write())
    result = regrade_run(
        stored.case(), results.runs[RunId("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert [(g.name, g.passed, g.with_only) for g in result.graders][0] == ("called-lookup", True, False)


def test_a_session_without_stand_ins_regrades_mock_calls_graders_in_both_arms(stored, tmp_path):
    # Shadowing mocks, but no run carries a mock summary: the session ran with --mocks off.
    shadow_mocks(stored)
    stored.add(graded_run("with", 1))
    stored.add(graded_run("without", 1))
    results = StoredResults(stored.write())
    assert results.runs[RunId("evals/c", "without", 1)].mocks_served is False
    result = regrade_run(
        stored.case(), results.runs[RunId("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert "called-lookup" in [g.name for g in result.graders]


def test_artefacts_are_copied_into_the_new_folder(stored, tmp_path):
    stored.add(graded_run(), files={"out.txt": "content v2", "sub/deep.txt": "d"}, calls=[LOOKUP])
    results = StoredResults(stored.write())
    target = new_folder(tmp_path)
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, target)
    assert result.trace_path == str(target.trace)
    assert target.trace.read_text() == trace("hello")
    assert json.loads((target.path / CREATED_FILES).read_text()) == ["out.txt", "sub/deep.txt"]
    assert (target.files / "sub" / "deep.txt").read_text() == "d"
    assert target.mock_calls() == (LOOKUP,)
    # The stored folder is left as it was.
    assert (stored.results.run_folder("c", "with", 1).files / "out.txt").read_text() == "content v2"


def test_the_runs_stderr_is_copied_too(stored, tmp_path):
    stored.add(graded_run())
    results = StoredResults(stored.write())
    target = new_folder(tmp_path)
    regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, target)
    assert target.stderr.read_text() == "stderr of the run\n"


def test_costs_keep_the_agents_and_recompute_the_judges(tmp_path):
    stored = Stored(tmp_path, {"says-hello": GRADERS["says-hello"], "polite": "---\ntype: llm\n---\nIs polite.\n"})
    stored.add(graded_run(cost=0.30, judge=0.05))
    results = StoredResults(stored.write())

    class Judge:
        model = "claude-haiku-5-5"

        def ballot(self, grader, content):
            return Ballot(votes=[True, False, True], cost_usd=0.012)

    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, Judge(), new_folder(tmp_path))
    polite = next(g for g in result.graders if g.name == "polite")
    assert (polite.passed, polite.judge_votes, polite.cost_usd) == (True, [True, False, True], 0.012)
    assert result.judge_cost_usd == pytest.approx(0.012)
    assert result.cost_usd == pytest.approx(0.25 + 0.012)


class CountingJudge:
    model = "claude-haiku-5-5"

    def __init__(self):
        self.asked = 0

    def ballot(self, grader, content):
        self.asked += 1
        return Ballot(votes=[True, True, True], cost_usd=0.012)


def polite_stored(tmp_path) -> Stored:
    stored = Stored(tmp_path, {"says-hello": GRADERS["says-hello"], "polite": "---\ntype: llm\n---\nIs polite.\n"})
    stored.add(graded_run(cost=0.30, judge=0.05))
    return stored


def test_past_the_cost_ceiling_a_regrade_begins_no_judge(tmp_path):
    """A reused run (--reuse-baseline) is regraded under the session's --max-cost-usd: its judges are skipped as a
    fresh run's are, never asked."""
    stored = polite_stored(tmp_path)
    results, judge = StoredResults(stored.write()), CountingJudge()
    run = results.runs[RunId("evals/c", "with", 1)]
    result = regrade_run(stored.case(), run, False, judge, new_folder(tmp_path), judge_allowed=lambda: False)
    polite = next(g for g in result.graders if g.name == "polite")
    assert (polite.skipped, polite.explanation, judge.asked) == (True, "skipped: cost ceiling", 0)
    assert (result.skipped_paid_graders, result.judge_cost_usd) == (True, 0.0)


def test_a_reused_run_is_regraded_under_the_sessions_ceiling(tmp_path):
    """engine/reuse hands the session's ledger to the regrade: over the ceiling, the stored run's judges are not
    asked; below it, they are."""
    stored = polite_stored(tmp_path)
    results = StoredResults(stored.write())
    case, run = stored.case(), RunId("evals/c", "without", 1)
    reuse = Reuse(results.runs[RunId("evals/c", "with", 1)], {"session": "s1"})
    for spent, asked in ((2.0, 0), (0.5, 1)):
        ledger = CostLedger(tmp_path / f"ledger-{spent}.sqlite", cap=1.0)
        ledger.add(spent)
        options = SimpleNamespace(reuse_baseline=True, ablation="with-without")
        session = SimpleNamespace(options=options, ledger=ledger, pool=SimpleNamespace(stopping=None), stored=None)
        baseline = BaselineReuse(session)
        baseline._conditions[(run.case_key, run.arm)] = {"prompt": "p"}
        judge = CountingJudge()
        result = baseline.regraded(case, run, reuse, judge, new_folder(tmp_path, "without", int(asked) + 1))
        assert (judge.asked, result.skipped_paid_graders) == (asked, not asked)


def test_without_paid_graders_the_judge_cost_drops_out(stored, tmp_path):
    stored.add(graded_run(cost=0.30, judge=0.05))
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.judge_cost_usd, result.cost_usd) == (0.0, pytest.approx(0.25))


def test_session_fields_are_reset(stored, tmp_path):
    stored.add(
        graded_run(
            attempts=3, reused=True, workspace="/tmp/claude-eval-x", skipped_paid_graders=True, extra={"futureField": 1}
        )
    )
    results = StoredResults(stored.write())
    assert results.runs[RunId("evals/c", "with", 1)].run.extra == {"futureField": 1}
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.attempts, result.reused, result.workspace, result.skipped_paid_graders, result.extra) == (
        1,
        False,
        None,
        False,
        {},
    )


@pytest.mark.parametrize("kind", UNGRADED_KINDS)
def test_runs_that_never_reached_the_model_stay_ungraded(stored, tmp_path, kind):
    score = 0.0 if kind == "scaffold" else None
    stored.add(graded_run(score=score, cost=0.02, judge=0.0, error=f"{kind} error", error_kind=kind))
    results = StoredResults(stored.write())
    target = new_folder(tmp_path)
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, target)
    assert (result.score, result.passed, result.graders) == (score, False, [])
    assert (result.error, result.error_kind, result.cost_usd, result.judge_cost_usd) == (
        f"{kind} error",
        kind,
        0.02,
        0.0,
    )
    assert target.trace.exists() and result.trace_path == str(target.trace)


def test_an_aborted_run_stays_at_zero(stored, tmp_path):
    aborted = {"server": "s", "tool": "delete", "reason": "expect: violated"}
    stored.add(graded_run(score=0.0, aborted=aborted))
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.graders, result.aborted) == (0.0, [], aborted)


@pytest.mark.parametrize("score", [0.0, 1.0])
def test_a_run_without_a_trace_is_a_missing_artefacts_error_not_a_score(stored, tmp_path, score):
    stored.add(graded_run(score=score), text=None)
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.passed, result.graders, result.trace_path) == (None, False, [], None)
    assert result.error_kind == MISSING == "missing_artefacts"
    assert result.error == "runs/c/with-1/trace.jsonl is missing — the run cannot be regraded"
    assert result.to_json()["errorKind"] == "missing_artefacts"


def test_a_folder_whose_runs_are_gone_regrades_nothing_as_passed(stored, tmp_path):
    for index in (1, 2):
        stored.add(graded_run("with", index, score=1.0))
    folder = stored.write()
    shutil.rmtree(folder / "runs")
    results = StoredResults(folder)
    regraded = [
        regrade_run(
            stored.case(), results.runs[RunId("evals/c", "with", i)], False, None, new_folder(tmp_path, index=i)
        )
        for i in (1, 2)
    ]
    assert [(r.score, r.error_kind) for r in regraded] == [(None, MISSING)] * 2


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            "\x00\x01garbage that is no trace\n",
            "runs/c/with-1/trace.jsonl is not a Claude Code trace: line 1 is not a JSON object",
        ),
        (
            '{"type": "system"}\nnot json\n{"type": "result"}\n',
            "is not a Claude Code trace: line 2 is not a JSON object",
        ),
        ("[1, 2]\n", "is not a Claude Code trace: line 1 is not a JSON object"),
        ("", "runs/c/with-1/trace.jsonl is empty"),
    ],
)
def test_a_corrupt_trace_is_a_missing_artefacts_error_not_the_plugins_failure(stored, tmp_path, text, problem):
    folder = stored.add(graded_run(score=1.0))
    folder.trace.write_text(text)
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.error_kind, result.graders) == (None, MISSING, [])
    assert problem in result.error


def test_half_a_last_line_of_a_run_stopped_mid_write_is_still_graded(stored, tmp_path):
    folder = stored.add(graded_run(score=0.0, error="timed out after 300s", error_kind="timeout"))
    folder.trace.write_text(trace("hello") + '{"type": "assist')
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert result.error_kind == "timeout" and result.score == 0.75  # called-lookup: no stand-ins in this run


def test_unreadable_kept_files_are_a_missing_artefacts_error(stored, tmp_path):
    folder = stored.add(graded_run(), calls=[LOOKUP])
    (folder.path / MOCK_CALLS).write_text('{"tool": "x"\n')
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert result.error_kind == MISSING
    assert result.error.startswith("its kept files cannot be read (JSONDecodeError: ")


def test_a_copied_results_folder_regrades_its_own_runs(stored, tmp_path):
    stored.add(graded_run(score=1.0), text="hello")
    original = stored.write()
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    (copy / "runs" / "c" / "with-1" / "trace.jsonl").write_text(trace("goodbye"))  # the copy is what counts
    results = StoredResults(copy)
    run = results.runs[RunId("evals/c", "with", 1)]
    assert run.run.trace_path == str(original / "runs" / "c" / "with-1" / "trace.jsonl")  # as the document has it
    assert run.folder.path == copy / "runs" / "c" / "with-1"
    result = regrade_run(stored.case(), run, False, None, new_folder(tmp_path))
    assert {g.name: g.passed for g in result.graders}["says-hello"] is False
    shutil.rmtree(original)  # and the original may be gone altogether
    again = regrade_run(
        stored.case(), StoredResults(copy).runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path)
    )
    assert again.error_kind is None and again.score == result.score


def test_a_nested_eval_dir_finds_its_runs_under_the_case_folder_below_it(tmp_path):
    folder = ResultsFolder(tmp_path / "results")
    kept = folder.run_folder("group/c", "with", 1)
    kept.path.mkdir(parents=True)
    kept.trace.write_text(trace("hello"))
    run = RunResult("with", 1, score=1.0, passed=True, trace_path="/elsewhere/runs/group/c/with-1/trace.jsonl")
    case = CaseResult("c", "tests/evals/group/c", "prose", "p", 3, 300, 10, [], 1, arms={"with": [run]})
    write_json(
        folder.results_file,
        SuiteResult("2", "", 0, SuiteInfo("/x", "none"), [case], scoring.suite_aggregates([case], 1.0)).to_json(),
    )
    assert StoredResults(folder.path).runs[RunId("tests/evals/group/c", "with", 1)].folder == kept
    run.trace_path = None  # without a trace path: the folder that exists
    write_json(
        folder.results_file,
        SuiteResult("2", "", 0, SuiteInfo("/x", "none"), [case], scoring.suite_aggregates([case], 1.0)).to_json(),
    )
    assert StoredResults(folder.path).runs[RunId("tests/evals/group/c", "with", 1)].folder == kept


def test_a_harness_fault_while_regrading_is_a_harness_error(stored, tmp_path, monkeypatch):
    stored.add(graded_run(score=1.0))
    results = StoredResults(stored.write())

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(regrade, "grade", broken)
    result = regrade_run(stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.error_kind) == (None, "harness")
    assert result.error.startswith("harness error: RuntimeError: boom (test_regrade.py:")


def test_the_session_stopping_while_regrading_leaves_the_run_interrupted(stored, tmp_path):
    stored.add(graded_run(score=1.0))
    results = StoredResults(stored.write())
    stop = threading.Event()
    stop.set()
    result = regrade_run(
        stored.case(), results.runs[RunId("evals/c", "with", 1)], False, None, new_folder(tmp_path), stop
    )
    assert (result.score, result.error_kind) == (None, "interrupted")


# ---- what the run changed, regraded ----------------------------------------------------------------------------


def test_every_grader_gives_the_runs_verdict_on_a_file_the_run_edited(stored, tmp_path):
    """The scaffold staged out.txt and README.md; the agent rewrote out.txt and created notes.md."""
    stored.set_graders(
        {
            **GRADERS,
            "readme": "---\ntype: regex\npattern: scaffold\ntarget: {source: file, path: README.md}\n---\n",
            "notes": "---\ntype: regex\npattern: notes.md\ntarget: files\n---\n",
        }
    )
    ws = Workspace(tmp_path / "ws")
    for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
        folder.mkdir(parents=True)
    ws.trace.write_text(trace("hello"))
    ws.stderr.write_text("")
    (ws.cwd / "out.txt").write_text("content v1")
    (ws.cwd / "README.md").write_text("from the scaffold")
    before = ws.snapshot()
    (ws.cwd / "out.txt").write_text("content v2")
    (ws.cwd / "notes.md").write_text("new")
    changes = ws.record_changes(before)
    assert changes == Changes(created=("notes.md",), modified=("out.txt",))
    case = stored.case()
    live = grader_results(
        grade(graders_for(case.graders, "with", False), RunOutput(Transcript(trace("hello")), ws.cwd, changes.created))
    )

    run = graded_run(score=0.6)
    kept = stored.results.run_folder("c", "with", 1)
    kept.keep(ws.trace, ws.stderr, ws.cwd, changes.created, None)
    run.trace_path = str(kept.trace)
    stored.runs.append(run)
    results = StoredResults(stored.write())
    target = new_folder(tmp_path)
    result = regrade_run(case, results.runs[RunId("evals/c", "with", 1)], False, None, target)
    assert [(g.name, g.passed, g.explanation) for g in result.graders] == [
        (g.name, g.passed, g.explanation) for g in live
    ]
    assert {g.name: g.passed for g in result.graders}["file-content"] is True  # the edited file, as edited
    assert {g.name: g.passed for g in result.graders}["made-file"] is False  # out.txt was not created
    assert target.changes() == changes  # the regraded session keeps the record too
