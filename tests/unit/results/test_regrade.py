"""Unit tests for `--regrade` (pytest_plugin_eval.results.regrade): a results folder written by hand — its
document from the model objects, and the run folders with their trace, created files and mock calls — read back
by StoredResults, and its runs graded again with the case's current graders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.grade.engine import grade, graders_for
from pytest_plugin_eval.grade.judge import Ballot
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import Case, load_case
from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import CaseResult, GraderInfo, GraderResult, RunResult, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.record import grader_results
from pytest_plugin_eval.results.regrade import UNGRADED_KINDS, StoredResults, regrade_run
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
    assert sorted(results.runs) == [
        ("evals/c", "with", 1),
        ("evals/c", "with", 2),
        ("evals/c", "with", 3),
        ("evals/c", "without", 1),
    ]
    assert results.runs_of("evals/c") == [("with", 1), ("with", 2), ("with", 3), ("without", 1)]
    assert results.runs_of("evals/other") == []
    # The document's trace path when its folder is still there; else the run's folder in this results folder.
    assert results.runs[("evals/c", "with", 2)].folder == kept
    assert results.runs[("evals/c", "with", 1)].folder.path == moved.path
    assert results.runs[("evals/c", "with", 3)].folder.path == stored.results.path / "runs" / "c" / "with-3"
    assert results.runs[("evals/c", "with", 2)].run.score == 0.0


def test_a_folder_without_a_document_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^--regrade .*: no readable aggregate-result.json there \("):
        StoredResults(tmp_path)


def test_a_document_that_is_not_an_object_is_refused(tmp_path):
    (tmp_path / "aggregate-result.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="no readable aggregate-result.json there"):
        StoredResults(tmp_path)


# ---- regrade_run ---------------------------------------------------------------------------------------------


def test_a_changed_grader_gives_a_new_verdict(stored, tmp_path):
    stored.add(graded_run("with", 1, score=0.0), calls=[LOOKUP])
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert [(g.name, g.passed, g.scored) for g in result.graders] == [
        ("called-lookup", True, True),
        ("file-content", True, True),
        ("made-file", True, True),
        ("says-hello", True, True),
    ]
    assert (result.score, result.passed) == (1.0, True)
    assert (result.arm, result.index, result.turns, result.started_at) == ("with", 1, 1, "2026-01-01T00:00:01.000Z")


def test_a_regraded_run_can_fail(stored, tmp_path):
    stored.add(graded_run("with", 1, score=1.0), text="goodbye", files={"out.txt": "content v1"})
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
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
        stored.case(), results.runs[("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert [g.name for g in result.graders] == ["file-content", "made-file", "says-hello"]
    with_arm = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], True, None, new_folder(tmp_path))
    assert [(g.name, g.with_only) for g in with_arm.graders if g.name == "called-lookup"] == [("called-lookup", True)]


def test_mock_calls_graders_count_in_both_arms_as_they_did_in_the_run(stored, tmp_path):
    # No mocks apply (or a standalone one does): the run graded mock_calls in the without arm too; so does regrade.
    stored.add(graded_run("without", 1), calls=[LOOKUP])
    results = StoredResults(stored.write())
    result = regrade_run(
        stored.case(), results.runs[("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert [(g.name, g.passed, g.with_only) for g in result.graders][0] == ("called-lookup", True, False)


def test_a_session_without_stand_ins_regrades_mock_calls_graders_in_both_arms(stored, tmp_path):
    # Shadowing mocks, but no run carries a mock summary: the session ran with --mocks off.
    shadow_mocks(stored)
    stored.add(graded_run("with", 1))
    stored.add(graded_run("without", 1))
    results = StoredResults(stored.write())
    assert results.runs[("evals/c", "without", 1)].mocks_served is False
    result = regrade_run(
        stored.case(), results.runs[("evals/c", "without", 1)], True, None, new_folder(tmp_path, "without")
    )
    assert "called-lookup" in [g.name for g in result.graders]


def test_artefacts_are_copied_into_the_new_folder(stored, tmp_path):
    stored.add(graded_run(), files={"out.txt": "content v2", "sub/deep.txt": "d"}, calls=[LOOKUP])
    results = StoredResults(stored.write())
    target = new_folder(tmp_path)
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, target)
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
    regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, target)
    assert target.stderr.read_text() == "stderr of the run\n"


def test_costs_keep_the_agents_and_recompute_the_judges(tmp_path):
    stored = Stored(tmp_path, {"says-hello": GRADERS["says-hello"], "polite": "---\ntype: llm\n---\nIs polite.\n"})
    stored.add(graded_run(cost=0.30, judge=0.05))
    results = StoredResults(stored.write())

    class Judge:
        model = "claude-haiku-5-5"

        def ballot(self, grader, content):
            return Ballot(votes=[True, False, True], cost_usd=0.012)

    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, Judge(), new_folder(tmp_path))
    polite = next(g for g in result.graders if g.name == "polite")
    assert (polite.passed, polite.judge_votes, polite.cost_usd) == (True, [True, False, True], 0.012)
    assert result.judge_cost_usd == pytest.approx(0.012)
    assert result.cost_usd == pytest.approx(0.25 + 0.012)


def test_without_paid_graders_the_judge_cost_drops_out(stored, tmp_path):
    stored.add(graded_run(cost=0.30, judge=0.05))
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.judge_cost_usd, result.cost_usd) == (0.0, pytest.approx(0.25))


def test_session_fields_are_reset(stored, tmp_path):
    stored.add(
        graded_run(
            attempts=3, reused=True, workspace="/tmp/claude-eval-x", skipped_paid_graders=True, extra={"futureField": 1}
        )
    )
    results = StoredResults(stored.write())
    assert results.runs[("evals/c", "with", 1)].run.extra == {"futureField": 1}
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
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
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, target)
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
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.graders, result.aborted) == (0.0, [], aborted)


def test_a_run_without_a_trace_stays_as_it_was_and_names_no_trace(stored, tmp_path):
    stored.add(graded_run(score=0.0), text=None)
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.graders, result.trace_path) == (0.0, [], None)


def test_a_passing_run_without_a_trace_stays_passed(stored, tmp_path):
    stored.add(graded_run(score=1.0), text=None)
    results = StoredResults(stored.write())
    result = regrade_run(stored.case(), results.runs[("evals/c", "with", 1)], False, None, new_folder(tmp_path))
    assert (result.score, result.passed) == (1.0, True)


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
    result = regrade_run(case, results.runs[("evals/c", "with", 1)], False, None, target)
    assert [(g.name, g.passed, g.explanation) for g in result.graders] == [
        (g.name, g.passed, g.explanation) for g in live
    ]
    assert {g.name: g.passed for g in result.graders}["file-content"] is True  # the edited file, as edited
    assert {g.name: g.passed for g in result.graders}["made-file"] is False  # out.txt was not created
    assert target.changes() == changes  # the regraded session keeps the record too
