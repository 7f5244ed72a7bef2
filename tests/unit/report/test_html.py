"""The HTML report: built from small results documents (traces written to tmp_path) and parsed back; the page,
and the parts pytest-html embeds. (The real example suite and a real browser: tests/acceptance/test_report.py.)"""

from __future__ import annotations

import ast
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pytest_plugin_eval.report import html as _html
from pytest_plugin_eval.report.html import conversation_html
from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import SuiteResult


def render_report(doc: dict) -> str:
    return _html.render_report(SuiteResult.from_json(doc))


def write_report(doc: dict, path) -> None:
    _html.write_report(SuiteResult.from_json(doc), path)


def summary_html(doc: dict) -> str:
    return _html.summary_html(SuiteResult.from_json(doc))


def run_html(doc: dict, case_index: int = 0, arm: str = "with", position: int = 0) -> str:
    case = SuiteResult.from_json(doc).cases[case_index]
    return _html.run_html(case.runs(arm)[position], case.prompt)


PROMPT = "Rename getUser to fetchUser and write a commit message."


# ---- building documents ------------------------------------------------------------------------------


def line(event: dict) -> str:
    return json.dumps(event) + "\n"


def assistant(block: dict, parent: str | None = None, **extra) -> str:
    return line(
        {"type": "assistant", "message": {"id": "msg_1", "content": [block]}, "parent_tool_use_id": parent, **extra}
    )


def tool_result(tool_id: str, content, is_error: bool = False, parent: str | None = None) -> str:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return line({"type": "user", "message": {"content": [block]}, "parent_tool_use_id": parent})


def result(subtype: str = "success", turns: int = 3, cost: float = 0.0123, **extra) -> str:
    return line(
        {
            "type": "result",
            "subtype": subtype,
            "num_turns": turns,
            "total_cost_usd": cost,
            "stop_reason": "end_turn",
            **extra,
        }
    )


INIT = line(
    {
        "type": "system",
        "subtype": "init",
        "model": "claude-test",
        "claude_code_version": "2.1.327",
        "plugins": [
            {"name": "commit-craft", "path": "/p", "source": "commit-craft@inline"},
            {"name": "cc-plugin-plugin-authoring", "path": "builtin", "source": "cc-plugin-plugin-authoring@builtin"},
        ],
        "skills": ["code-review", "commit-craft:commit-message", "plugin-authoring"],
    }
)

FULL_TRACE = "".join(
    [
        INIT,
        assistant(
            {"type": "tool_use", "id": "toolu_1", "name": "Skill", "input": {"skill": "commit-craft:commit-message"}}
        ),
        tool_result("toolu_1", "Launching skill: commit-craft:commit-message"),
        line(
            {
                "type": "user",
                "isSynthetic": True,
                "parent_tool_use_id": None,
                "message": {
                    "content": [
                        {
                            "type": "text",
                            "text": "Base directory for this skill: /skills\n\nWrite a conventional commit.",
                        }
                    ]
                },
            }
        ),
        assistant({"type": "thinking", "thinking": "The user wants a commit message."}),
        assistant({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "git diff --stat"}}),
        tool_result("toolu_2", [{"type": "text", "text": "src/users.py | 6 +++---"}]),
        assistant({"type": "tool_use", "id": "toolu_3", "name": "Read", "input": {"file_path": "/nope.txt"}}),
        tool_result("toolu_3", "File does not exist.", is_error=True),
        assistant({"type": "tool_use", "id": "toolu_4", "name": "Task", "input": {"description": "look around"}}),
        assistant(
            {"type": "tool_use", "id": "toolu_5", "name": "Grep", "input": {"pattern": "getUser"}}, parent="toolu_4"
        ),
        tool_result("toolu_5", "no matches", parent="toolu_4"),
        tool_result("toolu_4", "Subagent done."),
        assistant({"type": "text", "text": "refactor(users): rename getUser to fetchUser"}),
        result(),
    ]
)


def grader(name: str, passed: bool = True, **extra) -> dict:
    return {
        "name": name,
        "passed": passed,
        "weight": 1,
        "explanation": f"{name} explained",
        "withOnly": False,
        "scored": True,
        **extra,
    }


