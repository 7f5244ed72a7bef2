"""`plugin-eval history` as text: one line per past session (results.history.HistoryRow), newest first, then the
folders that were passed over and why."""

from __future__ import annotations

from ..core.paths import display_path
from ..results.history import HistoryRow, Scan, changes_since_previous, summarize
from . import view
from .efficiency import amount
from .trend import commit_text, short_time

MISSING = "-"
HEADINGS = (
    "TIME (UTC)",
    "VERSION",
    "COMMIT",
    "MODEL",
    "CASES",
    "SCORE",
    "MEAN Δ",
    "TRIGGERS",
    "TURNS",
    "TOKENS",
    "COST",
    "RUNS",
    "PARTIAL",
    "NOTE",
    "PLUGIN CHANGES",
)


def runs_text(runs: tuple[int, ...]) -> str:
    if not runs:
        return MISSING
    return str(runs[0]) if len(runs) == 1 else f"{runs[0]}-{runs[-1]}"


def arms_text(figure: str, row: HistoryRow) -> str:
    """The median case's figure with the plugin / without it (`4 / 1`), or with it alone."""
    medians = row.median_case(figure)
    shown = [amount(figure, medians[arm]) for arm in ("with", "without") if arm in medians]
    return " / ".join(shown) or MISSING


def cells(row: HistoryRow, changes: list[str]) -> tuple[str, ...]:
    note = row.note or ""
    if row.note == "shard" and row.shard:
        note = f"shard {row.shard}"
    return (
        short_time(row.started_at, seconds=True),
        row.version or MISSING,
        commit_text(row.git_commit, row.git_dirty) if row.git_commit else MISSING,
        row.model,
        str(row.cases),
        view.score(row.overall_score, MISSING),
        view.signed(row.mean_delta, MISSING),
        f"{row.trigger_queries[0]}/{row.trigger_queries[1]} right" if row.trigger_queries else MISSING,
        arms_text("turns", row),
        arms_text("tokens", row),
        view.usd(row.cost_usd),
        runs_text(row.runs_per_arm),
        view.partial_label(row.partial_reason) if row.partial else "",
        note,
        "; ".join(changes),
    )


def history_lines(found: Scan) -> list[str]:
    changes = changes_since_previous(found.sessions)
    rows = [cells(summarize(s), c) for s, c in zip(found.sessions, changes, strict=True)]
    headings: tuple[str, ...] = HEADINGS
    # a suite without trigger sets, sessions that recorded no efficiency figures: no column for them
    for name in ("TRIGGERS", "TURNS", "TOKENS"):
        column = headings.index(name)
        if all(r[column] == MISSING for r in rows):
            headings = headings[:column] + headings[column + 1 :]
            rows = [r[:column] + r[column + 1 :] for r in rows]
    lines = []
    if rows:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headings)]
        for cols in (headings, *rows):
            lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip())
        if any(r[2].endswith("*") for r in rows):
            lines.append("")
            lines.append("* uncommitted changes under the plugin folder")
        if any(changes):
            lines.append("PLUGIN CHANGES: what the plugin's files say differently from the session on the line below")
    else:
        lines.append("No past sessions found.")
    if found.not_read:
        lines.append(f"{found.not_read} older results folder(s) not read (--limit)")
    if found.skipped:
        lines.append("")
        lines += [f"skipped {display_path(s.folder)}: {s.reason}" for s in found.skipped]
    return lines
