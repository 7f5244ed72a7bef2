"""Unit tests for results/calibration.py: each judged grader's labels against its judge's verdicts, pooled over
folders, with stale and unmatched labels left out and counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.results.calibration import MIN_LABELS_PER_KIND, Session, calibrate
from pytest_plugin_eval.results.labels import Label, Labels, rubric_hash
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult

RUBRIC = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets the guest by name.", "focus": "last_message"})


def runs(arm: str, judge: list[bool], model: str = "claude-haiku-4-5") -> list[RunResult]:
    return [
        RunResult(
            arm,
            i,
            score=float(p),
            passed=p,
            graders=[GraderResult("reads-well", p, 1, "judge votes", judge_model=model, judge_votes=[p, p])],
        )
        for i, p in enumerate(judge, 1)
    ]


def lenient_session(tmp_path: Path, **labels_fields) -> Session:
    """WITH: the judge passes all 10 runs, the person too. W/OUT: the judge passes 6 of 10, the person 2 of
    them — it passes 4 wrong answers."""
    case = case_result(
        "greets",
        runs("with", [True] * 10),
        runs("without", [True] * 6 + [False] * 4),
        graders=[RUBRIC],
        effective_model="claude-sonnet-4-5",
    )
    person = {"with": [True] * 10, "without": [True, True] + [False] * 8}
    labels = Labels(
        labels=[
            Label(
                "greets",
                arm,
                i,
                "reads-well",
                "pass" if passed else "fail",
                rubric_hash=rubric_hash(RUBRIC),
                **labels_fields,
            )
            for arm, verdicts in person.items()
            for i, passed in enumerate(verdicts, 1)
        ]
    )
    return Session(tmp_path, suite_result(case), labels)


def test_a_lenient_judge_is_measured_and_corrected(tmp_path):
    result = calibrate([lenient_session(tmp_path)])
    (grader,) = result.graders
    assert (grader.case, grader.grader, grader.type) == ("greets", "reads-well", "llm")
    assert (grader.tp, grader.fn, grader.fp, grader.tn) == (12, 0, 4, 4)
    assert grader.n == 20
    assert grader.tpr == 1.0 and grader.tnr == 0.5
    assert grader.with_arm.raw == 1.0 and grader.without_arm.raw == 0.6
    # (0.6 + 0.5 − 1) / 0.5 = 0.2: the judge's W/OUT is inflated, its Δ shrunk
    assert grader.without_arm.corrected.value == pytest.approx(0.2)
    assert grader.raw_delta == pytest.approx(0.4)
    assert grader.corrected_delta.value == pytest.approx(0.8)
    assert grader.corrected_pass_rate == grader.with_arm.corrected
    assert grader.judge_models == ["claude-haiku-4-5"]
    data = result.to_json()["graders"][0]
    assert {"grader", "n", "tpr", "tnr", "correctedPassRate"} <= data.keys()
    assert data["without"]["corrected"]["value"] == 0.2


def test_few_labels_of_a_kind_are_warned_about(tmp_path):
    (grader,) = calibrate([lenient_session(tmp_path)]).graders
    assert len(grader.warnings) == 1  # 8 FAIL labels, under the minimum; 12 PASS labels are enough
    assert "8 label(s) of runs you failed" in grader.warnings[0] and str(MIN_LABELS_PER_KIND) in grader.warnings[0]


def test_folders_are_pooled(tmp_path):
    one = lenient_session(tmp_path / "a")
    result = calibrate([one, lenient_session(tmp_path / "b")])
    (grader,) = result.graders
    assert grader.n == 40 and grader.with_arm.judged == 20
    assert grader.warnings == []
    assert result.labels == 40


def test_stale_labels_are_left_out_and_counted(tmp_path):
    session = lenient_session(
        tmp_path,
    )
    session.labels.labels[0].rubric_hash = "0123456789abcdef"  # labelled against another rubric
    result = calibrate([session])
    assert result.stale == 1 and result.graders[0].stale == 1 and result.graders[0].n == 19
    assert any("stale" in w for w in result.warnings)


def test_hand_written_labels_without_a_hash_count(tmp_path):
    session = lenient_session(tmp_path)
    for label in session.labels.labels:
        label.rubric_hash = None
    assert calibrate([session]).graders[0].n == 20


def test_labels_of_nothing_judged_are_unmatched(tmp_path):
    session = lenient_session(tmp_path)
    session.labels.labels += [Label("greets", "with", 99, "reads-well", "pass"), Label("nope", "with", 1, "x", "fail")]
    result = calibrate([session])
    assert result.unmatched == 2 and result.graders[0].n == 20


def test_a_judge_that_is_the_agent_model_is_warned_about(tmp_path):
    session = lenient_session(tmp_path)
    session.document.cases[0].effective_model = "claude-haiku-4-5"
    assert any("the judge is the model under test" in w for w in calibrate([session]).warnings)
    assert not any("model under test" in w for w in calibrate([lenient_session(tmp_path)]).warnings)


def test_errored_verdicts_are_not_judged(tmp_path):
    session = lenient_session(tmp_path)
    session.document.cases[0].arms["with"][0].graders[0].errored = True
    (grader,) = calibrate([session]).graders
    assert grader.with_arm.judged == 9 and grader.n == 19
    assert calibrate([session]).unmatched == 1


def test_labels_of_free_graders_are_review_notes_not_calibration(tmp_path):
    session = lenient_session(tmp_path)
    session.document.cases[0].graders.append(GraderInfo("greeting", "regex", 1, {"pattern": "^Hello"}))
    session.labels.labels.append(Label("greets", "with", 1, "greeting", "fail", codes=("stiff",)))
    result = calibrate([session])
    assert result.unmatched == 0 and [g.grader for g in result.graders] == ["reads-well"]


def test_a_grader_without_labels_shows_its_raw_rates_without_warnings(tmp_path):
    session = lenient_session(tmp_path)
    session.labels.labels.clear()
    (grader,) = calibrate([session]).graders
    assert grader.n == 0 and grader.warnings == [] and grader.with_arm.raw == 1.0
    assert grader.with_arm.corrected is None
