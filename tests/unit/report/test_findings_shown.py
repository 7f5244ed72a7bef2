"""The findings of a document shown beside their case: the terminal summary, the Markdown summary and the HTML
report; and a refusal that explains every failing run is the case's first note."""

from __future__ import annotations

import io

from helpers.documents import case_of, suite_result

from pytest_plugin_eval.report.html import render_report
from pytest_plugin_eval.report.markdown import SessionPart, session_markdown
from pytest_plugin_eval.report.terminal import StreamTerminal, write_summary
from pytest_plugin_eval.report.view import notes_for
from pytest_plugin_eval.results.findings import Finding
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult

ANSWER = GraderInfo("answer", "regex", 1, {"pattern": "x"})
FINDING = Finding(
    "writes", grader="answer", kind="unanchored-number", message="/0 errors/ opens on a digit", fix="bound it"
)


def refused_run(index: int) -> RunResult:
    return RunResult(
        "with",
        index,
        score=0.0,
        passed=False,
        graders=[GraderResult("answer", False, 1, "out.txt missing")],
        refused_tools=[{"tool": "Write", "why": "not granted"}],
    )


def document():
    doc = suite_result(case_of(refused_run(1), refused_run(2), name="writes", graders=[ANSWER]))
    doc.findings = [FINDING]
    return doc


def test_the_terminal_lists_findings_under_their_case():
    out = io.StringIO()
    write_summary(StreamTerminal(out), document(), None)
    text = out.getvalue()
    assert "Findings (1): what may make a case measure less than it seems" in text
    assert '  ⚑ writes: grader "answer": /0 errors/ opens on a digit — bound it [unanchored-number]' in text


def test_the_markdown_summary_lists_findings_under_their_case():
    text = session_markdown([SessionPart(document())])
    assert "### Findings (1)" in text
    assert '- **writes**\n  - ⚑ grader "answer": /0 errors/ opens on a digit — bound it [unanchored-number]' in text


def test_the_html_report_shows_findings_in_the_case_and_refusals_in_the_run():
    page = render_report(document())
    assert "⚑ grader &#34;answer&#34;: /0 errors/ opens on a digit — bound it [unanchored-number]" in page
    assert "Write refused ×1 (not granted)" in page


def test_a_refusal_in_every_failing_run_is_the_first_note():
    case = document().cases[0]
    case.warnings = ['grader "answer" checks files the agent writes']
    assert notes_for(case) == "with-plugin runs 2/2: Write refused ×2 (not granted: --allow-tools Write)"
    case.arms["with"][1].refused_tools = []  # one failing run was not refused: the warning comes first again
    assert notes_for(case) == case.warnings[0]


def test_no_findings_no_section():
    doc = document()
    doc.findings = []
    out = io.StringIO()
    write_summary(StreamTerminal(out), doc, None)
    assert "Findings" not in out.getvalue()
    assert "Findings" not in session_markdown([SessionPart(doc)])
