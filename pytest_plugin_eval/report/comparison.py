"""What the terminal, the Markdown summary and the HTML report show of a comparison (analysis.compare), defined
once as text; then the terminal's layout of it. The Markdown (report/markdown.py) and the HTML section
(templates/comparison.html.j2) lay out the same view."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.paths import display_path
from ..results.comparison import (
    BETTER,
    HIGHER,
    LOWER,
    NO_CHANGE,
    WORSE,
    Change,
    Comparison,
    FigureChange,
    GraderChange,
    Tally,
)
from ..results.trigger_compare import TriggerSetChange
from . import efficiency
from .view import MISSING, partial_label, score, seconds, signed, usd

VERDICT_LABELS = {BETTER: "better", WORSE: "worse", NO_CHANGE: "no detectable change"}
SHORT_LABELS = {BETTER: "better", WORSE: "worse", NO_CHANGE: "n.s."}  # the terminal's narrow column


@dataclass(frozen=True)
class Cells:
    """A number before and after, its change, the change's interval and the verdict, as text."""

    old: str
    new: str
    change: str
    interval: str
    verdict: str | None  # better | worse | no_detectable_change | None (no interval)

    @property
    def label(self) -> str:
        return VERDICT_LABELS.get(self.verdict or "", MISSING)

    @property
    def short(self) -> str:
        return SHORT_LABELS.get(self.verdict or "", MISSING)


@dataclass(frozen=True)
class Row:
    name: str
    with_score: Cells
    delta: Cells | None  # None: the case did not run both arms in both sessions
    graders: list[str]  # the graders whose pass rate moved, "greeting 3/3 → 0/3"


@dataclass(frozen=True)
class View:
    old: str  # which session: its folder or file, and when it started
    new: str
    level: str  # "95%"
    plugin_changes: list[str]  # "the description of skill p:s changed", "plugin content changed"
    warnings: list[str]
    rows: list[Row]
    two_arm: bool  # some row has a Δ
    added: list[str]
    removed: list[str]
    graders: list[str]  # every grader that moved, "case · grader: …"
    summary: str
    verdict_counts: list[tuple[str, str]]  # (style, text): "better 1" …
    triggers: list[TriggerSetChange] = field(default_factory=list)
    trigger_note: str | None = None
    baseline_note: str | None = None
    arms_note: str | None = None
    efficiency: list[str] = field(default_factory=list)  # "case: turns 4 → 6 (+2, 90% CI [+1, +3], higher) · …"

    @property
    def efficiency_heading(self) -> str:
        return EFFICIENCY_HEADING

    @property
    def trigger_tables(self) -> list[SetTable]:
        return trigger_tables(self.triggers)


def interval(bounds: tuple[float, float] | None) -> str:
    return MISSING if bounds is None else f"[{signed(bounds[0])}, {signed(bounds[1])}]"


def cells(change: Change, signed_values: bool = False) -> Cells:
    fmt = signed if signed_values else score
    return Cells(
        old=fmt(change.old),
        new=fmt(change.new),
        change=signed(change.change),
        interval=interval(change.interval),
        verdict=change.verdict,
    )


def tally(t: Tally | None) -> str:
    return MISSING if t is None or not t.runs else f"{t.passed}/{t.runs}"


def grader_text(grader: GraderChange) -> str:
    """`greeting 3/3 → 0/3` (runs passed of runs judged), with what else happened to it."""
    text = f"{grader.name} {tally(grader.old)} → {tally(grader.new)}"
    if grader.status == "added":
        text = f"{grader.name} added ({tally(grader.new)})"
    elif grader.status == "removed":
        text = f"{grader.name} removed (was {tally(grader.old)})"
    if grader.definition_changed:
        text += " (definition changed)"
    return text


def _side(ref) -> str:
    when = ref.started_at.replace("T", " ")[:19] if ref.started_at else ""
    source = display_path(ref.source) if ref.source else ref.source
    partial = f" · partial ({partial_label(ref.partial_reason)})" if ref.partial_reason else ""
    return f"{source}{f' ({when})' if when else ''}{partial}"


def _money(change: Change) -> str:
    diff = change.change
    sign = "+" if (diff or 0) >= 0 else "-"
    return f"cost {usd(change.old)} → {usd(change.new)} ({sign}{usd(abs(diff or 0))})"


def _time(change: Change) -> str:
    return f"duration {seconds(change.old)} → {seconds(change.new)}"


def summary_line(comparison: Comparison) -> str:
    parts = [f"{len(comparison.compared)} case(s) compared"]
    if comparison.added:
        parts.append(f"{len(comparison.added)} added")
    if comparison.removed:
        parts.append(f"{len(comparison.removed)} removed")
    if comparison.mean_with.change is not None:
        parts.append(f"mean WITH {score(comparison.mean_with.old)} → {score(comparison.mean_with.new)}")
    if comparison.mean_delta.change is not None:
        parts.append(f"mean Δ {signed(comparison.mean_delta.old)} → {signed(comparison.mean_delta.new)}")
    parts += [_money(comparison.cost_usd), _time(comparison.duration_seconds)]
    return " · ".join(parts)


