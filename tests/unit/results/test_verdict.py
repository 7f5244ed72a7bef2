"""Unit tests for a case's verdict in words (pytest_plugin_eval.results.verdict): the headline that pytest's short
summary and JUnit's message show (the case's first warning, else the first failing grader, its explanation and
the runs it failed in; then the score against the threshold, Δ when two-arm), the details after it (run errors, aborts, every failing grader,
the case's warnings, hints), and when a case passes or is skipped instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.documents import case_of

from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import CaseResult, GraderResult, RunResult
from pytest_plugin_eval.results.verdict import CaseVerdict, case_verdict, failing_graders


def case(*runs: RunResult, case_dir: str = "evals/a", hints=(), warnings=()) -> CaseResult:
    return case_of(*runs, name=Path(case_dir).name, dir=case_dir, hints=hints, warnings=list(warnings))


def g(name: str, passed: bool, explanation: str = "", *, weight: float = 1, scored: bool = True) -> GraderResult:
    return GraderResult(name, passed, weight, explanation or ("ok" if passed else f"{name} failed"), scored=scored)


def run(arm: str, index: int, *graders: GraderResult, score: float | None = None, **kw) -> RunResult:
    """A run scored from its graders (unless a score is given)."""
    if score is None and graders:
        score = scoring.run_score(graders)
    return RunResult(arm, index, score=score, passed=score == 1.0, graders=list(graders), **kw)


# ---- failing_graders -----------------------------------------------------------------------------------------


def test_failing_graders_in_first_seen_order_with_their_first_explanation_and_runs():
    c = case(
        run("with", 1, g("b", True), g("a", False, "a: no hi")),
        run("with", 2, g("b", False, "b: too long"), g("a", False, "a: said bye")),
        run("with", 3, g("b", True), g("a", True)),
    )
    assert failing_graders(c) == [("a", "a: no hi", [1, 2]), ("b", "b: too long", [2])]


def test_failing_graders_count_scored_graders_only():
    indicator = g("skill-fired", False, "the skill never fired", scored=False)
    c = case(run("with", 1, g("a", True), indicator))
    assert failing_graders(c) == []


def test_failing_graders_of_one_arm():
    c = case(
        run("with", 1, g("a", True)),
        run("without", 1, g("a", False, "no hi")),
        run("without", 2, g("a", False, "still no hi")),
    )
    assert failing_graders(c) == []
    assert failing_graders(c, "without") == [("a", "no hi", [1, 2])]
    assert failing_graders(case(run("with", 1, g("a", True))), "without") == []


# ---- failed ---------------------------------------------------------------------------------------------------


def test_the_headline_names_the_first_failing_grader_its_runs_and_the_score_against_the_threshold():
    c = case(
        run("with", 1, g("says-hi", False, "pattern /hi/ not found"), g("short", True)),
        run("with", 2, g("says-hi", True), g("short", True)),
        run("with", 3, g("says-hi", False, "pattern /hi/ not found again"), g("short", False, "too long")),
    )
    verdict = case_verdict(c, 1.0)
    assert verdict.outcome == "failed"
    assert verdict.headline == ("says-hi: pattern /hi/ not found (with-plugin runs 1, 3) — score 0.50 < threshold 1.00")
    assert verdict.details == [
        "✗ says-hi in with-plugin runs 1, 3: pattern /hi/ not found",
        "✗ short in with-plugin run 3: too long",
    ]
    assert verdict.text == "\n".join([verdict.headline, *verdict.details])


def test_one_failing_run_is_named_in_the_singular():
    verdict = case_verdict(case(run("with", 2, g("a", False, "no hi"))), 0.5)
    assert verdict.headline == "a: no hi (with-plugin run 2) — score 0.00 < threshold 0.50"


def test_two_arm_cases_add_the_score_without_the_plugin_and_the_delta():
    c = case(
        run("with", 1, g("a", False, "no hi"), g("b", True)),
        run("without", 1, g("a", False, "no hi"), g("b", False, "nope")),
    )
    verdict = case_verdict(c, 0.75)
    assert verdict.headline == (
        "a: no hi (with-plugin run 1) — score 0.50 < threshold 0.75 (without the plugin 0.00, Δ +0.50)"
    )
    # The without arm's failures are not the case's: only the with arm is judged against the threshold.
    assert verdict.details == ["✗ a in with-plugin run 1: no hi"]


def test_a_negative_delta_is_signed():
    c = case(run("with", 1, g("a", False, "no hi")), run("without", 1, g("a", True)))
    assert case_verdict(c, 1.0).headline.endswith("score 0.00 < threshold 1.00 (without the plugin 1.00, Δ -1.00)")


def test_no_delta_when_the_without_arm_was_not_scored():
    c = case(
        run("with", 1, g("a", False, "no hi")),
        run("without", 1, error="529", error_kind="api"),
    )
    assert c.two_arm and c.aggregates.delta is None
    assert case_verdict(c, 1.0).headline == "a: no hi (with-plugin run 1) — score 0.00 < threshold 1.00"


def test_details_list_run_errors_aborts_failing_graders_warnings_and_hints_in_that_order():
    c = case(
        run("with", 1, g("a", False, "no hi"), error="timed out after 300s", error_kind="timeout"),
        run(
            "with",
            2,
            score=0.0,
            aborted={"server": "payments", "tool": "charge", "reason": "charging is not allowed"},
        ),
        run("with", 3, g("a", True)),
        hints=["sharpen the skill's description"],
        warnings=["allowed_tools asks for Write, which only the operator can grant", "second warning"],
    )
    verdict = case_verdict(c, 1.0)
    assert verdict.details == [
        "with-plugin run 1: timed out after 300s",
        "with-plugin run 2: aborted by mock payments/charge: charging is not allowed",
        "✗ a in with-plugin run 1: no hi",
        "⚠ allowed_tools asks for Write, which only the operator can grant",
        "⚠ second warning",
        "hint: sharpen the skill's description",
    ]


def test_a_warning_leads_the_headline_before_any_failing_grader():
    c = case(
        run("with", 1, g("a", False, "no hi")),
        warnings=["allowed_tools asks for Write, which only the operator can grant", "second warning"],
    )
    verdict = case_verdict(c, 1.0)
    assert verdict.headline == (
        "allowed_tools asks for Write, which only the operator can grant — score 0.00 < threshold 1.00"
    )
    # Without a warning the headline is the first failing grader.
    c.warnings = []
    assert case_verdict(c, 1.0).headline == "a: no hi (with-plugin run 1) — score 0.00 < threshold 1.00"


def test_warnings_do_not_fail_a_passing_case_or_show_on_it():
    verdict = case_verdict(case(run("with", 1, g("a", True)), warnings=["w"]), 1.0)
    assert verdict == CaseVerdict("passed", "score 1.00 ≥ threshold 1.00", [])


def test_the_headline_is_the_first_failing_grader_when_there_are_run_errors_too():
    c = case(
        run("with", 1, g("a", True), error="timed out after 300s", error_kind="timeout"),
        run("with", 2, g("a", False, "no hi")),
    )
    verdict = case_verdict(c, 1.0)
    assert verdict.details[0] == "with-plugin run 1: timed out after 300s"
    assert verdict.headline == "a: no hi (with-plugin run 2) — score 0.50 < threshold 1.00"


def test_without_a_failing_grader_the_headline_is_the_first_detail():
    c = case(
        run("with", 1, score=0.0, aborted={"server": "srv", "tool": "rm", "reason": "destructive"}),
        run("with", 2, g("a", True)),
    )
    verdict = case_verdict(c, 1.0)
    assert verdict.headline == "with-plugin run 1: aborted by mock srv/rm: destructive — score 0.50 < threshold 1.00"
    assert verdict.details == ["with-plugin run 1: aborted by mock srv/rm: destructive"]


def test_a_run_error_leads_when_no_grader_failed():
    c = case(run("with", 1, g("a", True), error="max turns reached", error_kind="max_turns"), run("with", 2, score=0.0))
    verdict = case_verdict(c, 1.0)
    assert verdict.headline == "with-plugin run 1: max turns reached — score 0.50 < threshold 1.00"


def test_a_hint_alone_leads_too():
    verdict = case_verdict(case(run("with", 1, score=0.5), hints=["look here"]), 1.0)
    assert (verdict.headline, verdict.details) == ("hint: look here — score 0.50 < threshold 1.00", ["hint: look here"])


def test_with_nothing_to_say_the_headline_is_the_score():
    verdict = case_verdict(case(run("with", 1, score=0.5)), 1.0)
    assert verdict == CaseVerdict("failed", "score 0.50 < threshold 1.00", [])
    assert verdict.text == "score 0.50 < threshold 1.00"


def test_the_without_arms_errors_are_not_details():
    c = case(
        run("with", 1, g("a", False, "no hi")),
        run("without", 1, score=0.0, error="crashed", error_kind="crash"),
    )
    assert case_verdict(c, 1.0).details == ["✗ a in with-plugin run 1: no hi"]


# ---- passed and skipped -------------------------------------------------------------------------------------


def test_a_case_at_the_threshold_passes():
    c = case(run("with", 1, g("a", True)), run("with", 2, g("a", False, "no hi")))
    verdict = case_verdict(c, 0.5)
    assert verdict == CaseVerdict("passed", "score 0.50 ≥ threshold 0.50", [])


def test_a_passing_two_arm_case_keeps_its_delta():
    c = case(run("with", 1, g("a", True)), run("without", 1, g("a", False)), hints=["a hint"])
    verdict = case_verdict(c, 1.0)
    assert verdict == CaseVerdict("passed", "score 1.00 ≥ threshold 1.00 (without the plugin 0.00, Δ +1.00)", [])


def test_a_case_no_with_run_of_which_was_scored_is_skipped():
    c = case(
        run("with", 1, error="exit 1: API Error: 529", error_kind="api"),
        run("with", 2, error="Not logged in", error_kind="auth"),
        run("with", 3, error="exit 1: API Error: 529", error_kind="api"),
        run("without", 1, g("a", True)),
    )
    verdict = case_verdict(c, 1.0)
    assert verdict == CaseVerdict("skipped", "not scored: Not logged in; exit 1: API Error: 529", [])


def test_an_unscored_run_without_an_error_says_why():
    c = case(run("with", 1, g("fired", False, scored=False)))
    assert c.aggregates.score is None
    assert case_verdict(c, 1.0) == CaseVerdict("skipped", "not scored: no grader scored it")


def test_a_case_whose_graders_all_errored_says_what_they_said():
    errored = GraderResult(
        "quality", False, 1, "judge unavailable: API error 529: overloaded", scored=False, errored=True
    )
    c = case(run("with", 1, errored), run("with", 2, errored))
    assert c.aggregates.score is None
    assert case_verdict(c, 1.0).headline == (
        "not scored: every grader errored (quality: judge unavailable: API error 529: overloaded)"
    )


def test_a_multi_line_message_is_one_line_in_the_headline():
    message = "exit 1: API Error: 500 upstream failed\n\nTry again later.\n  Request ID: req_1"
    c = case(run("with", 1, error=message, error_kind="api"))
    assert case_verdict(c, 1.0).headline == (
        "not scored: exit 1: API Error: 500 upstream failed Try again later. Request ID: req_1"
    )
    failed = case(run("with", 1, g("a", False, "line one\nline two"), score=0.0))
    assert "\n" not in case_verdict(failed, 1.0).headline
    assert case_verdict(failed, 1.0).headline.startswith("a: line one line two (with-plugin run 1)")


def test_a_case_without_with_runs_is_skipped():
    c = case(run("without", 1, g("a", True)))
    assert case_verdict(c, 1.0) == CaseVerdict("skipped", "not scored: no run of the with-plugin arm")
    assert case_verdict(case(), 0.0).headline == "not scored: no run of the with-plugin arm"


@pytest.mark.parametrize(("score", "outcome"), [(0.74, "failed"), (0.75, "passed"), (1.0, "passed")])
def test_the_outcome_follows_passes_threshold(score, outcome):
    c = case(run("with", 1, score=score))
    assert case_verdict(c, 0.75).outcome == outcome
    assert (outcome == "passed") == scoring.passes_threshold(c, 0.75)
