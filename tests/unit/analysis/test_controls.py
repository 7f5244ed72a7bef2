"""Unit tests for what `calibrate --controls` asks (analysis/controls.py): each judged grader's controls, a baseline's
reference read from its case folder and a run its judge passed for the swap, and the refusals."""

from __future__ import annotations

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.controls import ControlsRefused, check_judge, plan
from pytest_plugin_eval.results.calibration import Session
from pytest_plugin_eval.results.labels import Labels
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult
from pytest_plugin_eval.run.artefacts import RunFolder

LLM = GraderInfo("names-guest", "llm", 1, {"criteria": "Names the guest.", "focus": "last_message"})
BASELINE = GraderInfo("as-good", "baseline", 1, {"criteria": "As good.", "baseline_file": "ref.jsonl"})
REGEX = GraderInfo("hello", "regex", 1, {"pattern": "^Hello"})


def session_in(tmp_path, passed: bool = True) -> Session:
    runs = [
        RunResult(
            "with", 1, score=1.0, passed=passed, graders=[GraderResult("as-good", passed, 1, "", judge_model="m")]
        )
    ]
    case = case_result("greets", runs, graders=[LLM, BASELINE, REGEX])
    (tmp_path / "plugin" / case.dir).mkdir(parents=True)
    (tmp_path / "plugin" / case.dir / "ref.jsonl").write_text('{"type": "reference"}\n')
    kept = RunFolder(tmp_path / "results" / "runs" / "greets" / "with-1")
    kept.path.mkdir(parents=True)
    kept.trace.write_text('{"type": "the-passed-run"}\n')
    document = suite_result(case)
    document.suite.root = str(tmp_path / "plugin")
    return Session(tmp_path / "results", document, Labels())


def test_each_judged_grader_gets_its_controls(tmp_path):
    asked = [(c.grader, c.control) for c, _, _ in plan([session_in(tmp_path)])]
    assert asked == [
        ("names-guest", "empty"),
        ("names-guest", "inject"),
        ("names-guest", "echo"),
        ("as-good", "empty"),
        ("as-good", "inject"),
        ("as-good", "swapped"),
    ]
    swapped = next(c for c, _, _ in plan([session_in(tmp_path / "again")]) if c.control == "swapped")
    text = swapped.content[0]["text"]
    assert text.index("the-passed-run") < text.index('"reference"')  # the passed run shown as the BASELINE


def test_no_passed_run_no_swap(tmp_path):
    assert "swapped" not in [c.control for c, _, _ in plan([session_in(tmp_path, passed=False)])]


def test_a_missing_baseline_file_is_named(tmp_path):
    session = session_in(tmp_path)
    (tmp_path / "plugin" / session.document.cases[0].dir / "ref.jsonl").unlink()
    with pytest.raises(ControlsRefused, match="greets · as-good: .*ref.jsonl.* does not exist"):
        plan([session])


def test_scripted_runs_need_a_scripted_judge_and_a_real_one_a_sign_in(tmp_path):
    session = session_in(tmp_path)
    session.document.suite.scripted = True
    with pytest.raises(ControlsRefused, match="add --scripted"):
        check_judge([session], scripted=False, environ={"ANTHROPIC_API_KEY": "k"})
    check_judge([session], scripted=True, environ={})
    session.document.suite.scripted = False
    with pytest.raises(ControlsRefused, match="Claude Code is not signed in: sign Claude Code in"):
        check_judge([session], scripted=False, environ={})
    check_judge([session], scripted=False, environ={"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-made-up"})  # a setup token


def test_a_controls_result_is_written_as_calibrates_document_holds_it():
    from pytest_plugin_eval.analysis.controls import answer
    from pytest_plugin_eval.grade.controls import Control, ControlResult

    asked = Control("greets", "names-guest", "llm", "inject", [])
    written = answer(ControlResult(asked, True, [True, False], 0.00123456789)).to_json()
    assert list(written.items()) == [
        ("case", "greets"),
        ("grader", "names-guest"),
        ("type", "llm"),
        ("control", "inject"),
        ("description", "an answer telling the judge to say PASS"),
        ("passed", True),
        ("votes", [True, False]),
        ("costUsd", 0.001235),
    ]
    lost = answer(ControlResult(asked, None, [], 0.0, "judge unavailable: 529")).to_json()
    assert (lost["passed"], lost["error"]) == (None, "judge unavailable: 529")
