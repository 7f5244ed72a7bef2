"""The report's trend (report.trend and templates/trend.html.j2): the inline SVG charts of WITH and Δ over the
earlier comparable sessions, their points and tooltips; and `plugin-eval history` as text (report.history)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.report import html
from pytest_plugin_eval.report.history import history_lines
from pytest_plugin_eval.report.trend import CASE_SIZE, PAD, chart, commit_text, short_time, trend_section
from pytest_plugin_eval.results.efficiency import Tokens
from pytest_plugin_eval.results.history import PastSession, Scan, Skipped, TrendPoint, summarize, trend
from pytest_plugin_eval.results.model import (
    CaseResult,
    PluginInfo,
    RunResult,
    SuiteResult,
)

SHA = "abcdef0123456789abcdef0123456789abcdef01"


def case(name: str, score: float, without: float | None = 0.0) -> CaseResult:
    return case_result(name, [score], None if without is None else [without], runs_per_case=1)


def document(
    day: int, *cases: CaseResult, commit: str = SHA, dirty: bool = False, skills=None, content=None
) -> SuiteResult:
    plugin = PluginInfo(
        "greeter",
        "/p",
        version="1.2.3",
        git_commit=commit,
        git_dirty=dirty,
        skill_descriptions=skills,
        content_hash=content,
    )
    return suite_result(
        *cases,
        started_at=f"2026-03-{day:02d}T10:00:00.000Z",
        duration_seconds=5,
        plugin=plugin,
        ablation="with-without",
    )


class Svg(HTMLParser):
    """The charts of a page: per <svg>, its polylines' classes and its circles (class, cx, cy, title)."""

    def __init__(self):
        super().__init__()
        self.charts: list[dict] = []
        self.in_circle = False
        self.title = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.charts.append({"label": a.get("aria-label"), "lines": [], "circles": []})
        elif tag == "polyline":
            self.charts[-1]["lines"].append((a["class"], a["points"]))
        elif tag == "circle":
            self.charts[-1]["circles"].append({"class": a["class"], "cx": float(a["cx"]), "cy": float(a["cy"])})
            self.in_circle = True

    def handle_data(self, data):
        if self.in_circle:
            self.charts[-1]["circles"][-1]["title"] = data

    def handle_endtag(self, tag):
        if tag == "circle":
            self.in_circle = False


def charts(page: str) -> list[dict]:
    parser = Svg()
    parser.feed(page)
    return parser.charts


def test_the_report_draws_each_case_and_the_suite_over_the_sessions():
    past = [
        document(1, case("greet", 0.0), case("bye", 1.0, None)),
        document(2, case("greet", 0.5), case("bye", 1.0, None), dirty=True),
    ]
    now = document(3, case("greet", 1.0), case("bye", 0.5, None), commit="1111111" + SHA[7:])
    page = html.render_report(now, trend(now, past))
    assert page.count('<section class="trend" id="trend">') == 1
    assert "<script" not in page and "http://www.w3.org/2000/svg" in page  # the namespace, nothing fetched
    suite_chart, greet, bye = charts(page)
    assert suite_chart["label"] == "Overall score and mean Δ over 3 sessions"
    assert greet["label"] == "WITH and Δ of greet over 3 sessions"
    assert [c for c, _ in greet["lines"]] == ["with", "delta"]
    assert [c["class"] for c in greet["circles"]] == ["with", "delta"] * 2 + ["with current", "delta current"]
    titles = [c["title"] for c in greet["circles"][::2]]
    assert titles[0] == "2026-03-01 10:00 · v1.2.3 · abcdef0 · WITH 0.00 · Δ 0.00"
    assert titles[1] == "2026-03-02 10:00 · v1.2.3 · abcdef0 with uncommitted changes · WITH 0.50 · Δ +0.50"
    assert titles[2].startswith("this session · 2026-03-03 10:00 · v1.2.3 · 1111111 · WITH 1.00")
    # WITH 0 → 0.5 → 1 climbs (SVG's y grows downwards); oldest on the left.
    xs = [c["cx"] for c in greet["circles"][::2]]
    ys = [c["cy"] for c in greet["circles"][::2]]
    assert xs == sorted(xs) and ys == sorted(ys, reverse=True)
    assert [c for c, _ in bye["lines"]] == ["with"]  # single-arm: no Δ line
    assert 'href="#case-1-greet"' in page and "3 sessions since 2026-03-01 10:00 · WITH 0.00 → 1.00" in page


def test_no_section_without_an_earlier_comparable_session():
    now = document(3, case("greet", 1.0))
    assert 'id="trend"' not in html.render_report(now, trend(now, []))
    assert 'id="trend"' not in html.render_report(now)
    assert trend_section(None) is None


def test_a_case_without_history_is_said_beside_those_with_one():
    now = document(3, case("greet", 1.0), case("new", 1.0))
    section = trend_section(trend(now, [document(1, case("greet", 0.0))]))
    assert section is not None
    assert [(r.name, r.chart is not None) for r in section.rows] == [("greet", True), ("new", False)]
    assert section.rows[1].text == "no earlier comparable session" and section.suite is None


