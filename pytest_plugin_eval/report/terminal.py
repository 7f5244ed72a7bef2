"""The terminal summary: one line per case (WITH, W/OUT, Δ or SCORE, PASS%), a summary line, and notes."""
from __future__ import annotations

from pathlib import Path

from ..core.paths import display_path
from ..results.model import CaseAggregates, CaseResult, SuiteResult
from . import view


def _num(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.2f}"


def _delta(value: float | None) -> str:
    if value is None:
        return "  -  "
    return view.signed(value)


def _interval(agg: CaseAggregates) -> str:
    """Δ's 95% interval, marked n.s. when it spans 0 (a Δ that could be noise)."""
    if not agg.delta_ci:
        return "-"
    low, high = agg.delta_ci
    return f"[{_delta(low)}, {_delta(high)}]" + (" n.s." if agg.delta_significant is False else "")


def _spread(value: float | None) -> str:
    return "-" if value is None else f"±{value:.2f}"


def table(document: SuiteResult) -> list[str]:
    """WITH, W/OUT, Δ and Δ's 95% interval per case (or SCORE, its spread and PASS% for one arm)."""
    cases = document.cases
    two_arm = document.two_arm
    width = max([len(c.name) for c in cases] + [4]) + 2
    if two_arm:
        lines = [f"{'CASE':<{width}}{'WITH':<6}{'W/OUT':<6}{'Δ':<7}{'Δ 95% CI':<21}{'RUNS':<5}{'COST':<8}NOTES"]
    else:
        lines = [f"{'CASE':<{width}}{'SCORE':<6}{'±SD':<6}{'PASS%':<6}{'RUNS':<5}{'COST':<8}NOTES"]
    for case in cases:
        lines.append(_row(case, width, two_arm))
    return lines


def _row(case: CaseResult, width: int, two_arm: bool) -> str:
    agg = case.aggregates
    runs = len(case.runs())
    cost = f"${case.cost_usd:.2f}"
    if two_arm:
        cells = f"{_num(agg.score):<6}{_num(agg.score_without):<6}{_delta(agg.delta):<7}{_interval(agg):<21}"
    else:
        rate = "-" if agg.pass_rate is None else f"{round(agg.pass_rate * 100)}%"
        cells = f"{_num(agg.score):<6}{_spread(agg.stdev_with):<6}{rate:<6}"
    return f"{case.name:<{width}}{cells}{runs:<5}{cost:<8}{view.notes_for(case)}".rstrip()


def summary_line(document: SuiteResult) -> str:
    parts = [f"{len(document.cases)} case(s)"]
    if document.aggregates.two_arm:
        parts.append(f"mean Δ {_delta(document.aggregates.mean_delta)}")
    parts.append(f"{round(document.duration_seconds)}s")
    parts.append(f"${document.cost_usd:.2f}")
    if document.partial:
        parts.append(f"⚠ partial ({view.partial_label(document.partial_reason)})")
    return " · ".join(parts)


def write_summary(terminal, document: SuiteResult, results_path: Path | None, report_path: Path | None = None) -> None:
    terminal.write_sep("=", "plugin eval")
    for notice in document.notices:
        terminal.write_line(notice)
    for error in document.load_errors:
        terminal.write_line(f"✗ {error.dir}: {error.message}", red=True)
    if document.cases:
        terminal.write_line("")
        for line in table(document):
            terminal.write_line(line)
        terminal.write_line("")
        terminal.write_line(summary_line(document))
    else:
        terminal.write_line("No eval cases ran.")
    if document.load_errors:
        n = len(document.load_errors)
        terminal.write_line(f"Couldn't load {n} case file{'s' if n != 1 else ''} — see above.", red=True)
    if results_path is not None:
        terminal.write_line(f"Results: {display_path(results_path)}")
    if report_path is not None:
        terminal.write_line(f"Report: {display_path(report_path)}")
