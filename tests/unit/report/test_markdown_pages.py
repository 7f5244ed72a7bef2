"""The Markdown pages made from a view and a template (report/md.py, templates/*.md.j2) pinned against the text the
f-string builders they replaced wrote (`golden/*.md`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers.documents import case_result, suite_result
from helpers.golden import comparison, golden, matrix, pairwise, suites, trigger_set
from helpers.rich import minimal_suite, rich_suite

from pytest_plugin_eval.analysis.compare import compare
from pytest_plugin_eval.report import matrix as matrix_report
from pytest_plugin_eval.report import pairwise as pairwise_report
from pytest_plugin_eval.report.markdown import SessionPart, comparison_markdown, session_markdown
from pytest_plugin_eval.report.pr_comment import CommentPart, comment_text
from pytest_plugin_eval.results.comparison import Comparison
from pytest_plugin_eval.results.matrix import matrix_rows
from pytest_plugin_eval.results.model import GraderInfo

HERE = Path(__file__).parent


def matrix_markdown() -> str:
    haiku = suite_result(case_result("greets", [1, 1, 0], [0, 0, 0]), case_result("a | b", [1, 1]))
    sonnet = suite_result(case_result("greets", [1, 1, 1], [0, 1, 0]))
    return matrix_report.markdown(matrix(), matrix_rows([("haiku", haiku), ("sonnet", sonnet)]))


def test_the_pairwise_section_writes_its_golden_text():
    assert pairwise_report.markdown(pairwise()) == golden(HERE, "pairwise.md")
    assert pairwise_report.markdown(pairwise(), level=3) == golden(HERE, "pairwise.md").replace("## ", "### ", 1)


def test_the_matrix_section_writes_its_golden_text():
    assert matrix_markdown() == golden(HERE, "matrix.md")


def test_a_comparison_writes_its_golden_text():
    assert comparison_markdown(comparison()) == golden(HERE, "comparison.md")


def graded_comparison() -> Comparison:
    """A grader made stricter between the sessions, a case gone and one added, a note on the arms."""
    stricter = GraderInfo("greeting", "regex", 1, {"pattern": "^Hello from"})
    old = suite_result(
        case_result("greet", [1, 1, 1], [0, 0, 0]),
        case_result("steady", [1, 1, 1], [0, 0, 0]),
        case_result("gone", [1, 1]),
    )
    new = suite_result(
        case_result("greet", [0, 0, 0], [0, 0, 0], graders=(stricter,)),
        case_result("steady", [1, 1, 1], [0, 0, 0]),
        case_result("fresh", [1, 1, 0], [0, 0, 0]),
    )
    compared = compare(old, new, "evals/results/old", "evals/results/new")
    return replace(compared, arms_note="the against arm ran on 2.0.0 both times")


def test_a_comparison_with_graders_and_notes_writes_its_golden_text():
    compared = graded_comparison()
    assert comparison_markdown(compared, level=3) == golden(HERE, "comparison-graders.md")


def session_parts() -> list[SessionPart]:
    """A session's suites as its --md summary shows them: every part of a document (the rich one: notices, load
    errors, findings, triggers, the other arms, efficiency) with a comparison and where it was kept; a bare one;
    one arm; a partial suite with trigger sets only."""
    rich = rich_suite()
    one_arm = suite_result(case_result("solo", [1, 0, 1]), case_result("fails", [0, 0, 0]))
    only_triggers = replace(suites().suites[1], cases=[])
    return [
        SessionPart(rich, comparison(), "alpha", Path("evals/results/a/aggregate-result.json"), Path("r.html")),
        SessionPart(minimal_suite()),
        SessionPart(one_arm, label="solo"),
        SessionPart(only_triggers, results_path=Path("evals/results/t/aggregate-result.json")),
        SessionPart(suites().suites[1]),
    ]


def test_a_sessions_summary_writes_its_golden_text():
    assert session_markdown(session_parts()) == golden(HERE, "session.md")


def comment_parts() -> list[list[CommentPart]]:
    """PR comments: a regression against the baseline (a case newly failing, one failing before too, a case and
    trigger queries moved, added and removed cases, warnings); the rich document alone (partial, load errors,
    findings, other arms); a matrix of two models."""
    old = suite_result(
        case_result("greets", [1, 1, 1, 1], [0, 0, 0, 0]),
        case_result("counts", [0, 0, 0, 0], [0, 0, 0, 0]),
        case_result("steady", [1, 1, 1], [0, 0, 0]),
        case_result("gone", [1, 1, 1]),
    )
    new = suite_result(
        case_result("greets", [0, 0, 0, 0], [0, 0, 0, 0]),
        case_result("counts", [0, 0, 0, 0], [0, 0, 0, 0]),
        case_result("steady", [1, 1, 1], [0, 0, 0]),
        case_result("fresh", [1, 0, 1]),
        started_at="2026-12-01T10:00:00.000Z",
    )
    old.claude_version = "2.1.300"
    old.triggers = [trigger_set("Greets.", {"f1": 4, "f2": 4, "n1": 0, "n2": 1})]
    new.triggers = [trigger_set("Greets warmly.", {"f1": 0, "f2": 4, "n1": 4, "n2": 1})]
    regression = CommentPart(new, compare(old, new, old_source="main/", new_source="pr/"), old)
    one_arm = suite_result(case_result("solo", [1, 1, 1]))
    return [
        [regression],
        [CommentPart(rich_suite())],
        [CommentPart(one_arm, label="opus"), CommentPart(suites().suites[1], label="haiku")],
    ]


def test_pr_comments_write_their_golden_text():
    texts = [
        comment_text(comment_parts()[0], "greeter", "https://ci.example/run/1", baseline="main"),
        comment_text(comment_parts()[1], "greeter"),
        comment_text(comment_parts()[2], "greeter", "https://ci.example/run/2"),
    ]
    assert "\n=====\n".join(texts) == golden(HERE, "pr_comment.md")
