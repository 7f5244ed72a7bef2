"""The Markdown summary of a session (--md, the CI step summary) and the comparison's renderings: Markdown, the
terminal table and the HTML report's section."""

from __future__ import annotations

import io
import re
from pathlib import Path

from helpers.documents import GREETING, case_result, suite_result

from pytest_plugin_eval.analysis.compare import compare
from pytest_plugin_eval.report import comparison as compared
from pytest_plugin_eval.report.html import render_report
from pytest_plugin_eval.report.markdown import (
    SessionPart,
    comparison_markdown,
    session_markdown,
)
from pytest_plugin_eval.report.md import cell
from pytest_plugin_eval.report.terminal import StreamTerminal
from pytest_plugin_eval.results.model import (
    CaseResult,
    GraderInfo,
    GraderResult,
    LoadErrorEntry,
    RunResult,
    SuiteResult,
)


def runs(arm: str, passes) -> list[RunResult]:
    return [
        RunResult(
            arm,
            i,
            score=float(p),
            passed=p == 1,
            cost_usd=0.01,
            graders=[GraderResult("greeting", p == 1, 1, "ok" if p == 1 else "pattern ^Hello not found | twice")],
        )
        for i, p in enumerate(passes, 1)
    ]


def case(name, with_, without=None, graders=(GREETING,)) -> CaseResult:
    return case_result(name, runs("with", with_), None if without is None else runs("without", without), graders)


def document(*cases, **more) -> SuiteResult:
    return suite_result(*cases, duration_seconds=12, judge_model_resolved=None, **more)


