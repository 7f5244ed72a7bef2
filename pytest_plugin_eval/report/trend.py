"""The report's trend: small charts of WITH and Δ over the earlier comparable sessions (results.history.trend),
as plain numbers the templates draw as inline SVG — no script, nothing fetched, the page stays one file.

Both lines share one vertical scale from -1 (bottom) to 1 (top), so WITH (0…1) lives in the upper half and Δ
crosses the dashed zero line when it changes sign; sessions are evenly spaced, oldest on the left, the current
session last (a larger dot). Each dot's tooltip names the session: its time, the plugin's version and commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..results.history import Trend, TrendPoint
from .view import score, signed

CASE_SIZE = (200, 48)  # width, height of a case's chart
SUITE_SIZE = (320, 72)
PAD = 5


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    series: str  # with | delta
    current: bool
    title: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    zero: float  # the y of 0
    one: float  # the y of 1
    with_line: str  # polyline points, "x,y x,y"; '' when there is none
    delta_line: str
    dots: list[Dot]
    label: str  # what the chart shows, for screen readers


@dataclass(frozen=True)
class TrendRow:
    name: str
    anchor: str | None  # the case's section
    chart: Chart | None  # None: no earlier comparable session
    text: str  # first → last, or why there is no chart


@dataclass(frozen=True)
class TrendSection:
    suite: Chart | None
    suite_text: str
    rows: list[TrendRow]


def short_time(iso: str | None, seconds: bool = False) -> str:
    """`2026-11-29T19:14:00.123Z` → `2026-11-29 19:14` (UTC, as the document has it); `seconds`: `19:14:00`, so
    that two sessions of one minute are told apart in a list."""
    if not iso:
        return "–"
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime(
            "%Y-%m-%d %H:%M" + (":%S" if seconds else "")
        )
    except ValueError:
        return iso


def commit_text(commit: str | None, dirty: bool | None, long: bool = False) -> str:
    """A commit's short sha, `*` marking uncommitted changes (`long`: said in words)."""
    if not commit:
        return "–"
    mark = (" with uncommitted changes" if long else "*") if dirty else ""
    return f"{commit[:7]}{mark}"


def _title(point: TrendPoint, what: str) -> str:
    parts = [("this session · " if point.current else "") + short_time(point.started_at)]
    if point.version:
        parts.append(f"v{point.version}")
    if point.git_commit:
        parts.append(commit_text(point.git_commit, point.git_dirty, long=True))
    parts.append(f"{what} {score(point.score)}")
    if point.delta is not None:
        parts.append(f"Δ {signed(point.delta)}")
    if point.partial:
        parts.append("partial")
    return " · ".join(parts)


def chart(points: list[TrendPoint], size: tuple[int, int], label: str, what: str = "WITH") -> Chart:
    """The chart of a line of points (oldest first); `what` names the score in the tooltips."""
    width, height = size
    span = height - 2 * PAD

    def y(value: float) -> float:
        return round(PAD + (1 - max(-1.0, min(1.0, value))) / 2 * span, 1)

    step = (width - 2 * PAD) / (len(points) - 1) if len(points) > 1 else 0
    xs = [round(PAD + i * step if len(points) > 1 else width / 2, 1) for i in range(len(points))]
    dots: list[Dot] = []
    lines: dict[str, list[str]] = {"with": [], "delta": []}
    for x, point in zip(xs, points, strict=True):
        title = _title(point, what)
        for series, value in (("with", point.score), ("delta", point.delta)):
            if value is not None:
                lines[series].append(f"{x:g},{y(value):g}")
                dots.append(Dot(x, y(value), series, point.current, title))
    return Chart(
        width=width,
        height=height,
        zero=y(0.0),
        one=y(1.0),
        with_line=" ".join(lines["with"]) if len(lines["with"]) > 1 else "",
        delta_line=" ".join(lines["delta"]) if len(lines["delta"]) > 1 else "",
        dots=dots,
        label=label,
    )


def _change(points: list[TrendPoint], attr: str, fmt) -> str | None:
    values = [getattr(p, attr) for p in points if getattr(p, attr) is not None]
    if len(values) < 2:
        return None
    return f"{fmt(values[0])} → {fmt(values[-1])}"


def _text(points: list[TrendPoint], what: str) -> str:
    parts = [f"{len(points)} sessions since {short_time(points[0].started_at)}"]
    for name, attr, fmt in ((what, "score", score), ("Δ", "delta", signed)):
        change = _change(points, attr, fmt)
        if change:
            parts.append(f"{name} {change}")
    return " · ".join(parts)


NO_HISTORY = "no earlier comparable session"


def trend_section(history: Trend | None, anchors: dict[str, str] | None = None) -> TrendSection | None:
    """The report's trend section; None when no line has an earlier comparable session. `anchors`: the case
    sections' ids, by case dir."""
    if history is None or not history.has_history:
        return None
    anchors = anchors or {}
    rows = []
    for case in history.cases:
        if case.earlier:
            label = f"WITH and Δ of {case.name} over {len(case.points)} sessions"
            rows.append(
                TrendRow(
                    case.name, anchors.get(case.dir), chart(case.points, CASE_SIZE, label), _text(case.points, "WITH")
                )
            )
        else:
            rows.append(TrendRow(case.name, anchors.get(case.dir), None, NO_HISTORY))
    suite_chart, suite_text = None, f"overall score: {NO_HISTORY} (the same cases, unchanged, with these settings)"
    if len(history.suite) > 1:
        label = f"Overall score and mean Δ over {len(history.suite)} sessions"
        suite_chart = chart(history.suite, SUITE_SIZE, label, what="score")
        suite_text = _text(history.suite, "score")
    return TrendSection(suite_chart, suite_text, rows)
