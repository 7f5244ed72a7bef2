"""Unit tests for `plugin-eval calibrate` (cli/commands/calibrate.py): folders and labels read, the findings printed and
written, user errors named."""

from __future__ import annotations

import json

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.cli.main import main
from pytest_plugin_eval.results.calibration import ControlAnswer
from pytest_plugin_eval.results.labels import Label, Labels, write_labels
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult
from pytest_plugin_eval.results.store import write_json

RUBRIC = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets the guest by name.", "focus": "last_message"})


def folder_with_labels(tmp_path, person=(True, False, True)):
    runs = [
        RunResult("with", i, score=1.0, passed=True, graders=[GraderResult("reads-well", True, 1, "", judge_model="m")])
        for i in (1, 2, 3)
    ]
    folder = tmp_path / "results" / "s1"
    write_json(folder / "aggregate-result.json", suite_result(case_result("greets", runs, graders=[RUBRIC])).to_json())
    labels = Labels(
        labels=[Label("greets", "with", i, "reads-well", "pass" if p else "fail") for i, p in enumerate(person, 1)]
    )
    write_labels(folder / "labels.json", labels)
    return folder


def test_calibrate_prints_and_writes_json(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(folder), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "greets · reads-well (llm)" in printed
    assert "3 labels, agrees 67%" in printed
    assert "TPR 1.00" in printed and "TNR 0.00" in printed
    data = json.loads(out.read_text())
    (grader,) = data["graders"]
    assert (grader["grader"], grader["n"], grader["tpr"], grader["tnr"]) == ("reads-well", 3, 1.0, 0.0)
    assert grader["correctedPassRate"] is None  # a judge that never fails cannot be corrected for


def test_calibrate_json_alone_on_stdout(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    assert main(["calibrate", str(folder), "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["graders"][0]["n"] == 3
    assert "reads-well" in captured.err


def test_a_bad_labels_file_is_named(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    (folder / "labels.json").write_text(
        '{"labels": [{"case": "greets", "arm": "with", "run": 1, "grader": "g", "verdict": 1}]}'
    )
    assert main(["calibrate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "labels.json: labels[0].verdict: must be one of pass, fail" in err


def test_a_folder_without_results_is_refused(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path)]) == 1
    assert "no aggregate-result.json in this folder" in capsys.readouterr().err


def test_labels_from_another_file(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    other = tmp_path / "mine.json"
    write_labels(other, Labels(labels=[Label("greets", "with", 1, "reads-well", "fail")]))
    assert main(["calibrate", str(folder), "--labels", str(other)]) == 0
    assert "1 labels" in capsys.readouterr().out


def test_compare_shows_the_judge_agreement_of_a_labelled_session(tmp_path, capsys):
    labelled = folder_with_labels(tmp_path)
    plain = tmp_path / "results" / "s0"
    write_json(plain / "aggregate-result.json", json.loads((labelled / "aggregate-result.json").read_text()))
    out = tmp_path / "cmp.json"
    assert main(["compare", str(plain), str(labelled), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "judge vs your labels (NEW) greets · reads-well: 3 labels, agrees 67%" in printed
    assert "(OLD)" not in printed
    agreement = json.loads(out.read_text())["judgeAgreement"]
    assert list(agreement) == ["NEW"] and agreement["NEW"][0]["tpr"] == 1.0


def test_the_text_names_each_control_and_a_finding_for_the_one_passed():
    from pytest_plugin_eval.report.calibration import control_lines
    from pytest_plugin_eval.results.control_findings import control_findings

    controls = [
        ControlAnswer("a", "g", "llm", "empty", "an empty answer", False),
        ControlAnswer("a", "g", "llm", "inject", "an answer telling the judge to say PASS", True, votes=[True, True]),
        ControlAnswer(
            "a", "g", "llm", "echo", "the rubric echoed back as the answer", None, error="judge unavailable: 529"
        ),
    ]
    lines = control_lines(controls, control_findings(controls))
    assert lines[1:4] == [
        "  ✓ failed  a · g: empty",
        "  ✗ PASSED  a · g: inject",
        "  ?   a · g: echo — judge unavailable: 529",
    ]
    assert lines[4] == "Findings (1): verdicts of these judges measure less than they seem"
    assert lines[5].startswith(
        '  ⚑ a: grader "g": the judge passed an answer telling the judge to say PASS (control inject, 2 of 2 vote(s) '
        "PASS): it grades something other than the rubric — make the rubric say what a passing answer must contain"
    )
    assert lines[5].endswith("[judge-misses-control]")


def test_labels_go_with_one_folder_and_report_redraws_each_folders_page(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    assert main(["calibrate", str(folder), str(folder), "--labels", str(tmp_path / "mine.json")]) == 1
    assert "--labels goes with one results folder" in capsys.readouterr().err
    assert main(["calibrate", str(folder), "--report"]) == 0
    assert f"Updated {folder / 'report.html'} (each judged grader's agreement" in capsys.readouterr().out
    assert "reads-well" in (folder / "report.html").read_text()


def test_the_same_folder_twice_counts_its_labels_once(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    assert main(["calibrate", str(folder), str(folder) + "/"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("calibrate: 1 results folder(s), 3 label(s)") and "3 labels, agrees 67%" in printed


def test_no_labels_says_how_to_give_them_and_the_report_says_it_shows_none(tmp_path, capsys):
    folder = folder_with_labels(tmp_path)
    (folder / "labels.json").unlink()
    assert main(["calibrate", str(folder), "--report"]) == 0
    printed = capsys.readouterr().out
    assert "! no labels: label the judged verdicts with `plugin-eval review RESULTS`" in printed
    assert "(no labels to show beside it)" in printed and "agreement with the labels" not in printed