def table_rows(markdown: str) -> list[list[str]]:
    return [
        [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        for line in markdown.splitlines()
        if line.startswith("|")
    ]


# ---- the session ---------------------------------------------------------------------------------------------


def test_a_two_arm_session_as_markdown():
    doc = document(case("greet", [1, 1, 1], [0, 0, 0]), case("shaky", [1, 0, 0], [0, 0, 0]))
    text = session_markdown([SessionPart(doc, results_path=Path("/r/aggregate-result.json"))])
    assert text.startswith("## Plugin eval: greeter\n")
    rows = table_rows(text)
    assert rows[0] == ["Case", "With", "W/out", "Δ", "Δ 95% CI", "Runs", "Cost", "Verdict", "Notes"]
    assert rows[1][0] == "---" and rows[1][1] == "---:"
    assert rows[2][:4] == ["greet", "1.00", "0.00", "+1.00"] and rows[2][7] == "✅ passed"
    assert rows[2][4] == "[+0.10, +1.00]"
    assert rows[3][0] == "shaky" and rows[3][4].endswith("n.s.") and rows[3][7] == "❌ failed"
    assert rows[3][8] == "greeting: pattern ^Hello not found \\| twice"  # a pipe does not break the table
    assert "**1 of 2 case(s) passed** (threshold 1.00) · mean Δ +0.67" in text
    failing = text.split("### Failing cases", 1)[1]
    assert "- **shaky** — greeting: pattern ^Hello not found \\| twice (with-plugin runs 2, 3)" in failing
    assert "  - ✗ greeting in with-plugin runs 2, 3" in failing
    assert re.search(r"^Results: `[^`]*r/aggregate-result.json`$", text, re.M)


def test_a_single_arm_session_partial_with_notices_and_load_errors():
    doc = document(
        case("solo", [1, 1]),
        partial="cost_ceiling",
        notices=["⚠ cost ceiling $1 reached"],
        load_errors=[
            LoadErrorEntry(
                "broken", "evals/broken", "bad key", [{"file": "evals/broken/prompt.md", "key": "runs", "message": "x"}]
            )
        ],
    )
    text = session_markdown([SessionPart(doc)])
    assert "> ⚠ **Partial results** (cost ceiling hit)" in text
    assert "- ⚠ cost ceiling $1 reached" in text
    assert "**✗ 1 case did not load**" in text and "- `evals/broken`: bad key" in text
    assert "  - `evals/broken/prompt.md: runs` x" in text
    assert table_rows(text)[0] == ["Case", "Score", "±SD", "Pass %", "Runs", "Cost", "Verdict", "Notes"]
    assert "Failing cases" not in text


def test_several_suites_each_get_a_section_and_the_comparison_follows_its_suite():
    old = document(case("greet", [1, 1, 1], [0, 0, 0]))
    new = document(case("greet", [0, 0, 0], [0, 0, 0]))
    text = session_markdown([SessionPart(new, compare(old, new, "before", "after")), SessionPart(old)])
    assert text.count("## Plugin eval: greeter") == 2
    first = text.split("## Plugin eval: greeter")[1]
    assert "### Compared with an earlier session" in first
    assert "Compared with" not in text.split("## Plugin eval: greeter")[2]


def test_cell_keeps_a_table_whole():
    assert cell("a | b\nc") == "a \\| b c"
    assert cell("") == " "


# ---- the comparison ------------------------------------------------------------------------------------------


def sessions():
    stricter = GraderInfo("greeting", "regex", 1, {"pattern": "^Hello from"})
    old = document(case("greet", [1, 1, 1], [0, 0, 0]), case("steady", [1, 1, 1], [0, 0, 0]), case("gone", [1, 1]))
    new = document(
        case("greet", [0, 0, 0], [0, 0, 0], graders=(stricter,)),
        case("steady", [1, 1, 1], [0, 0, 0]),
        case("fresh", [1, 1, 0], [0, 0, 0]),
    )
    return compare(old, new, "evals/results/old", "evals/results/new")


def test_the_comparison_as_markdown():
    text = comparison_markdown(sessions())
    assert text.startswith("## Compared with an earlier session\n")
    assert "- old: evals/results/old (2026-11-30 10:00:00)" in text
    assert "> ⚠ **Not comparable** — read the changes with care:\n> - greet: graders differ (greeting changed)" in text
    rows = table_rows(text)
    assert rows[0] == ["Case", "WITH", "Change", "95% CI", "Verdict", "Δ", "Change in Δ", "95% CI", "Verdict"]
    assert rows[2][:5] == ["greet", "1.00 → 0.00", "-1.00", "[-1.00, -0.10]", "🔴 worse"]
    assert rows[3][:5] == ["steady", "1.00 → 1.00", "0.00", "[-0.50, +0.50]", "no detectable change"]
    assert "**Added:** fresh (WITH 0.67, Δ +0.67)" in text
    assert "**Removed:** gone (WITH 1.00)" in text
    assert "- greet · greeting 3/3 → 0/3 (definition changed)" in text
    assert "- WITH: 0 better · 1 worse · 1 no detectable change" in text


def test_the_comparison_in_the_terminal():
    out = io.StringIO()
    compared.write_comparison(StreamTerminal(out), sessions())
    lines = out.getvalue().splitlines()
    assert "compared with the earlier session" in lines[0]
    assert "⚠ not comparable: greet: graders differ (greeting changed)" in lines
    head = next(i for i, line in enumerate(lines) if line.startswith("CASE"))
    assert lines[head].split() == [
        "CASE",
        "WITH",
        "CHANGE",
        "95%",
        "CI",
        "VERDICT",
        "Δ",
        "CHANGE",
        "95%",
        "CI",
        "VERDICT",
    ]
    greet = lines[head + 1].split()
    assert greet[:7] == ["greet", "1.00", "→", "0.00", "-1.00", "[-1.00,", "-0.10]"] and greet[7] == "worse"
    assert lines[head + 2].split()[7] == "n.s."
    assert "added: fresh (WITH 0.67, Δ +0.67)" in lines and "removed: gone (WITH 1.00)" in lines
    assert "  greet · greeting 3/3 → 0/3 (definition changed)" in lines
    # The columns line up: every row's WITH starts under its heading.
    column = lines[head].index("WITH")
    assert lines[head + 1][column:].startswith("1.00") and lines[head + 2][column:].startswith("1.00")


def test_the_html_report_shows_the_comparison_only_when_given():
    comparison = sessions()
    old_free = render_report(document(case("greet", [0, 0, 0], [0, 0, 0])))
    assert 'id="comparison"' not in old_free
    page = render_report(document(case("greet", [0, 0, 0], [0, 0, 0])), comparison=comparison)
    section = page.split('id="comparison"', 1)[1].split("</section>", 1)[0]
    assert "Compared with an earlier session" in section
    assert '<span class="cmp-worse">worse</span>' in section
    assert "greet: graders differ (greeting changed)" in section
    assert "<b>Added:</b> fresh (WITH 0.67, Δ +0.67)" in section
    assert "greeting 3/3 → 0/3 (definition changed)" in section


def test_the_access_and_what_costs_mean_on_a_plan_are_said_in_markdown_and_html():
    doc = suite_result(case_result("greets", [1.0], [0.0]))
    doc.access = {"runs": "login", "judges": "claude-code", "label": "Claude Code login (max plan)", "plan": True}
    said = (
        "Claude Code login (max plan) for runs and judges (judges asked through Claude Code); costs are list-price "
        "estimates, the plan's usage is what is spent"
    )
    assert said in session_markdown([SessionPart(doc)])
    assert said.replace("'", "&#39;") in render_report(doc)
    doc.access = {"runs": "api-key", "judges": "direct", "label": "API key (ANTHROPIC_API_KEY)", "plan": False}
    markdown = session_markdown([SessionPart(doc)])
    assert "API key (ANTHROPIC_API_KEY) for runs and judges (judges asked directly)" in markdown
    assert "plan's usage" not in markdown