def _counts(comparison: Comparison) -> list[tuple[str, str]]:
    out = []
    queries = [q for t in comparison.triggers for q in t.queries if q.status == "compared"]
    if queries:
        better, worse = sum(q.verdict == "better" for q in queries), sum(q.verdict == "worse" for q in queries)
        same = sum(q.verdict == "no_detectable_change" for q in queries)
        style = "regressed" if worse else "improved" if better else "flat"
        # the words of the per-query verdicts above, as the cases' counts use them
        said = f"trigger queries: {better} better · {worse} worse · {same} no detectable change"
        unjudged = len(queries) - better - worse - same
        out.append((style, said + (f" · {unjudged} without a verdict" if unjudged else "")))
    if queries and not comparison.cases:
        return out
    for of, label in (("with", "WITH"), ("delta", "Δ")):
        counts = comparison.verdicts(of)
        if of == "delta" and not any(c.delta for c in comparison.compared):
            continue
        out.append(
            (
                "regressed" if counts[WORSE] else "improved" if counts[BETTER] else "flat",  # the page's styles
                f"{label}: {counts[BETTER]} better · {counts[WORSE]} worse · {counts[NO_CHANGE]} no detectable change"
                + (f" · {counts['unknown']} too few runs to tell" if counts["unknown"] else ""),
            )
        )
    return out


def view(comparison: Comparison) -> View:
    rows = [
        Row(
            name=case.name,
            with_score=cells(case.with_score),
            delta=cells(case.delta, signed_values=True) if case.delta else None,
            graders=[grader_text(g) for g in case.changed_graders],
        )
        for case in comparison.compared
    ]

    def brief(case) -> str:
        side = case.with_score.new if case.status == "added" else case.with_score.old
        text = f"{case.name} (WITH {score(side)}"
        if case.delta is not None:
            text += f", Δ {signed(case.delta.new if case.status == 'added' else case.delta.old)}"
        return text + ")"

    return View(
        old=_side(comparison.old),
        new=_side(comparison.new),
        level=f"{comparison.level * 100:g}%",
        plugin_changes=list(comparison.plugin_changes),
        warnings=[w.message for w in comparison.warnings],
        rows=rows,
        two_arm=any(r.delta for r in rows),
        added=[brief(c) for c in comparison.added],
        removed=[brief(c) for c in comparison.removed],
        graders=[f"{row.name} · {g}" for row in rows for g in row.graders],
        summary=summary_line(comparison),
        verdict_counts=_counts(comparison),
        triggers=comparison.triggers,
        trigger_note=comparison.trigger_note,
        baseline_note=comparison.baseline_note,
        arms_note=comparison.arms_note,
        efficiency=efficiency_lines(comparison),
    )


EFFICIENCY_HEADING = "efficiency of the with-plugin runs (median per run, then → now):"
FIGURE_VERDICTS = {HIGHER: "higher", LOWER: "lower", NO_CHANGE: "n.s."}


def figure_text(name: str, title: str, change: FigureChange) -> str:
    """`turns 4 → 6 (+2, 90% CI [+1, +3], higher)`."""
    old, new = (MISSING if v is None else efficiency.amount(name, v) for v in (change.old, change.new))
    text = f"{title} {old} → {new}"
    if change.change is None:
        return text
    inner = efficiency.amount(name, change.change, sign=True)
    if change.interval is not None and change.level is not None:
        low, high = (efficiency.amount(name, v, sign=True) for v in change.interval)
        inner += f", {change.level:.0%} CI [{low}, {high}], {FIGURE_VERDICTS[change.verdict or NO_CHANGE]}"
    return f"{text} ({inner})"


def efficiency_lines(comparison: Comparison) -> list[str]:
    """A line per compared case that measured what its runs spent, and one for the suite."""
    rows = [(case.name, case.efficiency) for case in comparison.compared if case.efficiency]
    if len(rows) > 1 and comparison.efficiency:
        rows.append((efficiency.SUITE_ROW, comparison.efficiency))
    return [
        f"{name}: " + " · ".join(figure_text(f, title, figures[f]) for f, title in efficiency.SHOWN if f in figures)
        for name, figures in rows
    ]


# ---- the terminal --------------------------------------------------------------------------------------------


