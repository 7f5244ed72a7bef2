"""The terminal summary: one line per case (WITH, W/OUT, Δ or SCORE, PASS%), a summary line, and notes."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from ..core.paths import display_path
from ..load.mocks import INFO_MARK
from ..results.model import SuiteResult
from . import arms, efficiency, triggers, view
from .notice_groups import grouped

NUMBER_MISSING = "  -  "  # as wide as a number, so the columns stay aligned
TEXT_MISSING = "-"


def _interval(row: view.CaseRow) -> str:
    """Δ's 95% interval, marked n.s. when it spans 0 (a Δ that could be noise)."""
    if row.interval is None:
        return TEXT_MISSING
    return row.interval + (" n.s." if row.significant is False else "")


def table(document: SuiteResult) -> list[str]:
    """WITH, W/OUT, Δ and Δ's 95% interval per case (or SCORE, its spread and PASS% for one arm)."""
    rows = view.case_rows(document)
    two_arm = document.two_arm
    width = max([len(r.name) for r in rows] + [4]) + 2
    if two_arm:
        lines = [f"{'CASE':<{width}}{'WITH':<6}{'W/OUT':<6}{'Δ':<7}{'Δ 95% CI':<21}{'RUNS':<5}{'COST':<9}NOTES"]
    else:
        lines = [f"{'CASE':<{width}}{'SCORE':<6}{'±SD':<6}{'PASS%':<6}{'RUNS':<5}{'COST':<9}NOTES"]
    for row in rows:
        lines.append(_line(row, width, two_arm))
    legend = view.reused_legend(document)
    return [*lines, legend] if legend else lines


def _line(row: view.CaseRow, width: int, two_arm: bool) -> str:
    if two_arm:
        cells = (
            f"{view.score(row.score, NUMBER_MISSING):<6}"
            f"{view.without_cell(view.score(row.score_without, NUMBER_MISSING), row):<6}"
            f"{view.signed(row.delta, NUMBER_MISSING):<7}{_interval(row):<21}"
        )
    else:
        cells = (
            f"{view.score(row.score, NUMBER_MISSING):<6}{view.spread(row.stdev_with, TEXT_MISSING):<6}"
            f"{view.percent(row.pass_rate, TEXT_MISSING):<6}"
        )
    return f"{row.name:<{width}}{cells}{row.runs:<5}{view.usd(row.cost_usd):<9}{row.notes}".rstrip()


def summary_line(document: SuiteResult) -> str:
    parts = [f"{len(document.cases)} case(s)"]
    if document.aggregates.two_arm:
        parts.append(f"mean Δ {view.signed(document.aggregates.mean_delta, NUMBER_MISSING)}")
    parts.append(view.seconds(document.duration_seconds, whole=True))
    parts.append(view.session_cost(document))
    if document.partial:
        parts.append(f"⚠ partial ({view.partial_label(document.partial_reason)})")
    return " · ".join(parts)


def shared_notices(documents: list[SuiteResult]) -> list[str]:
    """The notices every one of a session's documents carries (the session's), in the first's order."""
    return [n for n in documents[0].notices if all(n in d.notices for d in documents[1:])] if documents else []


def write_shared_notices(terminal, notices: list[str], of: str) -> None:
    """The notices of a session of several suites, once above their summaries (`of`: whose they are)."""
    if not notices:
        return
    terminal.write_sep("=", f"plugin eval · notices ({of})")
    for notice in grouped(notices):
        terminal.write_line(notice)


def write_summary(
    terminal,
    document: SuiteResult,
    results_path: Path | None,
    report_path: Path | None = None,
    label: str | None = None,
    notices: bool = True,
    expanded: bool = False,
    said_above: Collection[str] = (),
) -> None:
    """The summary of one suite; `label` names it when the session had several (the notices of them all are shown
    once, above them: `said_above`, or every notice: `notices=False`); `expanded` (-vv) adds what each case's runs
    spent."""
    terminal.write_sep("=", f"plugin eval · {label}" if label else "plugin eval")
    shown = [n for n in document.notices if n not in said_above] if notices else []
    for notice in grouped([n for n in shown if not n.startswith(INFO_MARK)]):
        terminal.write_line(notice)
    for error in document.load_errors:
        message = error.message if error.message.startswith(error.dir) else f"{error.dir}: {error.message}"
        terminal.write_line(f"✗ {message}", red=True)
    trigger_sets = document.triggers
    if document.cases:
        terminal.write_line("")
        for line in table(document):
            terminal.write_line(line)
        terminal.write_line("")
        terminal.write_line(summary_line(document))
        spent = efficiency.terminal_lines(document) if expanded else []
        if spent:
            terminal.write_line("")
            for line in spent:
                terminal.write_line(line)
        # the other arms after the case table's own figures, as in the Markdown summary and the HTML page
        for line in arms.terminal_lines(document):
            terminal.write_line(line, red=line.startswith("✗"))
    elif not trigger_sets:
        terminal.write_line("No eval cases ran.")
    if trigger_sets:
        terminal.write_line("")
        for line in triggers.table(trigger_sets):
            terminal.write_line(line)
        terminal.write_line("")
        terminal.write_line(triggers.summary_line(trigger_sets))
    if document.findings:
        terminal.write_line("")
        terminal.write_line(view.findings_heading(document))
        for case, lines in view.findings_by_case(document):
            for line in lines:
                terminal.write_line(f"  ⚑ {case}: {line}")
    if document.load_errors:
        n = len(document.load_errors)
        terminal.write_line(f"Couldn't load {n} file{'s' if n != 1 else ''} of the suite — see above.", red=True)
    for note in (n for n in shown if n.startswith(INFO_MARK)):  # set-up notes: after the results, not above
        terminal.write_line(note)
    if results_path is not None:
        terminal.write_line(f"Results: {display_path(results_path)}")
    if report_path is not None:
        terminal.write_line(f"Report: {display_path(report_path)}")


class StreamTerminal:
    """The little of pytest's terminal reporter the summary uses, over a plain stream (for `plugin-eval merge`)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def write_sep(self, sep: str, title: str) -> None:
        side = max(3, (100 - len(title) - 2) // 2)
        self.stream.write(f"{sep * side} {title} {sep * side}\n")

    def write_line(self, line: str, **markup) -> None:
        self.stream.write(line + "\n")
