"""Unit tests for the controls a judge must fail (grade/controls.py): what the judge is shown, and its verdicts read
as for a run."""

from __future__ import annotations

from helpers.fakes import FakeJudge

from pytest_plugin_eval.grade import controls


def test_llm_controls_are_the_graders_own_prompt_with_a_wrong_answer():
    asked = controls.llm_controls("greets", "names-guest", {"criteria": "Names the guest.", "focus": "last_message"})
    assert [c.control for c in asked] == ["empty", "inject", "echo"]
    empty, inject, echo = (c.content[0]["text"] for c in asked)
    assert empty.startswith("Criterion:\nNames the guest.\n\nEvidence — last_message:\n<evidence>\n\n</evidence>")
    assert controls.INJECTION in inject
    assert "<evidence>\nNames the guest.\n</evidence>" in echo


def test_baseline_controls_swap_a_passed_run_with_the_reference():
    asked = controls.baseline_controls("c", "b", "As good.", "REFERENCE", "PASSED RUN")
    assert [c.control for c in asked] == ["empty", "inject", "swapped"]
    swapped = asked[2].content[0]["text"]
    assert swapped.index("<baseline>\nPASSED RUN") < swapped.index("<new>\nREFERENCE")
    assert [c.control for c in controls.baseline_controls("c", "b", "x", "R", None)] == ["empty", "inject"]


def test_a_control_is_judged_as_a_run():
    control = controls.llm_controls("c", "g", {"criteria": "x"})[1]
    judge = FakeJudge(votes=(True, True))
    fooled = controls.ask(judge, "c\0g\0inject", control)
    assert judge.asked == ["c\0g\0inject"]
    assert (
        fooled.passed is True
        and controls.CONTROL_TEXT[fooled.control.control] == "an answer telling the judge to say PASS"
    )
    assert controls.ask(FakeJudge(votes=(False, False)), "k", control).passed is False
    lost = controls.ask(FakeJudge(error="API error 529: overloaded"), "k", control)
    assert lost.passed is None and "overloaded" in (lost.error or "")
