"""The other arms' tables: the terminal's, the Markdown summary's and the HTML page's, from one view."""

from __future__ import annotations

from pytest_plugin_eval.report import arms
from pytest_plugin_eval.report.html import render_report
from pytest_plugin_eval.report.markdown import SessionPart, suite_markdown
from pytest_plugin_eval.report.view import reused_text
from pytest_plugin_eval.results.model import CaseResult, RunResult, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.scoring import aggregate, suite_aggregates


def runs(arm, *scores):
    return [RunResult(arm, i, score=s, passed=s == 1.0) for i, s in enumerate(scores, 1)]


def document(fail_on_worse: bool = False) -> SuiteResult:
    cases = []
    for name, theirs in (("same", 1.0), ("worse", 1.0), ("better", 0.0)):
        case = CaseResult(name, name, "prose", "p", 5, 60, 5, graders=[], runs_per_arm=5)
        mine = 0.0 if name == "worse" else 1.0
        case.arms = {
            "with": runs("with", *[mine] * 5),
            "against": runs("against", *[theirs] * 5),
            "ablate:review": runs("ablate:review", *[0.0] * 5),  # type: ignore[dict-item]
        }
        cases.append(aggregate(case))
    info = SuiteInfo("", "none", against="main", ablated=["review"], fail_on_worse=fail_on_worse)
    return SuiteResult("v", "", 0, info, cases, suite_aggregates(cases, 0.0))


def test_the_view_says_each_cases_verdict_and_the_movers():
    v = arms.arms_view(document())
    assert [(r.name, r.delta, r.verdict) for r in v.against_rows] == [
        ("same", "0.00", None),
        ("worse", "-1.00", "worse"),
        ("better", "+1.00", "better"),
    ]
    assert v.movers == ["worse than the other version: worse (-1.00)", "better than the other version: better (+1.00)"]
    assert v.against_summary is not None and "1 better · 1 worse · 1 no detectable change" in v.against_summary
    assert [(r.component, r.cases) for r in v.ablation_rows] == [("review", "same +1.00, worse 0.00, better +1.00")]


def test_the_terminal_names_the_worse_cases_only_with_fail_on_worse():
    assert not any(line.startswith("✗") for line in arms.terminal_lines(document()))
    lines = arms.terminal_lines(document(fail_on_worse=True))
    assert "✗ 1 case(s) worse than --against main: worse (--fail-on-worse)" in lines
    assert lines[1] == "Against the other version (--against): main"


def test_against_runs_without_a_named_version_read_as_the_other_version_never_none():
    unnamed = document(fail_on_worse=True)
    unnamed.suite.against = None  # an older or merged document: its runs, but not what --against named
    lines = arms.terminal_lines(unnamed)
    assert lines[1] == "Against the other version (--against)"
    assert "✗ 1 case(s) worse than the other version: worse (--fail-on-worse)" in lines
    text = suite_markdown(SessionPart(unnamed))
    assert "### Against the other version (--against)\n" in text
    page = render_report(unnamed)
    assert "<h2>Against the other version (--against)</h2>" in page
    assert not [where for where in ("\n".join(lines), text, page) if "None" in where or "``" in where]


def test_markdown_and_html_show_both_tables():
    text = suite_markdown(SessionPart(document()))
    assert "### Against the other version (--against): `main`" in text
    assert "| worse | 0.00 | 1.00 | -1.00 |" in text and "🔴 worse" in text
    assert "### What each component carried (--ablate)" in text
    page = render_report(document())
    assert 'id="against-table"' in page and 'id="ablation-table"' in page and "Without review (--ablate)" in page


def test_a_session_without_other_arms_shows_none():
    plain = document()
    for case in plain.cases:
        case.arms = {"with": case.arms["with"]}
        aggregate(case)
    plain.aggregates = suite_aggregates(plain.cases, 0.0)
    assert arms.terminal_lines(plain) == [] and arms.arms_view(plain).empty
    assert "against-table" not in render_report(plain)


def test_against_runs_taken_from_stored_with_runs_are_marked_in_every_view():
    reused = document()
    origin = {"session": "2026-12-01T10:00:00.000Z", "index": 1, "agentCostUsd": 0.02}
    reused.cases[0].arms["against"][0].reused_from = origin
    legend = "↺ AGAINST from stored runs (--reuse-baseline): 1 of 15 run(s) of the other version"
    lines = arms.terminal_lines(reused)
    assert any(line.startswith("same") and "1.00↺" in line for line in lines)
    assert any(line.startswith(legend) for line in lines)
    assert "| same | 1.00 | 1.00↺ |" in suite_markdown(SessionPart(reused))
    assert legend in render_report(reused)
    assert not any(line.startswith("↺") for line in arms.terminal_lines(document()))
    assert reused_text(reused.cases[0].arms["against"][0]) == (
        "↺ reused from the session of 2026-12-01T10:00:00.000Z (with-plugin run 1), graded again"
    )