def run(score: float | None, trace: Path | None, *, graders: list[dict] | None = None, **extra) -> dict:
    return {
        "score": score,
        "passed": score == 1.0,
        "turns": 3,
        "costUsd": 0.01,
        "judgeCostUsd": 0.0,
        "durationSeconds": 1.5,
        "startedAt": "2026-11-29T19:14:00.123Z",
        "error": None,
        "tracePath": None if trace is None else str(trace),
        "skippedPaidGraders": False,
        "graders": graders if graders is not None else [grader("ok")],
        **extra,
    }


def case(name: str, with_runs: list[dict], without_runs: list[dict] | None = None, **aggregates) -> dict:
    arms = {"with": with_runs}
    if without_runs is not None:
        arms["without"] = without_runs
    scores = [r["score"] for r in with_runs if r["score"] is not None]
    agg = {"score": sum(scores) / len(scores) if scores else None, "passRate": 1.0}
    if without_runs is not None:
        base = [r["score"] for r in without_runs if r["score"] is not None]
        agg.update(scoreWithout=sum(base) / len(base), passRateWithout=0.0)
        agg["delta"] = agg["score"] - agg["scoreWithout"]  # type: ignore[operator]  # both set just above
    agg.update(aggregates)
    return {
        "name": name,
        "dir": f"evals/{name}",
        "source": "prose",
        "promptMarkdown": PROMPT,
        "runsPerCase": 1,
        "timeoutSeconds": 300,
        "maxTurns": 5,
        "graders": [{"name": "ok", "type": "regex", "weight": 1, "config": {"pattern": "fetchUser"}}],
        "runsPerArm": len(with_runs),
        "arms": arms,
        "aggregates": agg,
    }


def document(cases: list[dict], **top) -> dict:
    two_arm = any("delta" in c["aggregates"] for c in cases)
    agg = {
        "casesTotal": len(cases),
        "casesPassed": sum(1 for c in cases if (c["aggregates"]["score"] or 0) >= 1.0),
        "overallScore": sum(c["aggregates"]["score"] or 0 for c in cases) / max(len(cases), 1),
        "overallPassRate": 1.0,
    }
    if two_arm:
        deltas = [c["aggregates"]["delta"] for c in cases if c["aggregates"].get("delta") is not None]
        agg["meanDelta"] = sum(deltas) / len(deltas)
    doc = {
        "schemaVersion": 1,
        "claudeVersion": "2.1.327",
        "startedAt": "2026-11-29T19:14:00.123Z",
        "durationSeconds": 75,
        "costUsd": 0.04,
        "partial": False,
        "suite": {
            "root": "/plugins/commit-craft",
            "ablation": "with-without" if two_arm else "none",
            "judgeModelResolved": "claude-haiku-test",
            "threshold": 1.0,
            "concurrency": 2,
            "plugins": [{"name": "commit-craft", "version": "0.1.0", "path": "/plugins/commit-craft"}],
        },
        "cases": cases,
        "aggregates": agg,
        "loadErrors": [],
    }
    doc.update(top)
    return doc


def write_trace(folder: Path, name: str, text: str = FULL_TRACE) -> Path:
    path = folder / name / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


@pytest.fixture
def two_arm_doc(tmp_path) -> dict:
    """`improves` (+0.40, stats significant) and `regresses` (−0.50, not significant), all runs with traces."""
    t = lambda name: write_trace(tmp_path, name)  # noqa: E731
    improves = case(
        "improves",
        [run(1.0, t("i-w1"))],
        [run(0.6, t("i-o1"))],
        stdevWith=0.0,
        stdevWithout=0.1,
        deltaCI=[0.2, 0.6],
        deltaSignificant=True,
    )
    failing = [grader("names-the-rename", passed=False)]
    regresses = case(
        "regresses",
        [run(0.5, t("r-w1"), graders=failing), run(0.5, t("r-w2"), graders=failing)],
        [run(1.0, t("r-o1")), run(1.0, t("r-o2"))],
        stdevWith=0.25,
        stdevWithout=None,
        deltaCI=[-0.9, 0.1],
        deltaSignificant=False,
    )
    return document([improves, regresses])


# ---- reading the page back ---------------------------------------------------------------------------


