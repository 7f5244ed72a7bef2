"""What the runs spent as the reports show it (report/efficiency.py): the terminal's expanded view (-vv), the folded
table of the Markdown summary and of the HTML report."""

from __future__ import annotations

import io

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.report import efficiency
from pytest_plugin_eval.report.html import render_report
from pytest_plugin_eval.report.markdown import SessionPart, suite_markdown
from pytest_plugin_eval.report.page import run as run_view
from pytest_plugin_eval.report.terminal import StreamTerminal, write_summary
from pytest_plugin_eval.results.efficiency import Tokens
from pytest_plugin_eval.results.model import RunResult
from pytest_plugin_eval.results.scoring import aggregate


def spent(arm: str, turns: list[int]) -> list[RunResult]:
    return [
        RunResult(
            arm,
            i,
            score=1.0,
            passed=True,
            turns=t,
            cost_usd=0.001 * t,
            tool_calls=t - 1,
            tokens=Tokens(1000 * t, 10 * t),
            agent_seconds=1.5 * t,
        )
        for i, t in enumerate(turns, 1)
    ]


def measured_document():
    return suite_result(
        case_result("frugal", spent("with", [4, 4, 5]), spent("without", [1, 1, 2])),
        case_result("plain", spent("with", [2, 2, 2]), spent("without", [2, 2, 2])),
    )


def summary(document, expanded: bool) -> str:
    out = io.StringIO()
    write_summary(StreamTerminal(out), document, None, expanded=expanded)
    return out.getvalue()


def test_amounts():
    assert efficiency.amount("turns", 3) == "3" and efficiency.amount("turns", 2.5) == "2.5"
    assert efficiency.amount("tokens", 12345) == "12,345"
    assert efficiency.amount("costUsd", -0.0012, sign=True) == "-$0.0012"
    assert efficiency.amount("seconds", 1.25, sign=True) == "+1.2 s"
    assert efficiency.amount("turns", 0, sign=True) == "0"


def test_a_difference_too_small_to_show_reads_zero_not_minus_zero():
    assert efficiency.amount("seconds", -0.04, sign=True) == "0.0 s"
    assert efficiency.amount("costUsd", -0.00004, sign=True) == "$0.0000"
    assert efficiency.amount("turns", -0.04, sign=True) == "0"


def test_the_expanded_terminal_view_shows_each_case_and_the_suite():
    document = measured_document()
    assert "efficiency" not in summary(document, expanded=False)
    text = summary(document, expanded=True)
    lines = text.splitlines()
    start = lines.index("efficiency (median per run: with / without, Δ)")
    assert lines[start + 1] == (
        "frugal               turns 4 / 1 (+3) · tool calls 3 / 0 (+3) · tokens 4,040 / 1,010 (+3,030) · "
        "cost $0.0040 / $0.0010 (+$0.0030) · time 6.0 s / 1.5 s (+4.5 s)"
    )
    assert lines[start + 2].startswith("plain                turns 2 / 2 (0) ·")
    assert lines[start + 3].startswith("suite (median case)  turns 3 / 1.5 (+1.5) ·")


def test_a_session_whose_runs_recorded_nothing_shows_no_efficiency():
    document = suite_result(case_result("old", [1.0, 1.0], [0.0, 0.0]))
    assert efficiency.table(document) is None
    assert "efficiency" not in summary(document, expanded=True)
    assert "Efficiency" not in suite_markdown(SessionPart(document))
    assert 'id="efficiency"' not in render_report(document)


def test_markdown_and_html_fold_the_table_with_the_intervals():
    document = measured_document()
    markdown = suite_markdown(SessionPart(document))
    assert "<details><summary>Efficiency (median per run: with / without, Δ)</summary>" in markdown
    assert "| Case | Turns | Tool calls | Tokens | Cost | Time |" in markdown
    assert "| frugal | 4 / 1 (+3, 90% CI [+2, +4]) |" in markdown
    page = render_report(document)
    assert '<details class="efficiency" id="efficiency"><summary>Efficiency (median per run' in page
    assert '<td class="num">4 / 1 (+3, 90% CI [+2, +4])</td>' in page
    assert "<td>suite (median case)</td>" in page


def test_a_runs_facts_on_the_page_say_what_it_spent():
    [first] = spent("with", [4])
    facts = run_view(first, "with-plugin 1", "Say hello.").facts
    assert facts.startswith("score 1.00 · passed · 4 turns · 3 tool calls · 4,040 tokens · $0.")
    older = RunResult("with", 1, score=1.0, passed=True, turns=2)  # recorded before these were
    assert "tool calls" not in run_view(older, "with-plugin 1", "Say hello.").facts


def test_another_arm_s_median_is_not_shown_as_the_without_plugin_one():
    # --ablate with --ablation none: the with arm and an ablation arm, no without arm. "4 / 2" would read as
    # with / without under a heading that names neither.
    document = suite_result(case_result("solo", spent("with", [4, 4, 4])))
    case = document.cases[0]
    case.arms["ablate:review"] = spent("ablate:review", [2, 2, 2])
    document = suite_result(aggregate(case))
    assert efficiency.table(document).rows[0][1][0] == "4"
    with_against = suite_result(case_result("two", spent("with", [4, 4, 4]), spent("without", [1, 1, 1])))
    case = with_against.cases[0]
    case.arms["against"] = spent("against", [9, 9, 9])
    assert efficiency.table(suite_result(aggregate(case))).rows[0][1][0].startswith("4 / 1 (+3")


def against_document():
    case = case_result("leaner", spent("with", [4, 4, 4]), spent("without", [1, 1, 1]))
    case.arms["against"] = spent("against", [9, 9, 9])
    return suite_result(aggregate(case))


def test_an_against_arm_adds_then_and_now_to_every_view():
    document = against_document()
    heading = "efficiency (median per run: with / without, Δ; then → now: against → with)"
    lines = summary(document, expanded=True).splitlines()
    assert lines[lines.index(heading) + 1].startswith("leaner  turns 4 / 1 (+3); 9 → 4 · tool calls 3 / 0 (+3); 8 → 3")
    markdown = suite_markdown(SessionPart(document))
    assert f"<details><summary>E{heading[1:]}</summary>" in markdown
    assert "| leaner | 4 / 1 (+3, 90% CI [+3, +3]); 9 → 4 |" in markdown
    page = render_report(document)
    assert '<td class="num">4 / 1 (+3, 90% CI [+3, +3]); 9 → 4</td>' in page
    assert "then → now" not in efficiency.table(measured_document()).heading


def test_every_view_shows_the_efficiency_table_before_the_other_arms():
    document = against_document()
    document.suite.against = "v1"
    text = summary(document, expanded=True)
    assert 0 < text.index("efficiency (median per run") < text.index("Against the other version (--against): v1")
    markdown = suite_markdown(SessionPart(document))
    assert 0 < markdown.index("Efficiency (median per run") < markdown.index("Against the other version")
    page = render_report(document)
    assert 0 < page.index('id="efficiency"') < page.index('id="against"')
