"""`plugin-eval calibrate --report`: the folder's report drawn again shows, with each judged grader, its agreement
with the labels and its judge's answers to the controls, and a control it passed as a finding of its case."""

from __future__ import annotations

import html

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.report.calibrated import redraw_report
from pytest_plugin_eval.results.calibration import ControlAnswer, Session, calibrate
from pytest_plugin_eval.results.control_findings import control_findings
from pytest_plugin_eval.results.labels import Label, Labels
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult
from pytest_plugin_eval.results.store import write_json

RUBRIC = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets the guest by name."})
CONTROLS = [
    ControlAnswer("greets", "reads-well", "llm", "empty", "an empty answer", False, votes=[False, False]),
    ControlAnswer(
        "greets", "reads-well", "llm", "inject", "an answer telling the judge to say PASS", True, votes=[True, True]
    ),
    ControlAnswer("greets", "reads-well", "llm", "echo", "the rubric echoed", None, error="judge unavailable: 529"),
]


def labelled_session(tmp_path) -> Session:
    runs = [
        RunResult("with", i, score=1.0, passed=True, graders=[GraderResult("reads-well", True, 1, "", judge_model="m")])
        for i in (1, 2, 3)
    ]
    document = suite_result(case_result("greets", runs, graders=[RUBRIC]), case_result("other", [1.0]))
    folder = tmp_path / "results" / "s1"
    write_json(folder / "aggregate-result.json", document.to_json())
    labels = Labels(labels=[Label("greets", "with", i, "reads-well", "pass") for i in (1, 2, 3)])
    return Session(folder, document, labels)


def test_the_redrawn_report_shows_the_controls_with_their_grader_and_the_one_passed_as_a_finding(tmp_path):
    session = labelled_session(tmp_path)
    result = calibrate([session])
    result.controls, result.findings = CONTROLS, control_findings(CONTROLS)
    page = html.unescape(redraw_report(session, result).read_text())
    greets = page[page.index("<h2>greets</h2>") : page.index("<h2>other</h2>")]
    assert "the judge against your labels:" in greets and "3 labels, agrees 100%" in greets
    assert "the judge's answers to the controls (it must fail each):" in greets
    assert "<div>✓ failed  empty</div>" in greets and "<div>✗ PASSED  inject</div>" in greets
    assert "<div>?   echo — judge unavailable: 529</div>" in greets
    [finding] = [line for line in greets.splitlines() if "⚑" in line]
    assert "the judge passed an answer telling the judge to say PASS (control inject, 2 of 2 vote(s) PASS)" in finding
    assert "[judge-misses-control]" in finding
    other = page[page.index("<h2>other</h2>") :]
    assert "controls" not in other.split("</section>")[0] and "⚑" not in other.split("</section>")[0]


def test_without_controls_the_report_shows_no_controls(tmp_path):
    session = labelled_session(tmp_path)
    page = redraw_report(session, calibrate([session])).read_text()
    assert "the judge against your labels:" in page and "answers to the controls" not in page
    assert "judge-misses-control" not in page