def table(v: View) -> list[str]:
    """One line per case compared: WITH before → after, its change, interval and verdict; the same for Δ."""
    width = max([len(r.name) for r in v.rows] + [4]) + 2
    head = f"{'CASE':<{width}}{'WITH':<14}{'CHANGE':<8}{v.level + ' CI':<17}{'VERDICT':<9}"
    if v.two_arm:
        head += f"{'Δ':<16}{'CHANGE':<8}{v.level + ' CI':<17}VERDICT"
    lines = [head.rstrip()]
    for row in v.rows:
        w = row.with_score
        line = f"{row.name:<{width}}{w.old + ' → ' + w.new:<14}{w.change:<8}{w.interval:<17}{w.short:<9}"
        if v.two_arm:
            d = row.delta
            line += (
                f"{d.old + ' → ' + d.new:<16}{d.change:<8}{d.interval:<17}{d.short}"
                if d
                else f"{MISSING:<16}{MISSING:<8}{MISSING:<17}{MISSING}"
            )
        lines.append(line.rstrip())
    return lines


def lines(v: View) -> list[str]:
    """Everything but the title: warnings, the table, added/removed cases, graders that moved, the summary."""
    out = [f"old: {v.old}", f"new: {v.new}"]
    if v.plugin_changes:
        out.append(f"changed in the plugin: {'; '.join(v.plugin_changes)}")
    out += [f"⚠ not comparable: {w}" for w in v.warnings]
    out += [f"note: {v.baseline_note}"] if v.baseline_note else []
    out += [f"note: {v.arms_note}"] if v.arms_note else []
    if v.rows:
        out += ["", *table(v)]
    if v.added or v.removed:
        out.append("")
    if v.added:
        out.append(f"added: {', '.join(v.added)}")
    if v.removed:
        out.append(f"removed: {', '.join(v.removed)}")
    if v.graders:
        out += ["", "graders whose pass rate moved (with-arm runs passed):", *[f"  {g}" for g in v.graders]]
    if v.efficiency:
        out += ["", EFFICIENCY_HEADING, *[f"  {line}" for line in v.efficiency]]
    out += trigger_lines(v.triggers)
    if v.trigger_note:
        out.append(f"note: {v.trigger_note}")
    out += ["", *[text for _, text in v.verdict_counts], v.summary]
    return out


@dataclass(frozen=True)
class QueryRow:
    """One trigger query of a comparison: its fire rate then → now and the verdict of the change."""

    label: str  # "should fire", "should not"
    id: str
    query: str  # what was asked
    rates: str  # "0/5 → 5/5"
    interval: str
    verdict: str  # "better", "worse", "no detectable change", or why there is none
    style: str | None  # better / worse: how the HTML marks it


@dataclass(frozen=True)
class SetTable:
    name: str
    skill: str
    note: str | None  # the description changed, or the set is in one session only
    rows: list[QueryRow]
    file: str | None = None  # the trigger file: two sets of one skill (evals/triggers.yaml, its trigger-eval.json)

    @property
    def heading(self) -> str:
        return f"{self.name} ({self.skill})" + (f" · {self.file}" if self.file else "")


def trigger_tables(changes: list[TriggerSetChange]) -> list[SetTable]:
    """Per trigger set: whether its description changed, then each query's fire rate then → now and the verdict
    of the change (better or worse as the query's label asks) — the terminal's, Markdown's and HTML's table."""
    out = []
    for change in changes:
        note = None
        if change.description_changed:
            note = "the description of this skill changed between the sessions"
        elif change.old is None or change.new is None:
            note = "only in the " + ("new" if change.old is None else "old") + " session"
        rows = []
        for query in change.queries:
            old = f"{query.old.fires}/{query.old.runs}" if query.old else MISSING
            new = f"{query.new.fires}/{query.new.runs}" if query.new else MISSING
            verdict = {"better": "better", "worse": "worse", "no_detectable_change": "no detectable change"}.get(
                query.verdict or "", query.status if query.status != "compared" else MISSING
            )
            label = "should fire" if query.should_fire else "should not"
            style = query.verdict if query.verdict in ("better", "worse") else None
            rows.append(
                QueryRow(label, query.id, query.query, f"{old} → {new}", interval(query.interval), verdict, style)
            )
        out.append(SetTable(change.name, change.skill, note, rows, change.file))
    return out


def trigger_lines(changes: list[TriggerSetChange]) -> list[str]:
    """The trigger tables as terminal lines."""
    out: list[str] = []
    for table in trigger_tables(changes):
        out += ["", f"triggers · {table.heading}"]
        if table.note:
            out.append(f"  {table.note}")
        for row in table.rows:
            out.append(f"  {row.label:<12}{row.id:<40}{row.rates:<14}{row.interval:<17}{row.verdict}")
    return out


def write_comparison(terminal, comparison: Comparison, title: str = "compared with the earlier session") -> None:
    """`title`: the separator's words (two models of one matrix are no earlier and later session)."""
    v = view(comparison)
    terminal.write_sep("-", title)
    for line in lines(v):
        red = line.startswith("⚠")
        terminal.write_line(line, **({"yellow": True} if red else {}))
