"""A control the judge passed is a `judge-misses-control` finding; one it failed, or could not be asked, is not."""

from __future__ import annotations

from pytest_plugin_eval.results.calibration import ControlAnswer
from pytest_plugin_eval.results.control_findings import KIND, control_findings


def control(name: str, passed: bool | None, votes=(True, True)) -> ControlAnswer:
    return ControlAnswer("c", "g", "llm", name, f"the {name} answer", passed, votes=list(votes))


def test_a_control_the_judge_passed_is_a_finding_in_the_findings_shape():
    (found,) = control_findings([control("empty", True, (True, False, True))])
    assert found.to_json() == {
        "case": "c",
        "grader": "g",
        "kind": KIND,
        "message": "the judge passed the empty answer (control empty, 2 of 3 vote(s) PASS): it grades something "
        "other than the rubric",
        "fix": "make the rubric say what a passing answer must contain and what fails it (PASS if …; FAIL if …), or "
        "judge with a stronger model (--judge-model)",
    }


def test_a_control_failed_or_not_asked_is_none():
    assert control_findings([control("empty", False, (False, False)), control("echo", None, ())]) == []


def test_the_swapped_pair_asks_you_to_look():
    (found,) = control_findings([control("swapped", True)])
    assert found.message.endswith("it may not be comparing the two")
    assert found.fix.startswith("compare the run with the reference")