class Page(HTMLParser):
    """Tables by id (rows of cell texts), elements by class, and every id and attribute seen."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.ids: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.classes: list[tuple[str, str]] = []  # (class attribute, text up to the next tag)
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._last_class = ""
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key, value in attrs.items():
            self.attrs.append((tag, key, value or ""))
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "table":
            self._table = attrs.get("id")
            self.tables.setdefault(self._table, [])
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        self._last_class = attrs.get("class", "")
        self.classes.append((self._last_class, ""))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        cls, text = self.classes[-1] if self.classes else ("", "")
        if self.classes:
            self.classes[-1] = (cls, text + data)

    def texts(self, cls: str) -> list[str]:
        """Texts directly inside elements whose class list holds `cls`."""
        return [text for classes, text in self.classes if cls in classes.split()]

    def rows(self, table_id: str) -> list[list[str]]:
        return self.tables[table_id]


def section(page: str, anchor_prefix: str) -> str:
    """The HTML of the case section whose id starts with `anchor_prefix`."""
    match = re.search(rf'<section class="case" id="{re.escape(anchor_prefix)}[^"]*">(.*?)</section>', page, re.S)
    assert match, anchor_prefix
    return match.group(1)


# ---- the summary ---------------------------------------------------------------------------------------


def test_summary_table_rows_and_values(two_arm_doc):
    page = Page(render_report(two_arm_doc))
    header, *rows = page.rows("summary")
    assert header == ["Case", "With", "W/out", "Δ", "Spread", "Δ CI", "Runs", "Cost", "Notes"]
    assert rows[0] == [
        "improves",
        "1.00",
        "0.60",
        "+0.40",
        "±0.00 / ±0.10",
        "[+0.20, +0.60] significant",
        "2",
        "$0.02",
        "",
    ]
    assert rows[1] == [
        "regresses",
        "0.50",
        "1.00",
        "-0.50",
        "±0.25 / –",
        "[-0.90, +0.10] not significant",
        "4",
        "$0.04",
        "names-the-rename: names-the-rename explained",
    ]


def test_negative_delta_is_drawn_red_and_signed(two_arm_doc):
    page = render_report(two_arm_doc)
    bars = re.findall(
        r'<span class="dbar (\w+)"[^>]*><span class="fill" style="left:([\d.]+)%;width:([\d.]+)%">'
        r'</span></span><span class="dval (\w+)">([^<]+)</span>',
        page,
    )
    assert bars == [
        ("improved", "50.0", "20.0", "improved", "+0.40"),
        ("regressed", "25.0", "25.0", "regressed", "-0.50"),
    ]
    assert ".plugin-eval .dbar.regressed .fill{background:#cf222e}" in page


def test_case_names_link_to_their_sections(two_arm_doc):
    page = Page(render_report(two_arm_doc))
    links = [value for tag, key, value in page.attrs if tag == "a" and key == "href"]
    assert links == ["#case-1-improves", "#case-2-regresses"]
    assert {"case-1-improves", "case-2-regresses"} <= set(page.ids)


def test_case_section_shows_the_interval_and_pass_at_k(two_arm_doc):
    two_arm_doc["cases"][1]["aggregates"].update(passAtK={"1": 0.5, "2": 1.0}, passHatK={"1": 0.5, "2": 0.0})
    html = render_report(two_arm_doc)
    regresses = section(html, "case-2-")
    text = " ".join(re.sub(r"<[^>]+>", " ", regresses).split())
    assert "score 0.50 · without 1.00 · Δ -0.50 · 95% CI [-0.90, +0.10] not significant" in text
    assert "Δ +0.40 · 95% CI [+0.20, +0.60] significant" in re.sub(r"<[^>]+>", "", section(html, "case-1-"))
    assert Page(html).rows("case-2-regresses-passk") == [
        ["k", "1", "2"],
        ["pass@k", "0.50", "1.00"],
        ["pass^k", "0.50", "0.00"],
    ]
    assert "estimated from 2 scored runs" in text
    # A document without them (written before they existed) has no such table.
    assert "passk" not in section(html, "case-1-")


def test_pass_at_k_table_keeps_the_first_k_and_the_last():
    runs = [run(1.0 if i % 4 else 0.0, None) for i in range(12)]
    doc = document([scoring_case("many", runs)])
    rows = Page(render_report(doc)).rows("case-1-many-passk")
    assert rows[0] == ["k", *[str(k) for k in range(1, 10)], "12"]
    # 9 of 12 passed: pass@1 = pass^1 = 0.75, pass@12 = 1, pass^12 = 0.
    assert rows[1][1] == rows[2][1] == "0.75" and rows[1][-1] == "1.00" and rows[2][-1] == "0.00"


def scoring_case(name: str, with_runs: list[dict]) -> dict:
    """A case whose aggregates are computed from its runs, as a session writes them."""
    result = SuiteResult.from_json(document([case(name, with_runs)]))
    return scoring.aggregate(result.cases[0]).to_json()


def test_header_verdict_and_cards(two_arm_doc):
    two_arm_doc["suite"]["scripted"] = True
    two_arm_doc.update(partial=True, partialReason="judge_error", notices=["3 runs reused a cached plugin"])
    html = render_report(two_arm_doc)
    page = Page(html)
    assert "improved 1 · flat 0 · regressed 0 · regressed (n.s.) 1" in re.sub(r"<[^>]+>", "", html)
    assert any("scripted endpoint" in t and "not from a real model" in t for t in page.texts("scripted"))
    assert page.texts("partial") == [
        "⚠ Partial results: judge unavailable. Some runs did not finish or were not "
        "graded, so the scores below are incomplete."
    ]
    assert page.texts("notice") == ["3 runs reused a cached plugin"]
    assert "commit-craft" in html and "0.1.0" in html and "2.1.327" in html and "claude-haiku-test" in html
    labels, values = page.texts("label"), page.texts("value")
    cards = dict(zip(labels, values, strict=True))
    assert cards == {
        "Score with the plugin": "0.75",
        "Mean Δ": "-0.05",
        "Baseline score": "0.80",
        "Cases over the threshold": "1 / 2",
        "Perfect runs": "1 / 3",
        "Cost": "$0.04",
        "Duration": "1m 15s",
    }


def test_flat_delta_and_single_arm_verdict(tmp_path):
    flat = case("flat", [run(1.0, None)], [run(0.998, None)])
    assert "improved 0 · flat 1 · regressed 0" in re.sub(r"<[^>]+>", "", render_report(document([flat])))
    single = document([case("passes", [run(1.0, None)]), case("fails", [run(0.5, None)])])
    html = render_report(single)
    assert "passed 1 · failed 1 · threshold 1.00" in re.sub(r"<[^>]+>", "", html)
    header, *rows = Page(html).rows("summary")
    assert header == ["Case", "Score", "Pass %", "Runs", "Cost", "Notes"]
    assert [r[:3] for r in rows] == [["passes", "1.00", "100%"], ["fails", "0.50", "100%"]]


def test_notes_prefer_a_run_error_then_a_failing_grader_then_an_abort(tmp_path):
    erroring = case(
        "erroring",
        [
            run(None, None, graders=[grader("g", passed=False)], error="agent timed out"),
            run(None, None, error="second error"),
        ],
    )
    aborting = case("aborting", [run(1.0, None, aborted={"server": "jira", "tool": "create", "reason": "no mock"})])
    rows = Page(render_report(document([erroring, aborting]))).rows("summary")[1:]
    assert rows[0][-1] == "agent timed out"
    assert rows[1][-1] == "aborted by mock jira/create: no mock"


def test_load_errors_are_listed():
    doc = document(
        [],
        loadErrors=[
            {
                "case": "broken",
                "dir": "evals/broken",
                "message": "evals/broken/prompt.md: bad",
                "problems": [
                    {"file": "evals/broken/graders/g.md", "key": "weight", "message": "must be a number"},
                    {"file": "evals/broken/prompt.md", "key": "runs", "message": "must be above 0"},
                ],
            }
        ],
    )
    page = Page(render_report(doc))
    assert page.rows("load-error-list")[1:] == [
        ["broken", "evals/broken/graders/g.md", "weight", "must be a number"],
        ["broken", "evals/broken/prompt.md", "runs", "must be above 0"],
    ]
    assert "load-errors" in page.ids
    assert "No eval cases ran." in render_report(doc)


# ---- runs and transcripts ----------------------------------------------------------------------------


def test_transcript_reads_as_a_conversation(tmp_path):
    doc = document([case("one", [run(1.0, write_trace(tmp_path, "w1"))])])
    page = render_report(doc)
    run_html = section(page, "case-1-one")
    assert '<details class="transcript">' in run_html
    conv = run_html[run_html.index('<div class="conv">') :]
    assert f'User prompt</div><pre class="">{PROMPT}</pre>' in conv
    assert 'Assistant</div><pre class="">refactor(users): rename getUser to fetchUser</pre>' in conv
    assert 'Tool call <code>Bash</code></div><pre class="">command: git diff --stat</pre>' in conv
    assert 'Result of <code>Bash</code></div><pre class="">src/users.py | 6 +++---</pre>' in conv
    assert (
        '<div class="msg tool skill"><div class="who"><span class="badge skill">skill: '
        "commit-craft:commit-message</span></div>"
    ) in conv
    assert '<div class="msg result error"><div class="who">Error from <code>Read</code>' in conv
    assert (
        '<div class="msg tool sub"><div class="who"><span class="badge sub">subagent</span> Tool call <code>Grep</code>'
    ) in conv
    assert '<div class="msg synthetic">' in conv and "Write a conventional commit." in conv
    assert "The user wants a commit message." in conv
    assert "success · 3 turns · $0.01 · stop reason: end_turn" in conv
    assert "plugins: commit-craft, cc-plugin-plugin-authoring" in conv
    # issue 23 item 10: what both arms have of Claude Code's own, beside the plugin's skills
    assert (
        "plugin skills: commit-craft:commit-message · built-in skills (both arms): code-review, plugin-authoring"
        in (conv)
    )


def test_failed_result_line_is_red_and_lists_errors():
    trace = INIT + result("error_max_turns", turns=5, errors=["Reached max turns (5)"])
    conv = conversation_html(trace, "hi")
    assert conv.startswith("<style>")
    assert '<div class="msg final error">' in conv
    assert "error_max_turns · 5 turns" in conv and "Reached max turns (5)" in conv


def test_a_session_start_hooks_output_is_in_the_transcript():
    """Issue 34 item 14: what a SessionStart hook tells the model (the whole of some plugins) shows."""
    started = {"type": "system", "subtype": "hook_started", "hook_name": "SessionStart:startup"}
    response = {
        "type": "system",
        "subtype": "hook_response",
        "hook_name": "SessionStart:startup",
        "hook_event": "SessionStart",
        "output": "You have superpowers.\n",
        "stdout": "You have superpowers.\n",
        "stderr": "",
        "exit_code": 0,
        "outcome": "success",
    }
    trace = json.dumps(started) + "\n" + json.dumps(response) + "\n" + INIT + result()
    conv = conversation_html(trace, "hi")
    assert "Hook SessionStart:startup (success, exit 0)" in conv and "You have superpowers." in conv
    assert "hook_started" not in conv


def test_long_tool_result_is_truncated():
    call = assistant({"type": "tool_use", "id": "t", "name": "Read", "input": {}})
    trace = INIT + call + tool_result("t", "x" * 5000)
    conv = conversation_html(trace, "hi")
    assert "x" * 2000 + "\n… 3,000 more characters" in conv
    assert "x" * 2001 not in conv


def test_huge_transcript_keeps_head_and_tail_and_cuts_the_middle():
    middle = "".join(assistant({"type": "text", "text": f"step {i} " + "y" * 5000}) for i in range(200))
    trace = INIT + middle + assistant({"type": "text", "text": "the final answer"}) + result()
    conv = conversation_html(trace, "hi")
    assert len(conv) < 210_000
    assert "step 0 " in conv and "the final answer" in conv and "success · 3 turns" in conv
    assert "step 100 " not in conv
    assert re.search(r"… \d+ entries \([\d,]+ characters\) left out of the middle", conv)


def test_judge_votes_evidence_and_badges(tmp_path):
    judged = grader(
        "reads-well",
        passed=False,
        judgeVotes=[True, False],
        judgeModel="claude-haiku-test",
        evidence="the reply the judge read",
        costUsd=0.0001,
    )
    graders = [
        judged,
        grader("skill-fired", withOnly=True, scored=False),
        grader("huge-evidence", judgeVotes=[True], evidence="e" * 30_000),
        grader("outage", passed=False, errored=True, scored=False),
        grader("ceiling", passed=False, skipped=True, scored=False),
    ]
    page = render_report(document([case("judged", [run(0.5, None, graders=graders)])]))
    assert '<span class="chip pass">PASS</span><span class="chip fail">FAIL</span>' in page
    assert "by claude-haiku-test" in page
    assert '<details class="evidence"><summary>Evidence the judge read</summary>' in page
    assert "the reply the judge read" in page
    assert "(cut at 20,000 of 30,000 characters)" in page and "e" * 20_001 not in page
    skill = page[page.index("<b>skill-fired</b>") :].split("</li>")[0]
    assert "with-only indicator" in skill and "not scored" in skill
    assert '<span class="mark na">–</span><b>outage</b> <span class="chip badge">errored</span>' in page
    assert '<span class="chip badge">skipped</span>' in page


def test_missing_trace_and_mocks(tmp_path):
    mocks = {
        "servers": ["jira"],
        "warnings": ["jira: 1 call had no recorded answer"],
        "calls": {"total": 3, "errors": 1, "unmocked": ["jira/delete"]},
    }
    runs = [run(1.0, tmp_path / "gone" / "trace.jsonl", mocks=mocks), run(1.0, None)]
    page = render_report(document([case("lost", runs)]))
    assert f"Trace unavailable (No such file or directory): <code>{tmp_path}/gone/trace.jsonl</code>" in page
    assert "No trace was kept for this run." in page
    assert "<summary>Mock calls: 3 · errors 1 · unmocked: jira/delete</summary>" in page
    assert "⚠ jira: 1 call had no recorded answer" in page


# ---- safety --------------------------------------------------------------------------------------------


def test_text_from_the_document_and_trace_is_escaped(tmp_path):
    evil = "<script>alert(1)</script>"
    trace = (
        INIT
        + assistant({"type": "text", "text": evil})
        + assistant({"type": "tool_use", "id": "t", "name": evil, "input": {evil: evil}})
        + tool_result("t", evil)
        + result()
    )
    bad = case(
        f'x"{evil}',
        [
            run(
                0.0,
                write_trace(tmp_path, "evil", trace),
                graders=[grader(evil, passed=False, judgeVotes=[False], evidence=evil)],
                error=evil,
            )
        ],
    )
    bad["promptMarkdown"] = evil
    bad["graders"][0].update(name=evil, graderMarkdown=evil, config={evil: evil})
    doc = document([bad], notices=[evil], loadErrors=[{"case": evil, "dir": evil, "message": evil, "problems": []}])
    doc["suite"]["plugins"][0]["name"] = evil
    page = render_report(doc)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    parsed = Page(page)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in parsed.ids)
    assert [v for tag, key, v in parsed.attrs if tag == "a" and key == "href"] == ["#case-1-x-script-alert-1-script"]


def test_page_references_nothing_outside_itself(two_arm_doc):
    two_arm_doc["notices"] = ["see https://example.com for more"]
    page = render_report(two_arm_doc)
    for tag, key, value in Page(page).attrs:
        if key in ("src", "href", "action", "srcset", "poster", "data"):
            assert value.startswith("#"), (tag, key, value)
    assert "@import" not in page
    assert not re.search(r"url\(\s*['\"]?\s*(https?:|//)", page)
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", page)


def test_write_report_is_atomic(tmp_path, two_arm_doc, monkeypatch):
    target = tmp_path / "out" / "report.html"
    write_report(two_arm_doc, target)
    assert target.read_text(encoding="utf-8") == render_report(two_arm_doc)
    assert os.listdir(target.parent) == ["report.html"]

    replaced: list[tuple[str, str]] = []

    def failing_replace(src, dst):
        replaced.append((str(src), str(dst)))
        raise OSError("disk full")

    monkeypatch.setattr("pytest_plugin_eval.results.store.os.replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_report(document([]), target)
    assert replaced and Path(replaced[0][0]).parent == target.parent and replaced[0][1] == str(target)
    assert target.read_text(encoding="utf-8") == render_report(two_arm_doc)  # the old page is intact
    assert os.listdir(target.parent) == ["report.html"]  # and no temp file is left


NASTY = "a<script>&\"'b"  # every character HTML gives a meaning to


def test_text_is_escaped_exactly_once(tmp_path):
    """Read back, every text is what the document said: neither raw markup nor `&amp;lt;`."""
    trace = (
        INIT
        + assistant({"type": "text", "text": NASTY})
        + assistant({"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": NASTY}})
        + tool_result("t", NASTY)
    )
    nasty = case(
        NASTY, [run(0.5, write_trace(tmp_path, "nasty", trace), graders=[grader("g", passed=False, explanation=NASTY)])]
    )
    doc = document([nasty])
    doc["suite"]["plugins"][0]["name"] = NASTY
    for html in (render_report(doc), summary_html(doc), run_html(doc)):
        assert "<script" not in html
        assert not re.search(r"&amp;(amp|lt|gt|quot|#\d+);", html), "escaped twice"
    texts = [text.strip() for _, text in Page(render_report(doc)).classes]
    assert f"Plugin eval: {NASTY}" in texts  # the title and the heading
    assert texts.count(NASTY) == 5  # table link, section heading, explanation, the reply, the tool result
    assert f"file_path: {NASTY}" in texts  # the tool call's input
    assert f"g: {NASTY}" in texts  # the NOTES cell
    assert NASTY in [text for _, text in Page(summary_html(doc)).classes]
    assert f" {NASTY}" in [text for _, text in Page(run_html(doc)).classes]


# ---- the parts pytest-html embeds ------------------------------------------------------------------------


def embedded(part: str) -> tuple[str, str]:
    """The CSS and the content of an embedded part: `<style>…</style><div class="plugin-eval">…</div>`."""
    match = re.fullmatch(r'<style>(.*?)</style><div class="plugin-eval">(.*)</div>', part, re.S)
    assert match, part[:200]
    return match.group(1), match.group(2)


def selectors(css: str) -> list[str]:
    """Every selector of a style sheet, inside @media blocks too."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    preludes = [p.strip() for p in re.findall(r"([^{}]+)\{", css)]
    assert all(p.startswith("@media") for p in preludes if p.startswith("@")), preludes
    return [s.strip() for p in preludes if not p.startswith("@") for s in p.split(",")]


def test_embedded_parts_have_no_frame_and_their_styles_stay_inside(two_arm_doc):
    parts = [summary_html(two_arm_doc), run_html(two_arm_doc, 1), conversation_html(FULL_TRACE, PROMPT)]
    page_css = re.search(r"<style>(.*?)</style>", render_report(two_arm_doc), re.S).group(1)
    for part in parts:
        assert "<iframe" not in part and "srcdoc" not in part
        css, _ = embedded(part)
        assert css == page_css  # one style sheet for the page and the parts
    scoped = selectors(page_css)
    assert len(scoped) > 50
    assert [s for s in scoped if not re.match(r"(body)?\.plugin-eval\b", s)] == []


def test_embedded_summary_and_run(two_arm_doc):
    _, summary = embedded(summary_html(two_arm_doc))
    page = Page(summary)
    assert page.rows("summary")[1][:4] == ["improves", "1.00", "0.60", "+0.40"]
    assert "improved 1 · flat 0 · regressed 0 · regressed (n.s.) 1" in re.sub(r"<[^>]+>", "", summary)
    assert not [v for tag, key, v in page.attrs if key == "href"]  # no case sections here to link to
    assert "<section" not in summary
    _, one = embedded(run_html(two_arm_doc, 1))
    assert '<span class="mark fail">✗</span>run · score 0.50 · not perfect' in one
    assert "names-the-rename explained" in one and '<details class="transcript">' in one


def test_the_page_loads_nothing_and_runs_nothing(two_arm_doc):
    for html in (render_report(two_arm_doc), summary_html(two_arm_doc), run_html(two_arm_doc)):
        assert "<script" not in html.lower()
        assert "http" not in html and "//" not in html  # no URL of any kind, relative to a scheme or not


# ---- trends --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta, trend", [(0.03, "flat"), (0.06, "improved"), (-0.03, "flat"), (-0.06, "regressed")])
def test_trend_classes_come_from_scoring(delta, trend):
    assert scoring.trend(delta) == trend
    one = case("one", [run(1.0, None)], [run(1.0 - delta, None)])
    html = render_report(document([one]))
    assert f'<span class="dbar {trend}" aria-hidden="true">' in html
    assert f'<span class="dval {trend}">{delta:+.2f}</span>' in html
    assert f'<div class="value {trend}">{delta:+.2f}</div>' in html  # the Mean Δ card
    assert f'<span class="{trend}">{trend} 1</span>' in html  # the verdict


# ---- where jinja2 is imported ------------------------------------------------------------------------------


def imported(node: ast.AST) -> list[str]:
    """The names an import statement mentions: its module and what it takes from it."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module or "", *(alias.name for alias in node.names)]
    return []


def test_jinja2_is_imported_only_when_a_report_is_written():
    """Only report/html.py imports jinja2 at its top, and no module imports report/html.py at its top; report/md.py
    (the Markdown pages) imports it when it renders one: loading the plugin (every pytest run where it is installed)
    does not load a template engine."""
    html_module = Path(_html.__file__)
    package = html_module.parents[1]
    jinja_users, eager = set(), []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(name.split(".")[0] in ("jinja2", "markupsafe") for node in ast.walk(tree) for name in imported(node)):
            jinja_users.add(path.relative_to(package).as_posix())
        for node in tree.body:  # module level only: an import inside a function runs when it is called
            names = imported(node)
            if (
                path != html_module
                and names
                and (
                    names[0].endswith("report.html")
                    or (names[0].endswith("report") and "html" in names[1:])
                    or (path.parent == html_module.parent and names[0] == "html" and node.level == 1)
                )
            ):
                eager.append(path.relative_to(package).as_posix())
    assert jinja_users == {"report/html.py", "report/md.py"}
    assert eager == []
    md = ast.parse((package / "report" / "md.py").read_text(encoding="utf-8"))
    assert not [n for node in md.body for n in imported(node) if n.split(".")[0] == "jinja2"]


def test_the_headline_counts_a_delta_that_is_not_significant_apart(two_arm_doc):
    """Issue 23 item 11: the table marks such a Δ n.s.; the headline must not call it improved."""
    text = re.sub(r"<[^>]+>", "", render_report(two_arm_doc))
    assert "improved 1 · flat 0 · regressed 0 · regressed (n.s.) 1" in text
    two_arm_doc["cases"][0]["aggregates"]["deltaSignificant"] = False
    text = re.sub(r"<[^>]+>", "", render_report(two_arm_doc))
    assert "improved 0 · improved (n.s.) 1 · flat 0 · regressed 0 · regressed (n.s.) 1" in text


def test_a_reused_baseline_is_explained_under_the_table_as_in_the_terminal(two_arm_doc):
    """The ↺ after W/OUT had only a tooltip in the page and pytest-html's summary, while the terminal and the
    Markdown say under the table what it means and how many runs it covers."""
    origin = {"session": "2026-12-02T05:10:51.656Z", "index": 1, "agentCostUsd": 0.0008}
    two_arm_doc["cases"][1]["arms"]["without"][0]["reusedFrom"] = origin
    legend = "↺ W/OUT from stored runs (--reuse-baseline): 1 of 3 without-plugin run(s) reused from earlier sessions"
    for page in (render_report(two_arm_doc), summary_html(two_arm_doc)):
        [text] = Page(page).texts("reused-legend")
        assert text.startswith(legend), text
    del two_arm_doc["cases"][1]["arms"]["without"][0]["reusedFrom"]
    assert Page(render_report(two_arm_doc)).texts("reused-legend") == []


def test_the_cost_card_says_the_judges_are_in_it_and_the_trigger_runs_beside(two_arm_doc):
    """The card read "agent; judge $X more" while its figure held the judges' cost (and the trigger runs')."""
    two_arm_doc["cases"][0]["arms"]["with"][0]["judgeCostUsd"] = 0.002
    page = Page(render_report(two_arm_doc))
    assert "judges $0.0020 of it" in page.texts("sub")
    two_arm_doc["triggers"] = [
        {
            "skill": "commit-craft:commit-message",
            "name": "commit-message",
            "queries": [
                {"id": "q", "query": "q", "shouldFire": True, "runs": [{"index": 1, "fired": True, "costUsd": 0.01}]}
            ],
        }
    ]
    assert "judges $0.0020 of it, trigger runs $0.01" in Page(render_report(two_arm_doc)).texts("sub")
