"""What the plugin costs per task, as the reports show it: per case and for the suite, the median run's turns, tool
calls, tokens, cost and time with the plugin and without, and with − without (`aggregates.efficiency`), then, with
--against, the other version's median → this one's. One table for the terminal's expanded view (-vv), the Markdown
summary and the HTML page."""

from __future__ import annotations

from dataclasses import dataclass

from ..results.efficiency import Efficiency, Figure
from ..results.model import SuiteResult

# The figures shown, by their JSON names (the token kinds are in the document).
SHOWN: tuple[tuple[str, str], ...] = (
    ("turns", "turns"),
    ("toolCalls", "tool calls"),
    ("tokens", "tokens"),
    ("costUsd", "cost"),
    ("seconds", "time"),
)
SUITE_ROW = "suite (median case)"


def amount(name: str, value: float, sign: bool = False) -> str:
    """A figure's value as the reports write it (`sign`: a difference, +3 / -$0.0012)."""
    # Rounded first, so that a difference too small to show reads 0.0 s rather than -0.0 s.
    value = round(value, 4 if name == "costUsd" else 1) or 0.0
    plus = "+" if sign and value > 0 else ""
    if name == "costUsd":
        return f"{'-' if value < 0 else plus}${abs(value):.4f}"
    if name == "seconds":
        return f"{plus}{value:.1f} s"
    return f"{plus}{value:,.0f}" if value == int(value) else f"{plus}{value:,.1f}"


def cell(name: str, figure: Figure | None, interval: bool = False) -> str:
    """`4 / 1 (+3)`: the with and without medians and Δ (one arm: its median); `interval` adds Δ's interval.
    With an against arm, `; 9 → 4` after it (then_now). The --ablate arms' medians are in the document only."""
    if figure is None:
        return "-"
    return _with_without(name, figure, interval) + then_now(name, figure)


def then_now(name: str, figure: Figure) -> str:
    """`; 9 → 4`: --against's version's median, then this one's — did the edit make it cheaper? ("" without it)"""
    if "against" not in figure.medians or "with" not in figure.medians:
        return ""
    return f"; {amount(name, figure.medians['against'])} → {amount(name, figure.medians['with'])}"


def _with_without(name: str, figure: Figure, interval: bool) -> str:
    medians = {arm: m for arm, m in figure.medians.items() if arm in ("with", "without")}
    if len(medians) < 2:
        return " / ".join(amount(name, v) for v in medians.values()) or "-"
    text = f"{amount(name, medians['with'])} / {amount(name, medians['without'])}"
    if figure.delta is None:
        return text
    delta = amount(name, figure.delta, sign=True)
    if interval and figure.delta_ci is not None and figure.ci_level is not None:
        low, high = (amount(name, v, sign=True) for v in figure.delta_ci)
        return f"{text} ({delta}, {figure.ci_level:.0%} CI [{low}, {high}])"
    return f"{text} ({delta})"


@dataclass(frozen=True)
class Table:
    """A row per case and one for the suite; `two_arm`: the cells are with / without (Δ); `against`: they end
    with the against arm's median → the with arm's."""

    columns: tuple[str, ...]
    rows: list[tuple[str, list[str]]]
    two_arm: bool
    against: bool = False

    @property
    def heading(self) -> str:
        shown = ["with / without, Δ"] * self.two_arm + ["then → now: against → with"] * self.against
        return f"efficiency (median per run: {'; '.join(shown)})" if shown else "efficiency (median per run)"

    @property
    def title(self) -> str:
        """The heading as a title (`Efficiency (…)`: str.capitalize would lower the Δ)."""
        return self.heading[:1].upper() + self.heading[1:]


def _cells(efficiency: Efficiency | None, interval: bool) -> list[str]:
    return [cell(name, efficiency.get(name) if efficiency else None, interval) for name, _ in SHOWN]


def table(document: SuiteResult, interval: bool = False) -> Table | None:
    """The efficiency of each case that measured any (None when none did)."""
    rows = [
        (case.name, _cells(case.aggregates.efficiency, interval))
        for case in document.cases
        if case.aggregates.efficiency is not None
    ]
    if not rows:
        return None
    if len(document.cases) > 1 and document.aggregates.efficiency is not None:
        rows.append((SUITE_ROW, _cells(document.aggregates.efficiency, interval)))
    against = any(
        "against" in figure.medians
        for case in document.cases
        if case.aggregates.efficiency is not None
        for name, _ in SHOWN
        if (figure := case.aggregates.efficiency.get(name)) is not None
    )
    return Table(tuple(title for _, title in SHOWN), rows, document.two_arm, against)


def terminal_lines(document: SuiteResult) -> list[str]:
    """The expanded view's lines: a heading, then a line per case (`frugal  turns 4 / 1 (+3) · tool calls …`)."""
    found = table(document)
    if found is None:
        return []
    width = max(len(name) for name, _ in found.rows) + 2
    lines = [found.heading]
    for name, cells in found.rows:
        shown = " · ".join(f"{title} {c}" for title, c in zip(found.columns, cells, strict=True) if c != "-")
        lines.append(f"{name:<{width}}{shown}")
    return lines