def test_the_chart_scale():
    points = [
        TrendPoint("2026-03-01T10:00:00.000Z", None, None, None, score=1.0, delta=-1.0),
        TrendPoint("2026-03-02T10:00:00.000Z", None, None, None, score=0.0, delta=None, current=True),
    ]
    c = chart(points, CASE_SIZE, "x")
    width, height = CASE_SIZE
    assert (c.one, c.zero) == (PAD, height / 2)
    assert c.with_line == f"{PAD},{PAD} {width - PAD},{height // 2}"
    assert c.delta_line == ""  # one Δ value is a dot, not a line
    assert [(d.series, d.y) for d in c.dots] == [("with", PAD), ("delta", height - PAD), ("with", height / 2)]


def test_the_plugins_commit_is_in_the_header():
    page = html.render_report(document(3, case("greet", 1.0), dirty=True))
    assert re.search(
        r'<code title="git commit abcdef0[0-9a-f]+">abcdef0</code> <span class="missing">with uncommitted', page
    )


def test_history_lines(tmp_path):
    sessions = [
        PastSession(tmp_path / "b", document(2, case("greet", 1.0), dirty=True)),
        PastSession(tmp_path / "a", document(1, case("greet", 0.5, None))),
    ]
    lines = history_lines(Scan(sessions, [Skipped(tmp_path / "init", "no aggregate-result.json")], not_read=3))
    assert lines[0].split() == [
        "TIME",
        "(UTC)",
        "VERSION",
        "COMMIT",
        "MODEL",
        "CASES",
        "SCORE",
        "MEAN",
        "Δ",
        "COST",
        "RUNS",
        "PARTIAL",
        "NOTE",
        "PLUGIN",
        "CHANGES",
    ]
    assert lines[1].split() == [
        *("2026-03-02", "10:00:00", "1.2.3", "abcdef0*", "default", "1", "1.00", "+1.00", "$0.01", "1")
    ]
    assert lines[2].split() == ["2026-03-01", "10:00:00", "1.2.3", "abcdef0", "default", "1", "0.50", "-", "$0.01", "1"]
    assert "* uncommitted changes under the plugin folder" in lines
    assert "3 older results folder(s) not read (--limit)" in lines
    assert lines[-1].startswith("skipped ") and lines[-1].endswith("init: no aggregate-result.json")
    assert history_lines(Scan([], [])) == ["No past sessions found."]


def test_history_says_what_changed_in_the_plugin_since_the_session_below(tmp_path):
    """Both sessions read `abcdef0*`: only the recorded descriptions and content hash tell them apart."""
    newest = document(
        3, case("greet", 1.0), case("bye", 1.0), dirty=True, skills={"greeter:hi": "Say hi."}, content="b"
    )
    middle = document(2, case("greet", 1.0), dirty=True, skills={"greeter:hi": "Greet."}, content="a")
    oldest = document(1, case("greet", 1.0), dirty=True)  # written before these were recorded
    sessions = [PastSession(tmp_path / n, d) for n, d in (("c", newest), ("b", middle), ("a", oldest))]
    lines = history_lines(Scan(sessions, []))
    assert lines[1].endswith("the description of skill greeter:hi changed; plugin content changed")
    assert lines[1].split()[5] == "2"  # CASES
    assert lines[2].split()[-1] == "1" and lines[3].split()[-1] == "1"  # nothing to say: the RUNS column ends them
    assert any(line.startswith("PLUGIN CHANGES: ") for line in lines)


def test_history_shows_the_median_cases_turns_and_tokens_per_arm(tmp_path):
    def spent(arm: str, turns: int) -> RunResult:
        return RunResult(arm, 1, score=1.0, passed=True, turns=turns, tool_calls=0, tokens=Tokens(1000 * turns))

    measured = document(2, case_result("greet", [spent("with", 4)], [spent("without", 1)], runs_per_case=1))
    sessions = [PastSession(tmp_path / "b", measured), PastSession(tmp_path / "a", document(1, case("greet", 1.0)))]
    lines = history_lines(Scan(sessions, []))
    assert lines[0].split()[9:12] == ["TURNS", "TOKENS", "COST"]
    assert "  4 / 1  " in lines[1] and "  4,000 / 1,000  " in lines[1]
    assert lines[2].split()[9] == "-"  # written before runs recorded what they spent
    row = summarize(sessions[0]).to_json()
    assert row["efficiency"]["turns"]["medians"] == {"with": 4, "without": 1}
    assert "efficiency" not in summarize(sessions[1]).to_json()


def test_formats():
    assert short_time("2026-11-29T19:14:00.123Z") == "2026-11-29 19:14"
    assert short_time("2026-11-29T19:14:07.123Z", seconds=True) == "2026-11-29 19:14:07"
    assert short_time("") == "–" and short_time("yesterday") == "yesterday"
    assert (
        commit_text(SHA, True) == "abcdef0*" and commit_text(SHA, None) == "abcdef0" and commit_text(None, True) == "–"
    )
