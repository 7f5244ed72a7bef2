"""The Markdown summary of a session (`--md PATH`, and a CI job's step summary) and of a comparison: the same rows
as the terminal table (view.case_rows) and the same comparison view (report.comparison), in GitHub-flavoured
Markdown — tables, no HTML but what GitHub renders. This module makes the views (SuiteSummary, Table…);
templates/suite.md.j2 and comparison.md.j2 lay them out (report/md.py renders them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import display_path
from ..load.mocks import INFO_MARK
from ..results.comparison import Comparison
from ..results.model import SuiteResult
from ..results.triggers import VERDICT_WORDS, TriggerSetResult
from ..results.verdict import case_verdict
from . import arms, efficiency, triggers
from . import comparison as compared
from .md import code, render_markdown
from .notice_groups import grouped
from .view import (
    MISSING,
    access_text,
    case_rows,
    findings_by_case,
    findings_heading,
    partial_label,
    percent,
    reused_legend,
    score,
    seconds,
    session_cost,
    signed,
    spread,
    usd,
    without_cell,
)

NOTE_CHARS = 160
OUTCOMES = {"passed": "✅ passed", "failed": "❌ failed", "skipped": "⚪ not scored"}
VERDICT_MARKS = {"better": "🟢 better", "worse": "🔴 worse", "no_detectable_change": "no detectable change"}


@dataclass(frozen=True)
class Table:
    """A Markdown table's cells (templates/table.md.j2): the columns in `right` are aligned right."""

    head: list[str]
    body: list[list[str]]
    right: tuple[int, ...] = ()


@dataclass(frozen=True)
class SessionPart:
    """One suite of a session, for its summary."""

    document: SuiteResult
    comparison: Comparison | None = None
    label: str | None = None  # its name when the session had several suites
    results_path: Path | None = None
    report_path: Path | None = None


def _title(document: SuiteResult, label: str | None) -> str:
    plugins = ", ".join(p.name for p in document.suite.plugins) or label or "no plugin"
    return f"Plugin eval: {plugins}"


def _cut(text: str) -> str:
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def cases_view(document: SuiteResult) -> tuple[Table, str | None]:
    """WITH, W/OUT, Δ and its interval per case (SCORE, spread and pass rate with one arm), and each verdict."""
    threshold = document.suite.threshold
    outcomes = [OUTCOMES[case_verdict(case, threshold).outcome] for case in document.cases]
    rows = case_rows(document)
    if document.two_arm:
        head = ["Case", "With", "W/out", "Δ", "Δ 95% CI", "Runs", "Cost", "Verdict", "Notes"]
        body = [
            [
                r.name,
                score(r.score),
                without_cell(score(r.score_without), r),
                signed(r.delta),
                (r.interval or MISSING) + (" n.s." if r.significant is False else ""),
                str(r.runs),
                usd(r.cost_usd),
                outcome,
                _cut(r.notes),
            ]
            for r, outcome in zip(rows, outcomes, strict=True)
        ]
        return Table(head, body, (1, 2, 3, 5, 6)), reused_legend(document)
    head = ["Case", "Score", "±SD", "Pass %", "Runs", "Cost", "Verdict", "Notes"]
    body = [
        [
            r.name,
            score(r.score),
            spread(r.stdev_with),
            percent(r.pass_rate),
            str(r.runs),
            usd(r.cost_usd),
            outcome,
            _cut(r.notes),
        ]
        for r, outcome in zip(rows, outcomes, strict=True)
    ]
    return Table(head, body, (1, 2, 3, 4, 5)), None


@dataclass(frozen=True)
class Folded:
    """A table under a title, folded (`<details>`)."""

    title: str
    table: Table


def efficiency_view(document: SuiteResult) -> Folded | None:
    """What the runs spent, folded: a row per case (and the suite) of with / without medians and Δ."""
    found = efficiency.table(document, interval=True)
    if found is None:
        return None
    rows = [[name, *cells] for name, cells in found.rows]
    return Folded(found.title, Table(["Case", *(title.capitalize() for title in found.columns)], rows))


@dataclass(frozen=True)
class Against:
    """The other version's arm (--against): its table and the lines under it."""

    title: str
    table: Table
    lines: list[str]


def against_view(document: SuiteResult) -> tuple[Against | None, Table | None]:
    """The other version's arm (--against) and the ablated components (--ablate), as the terminal shows them."""
    v = arms.arms_view(document)
    against = ablation = None
    if v.against_rows:
        head = ["Case", "With", "Against", "ΔAGAINST", "ΔAGAINST 95% CI", "Verdict"]
        body = [
            [r.name, r.score, r.against, r.delta, r.interval, VERDICT_MARKS.get(r.verdict or "", MISSING)]
            for r in v.against_rows
        ]
        title = f"{arms.AGAINST_TITLE}: {code(v.against)}" if v.against else arms.AGAINST_TITLE
        lines = [line for line in (v.against_summary, *v.movers, v.against_reused) if line]
        against = Against(title, Table(head, body, (1, 2, 3)), lines)
    if v.ablation_rows:
        head = ["Component", "Δ (with − without it)", "95% CI", "Per case"]
        ablation = Table(head, [[r.component, r.delta, r.interval, r.cases] for r in v.ablation_rows], (1,))
    return against, ablation


def triggers_view(sets: Sequence[TriggerSetResult]) -> tuple[Table, list[tuple[str, str]]]:
    """A row per query: its skill, label, fires k/n with the interval, its verdict, what else its runs took; and
    each set's rates."""
    then = any(q.against_runs for s in sets for q in s.queries)  # --against: then → now
    head = ["", "Skill", "Query", "Label", "Fires", "95% CI", "Verdict", *(["Then → now"] if then else []), "Notes"]
    marks = {True: "✅", False: "❌", None: "⚪"}
    body = [
        [
            marks[q.correct(s.threshold)],
            s.name,
            q.id,
            "should fire" if q.should_fire else "should not fire",
            f"{q.fires}/{len(q.decided)}",
            triggers.interval(q.interval),
            VERDICT_WORDS[q.verdict(s.threshold)],
            *([triggers.then_now(q)] if then else []),
            _cut(triggers.query_notes(q, s)),
        ]
        for s in sets
        for q in s.queries
    ]
    rates = [(s.name, triggers.skill_line(s).split(" · ", 1)[1]) for s in sets]
    return Table(head, body, (4,)), rates


def summary_line(document: SuiteResult) -> str:
    agg = document.aggregates
    parts = [
        f"**{agg.cases_passed} of {len(document.cases)} case(s) passed** (threshold {document.suite.threshold:.2f})"
    ]
    if agg.two_arm:
        parts.append(f"mean Δ {signed(agg.mean_delta)}")
    parts += [seconds(document.duration_seconds), session_cost(document)]
    if document.suite.scripted:
        parts.append("scripted endpoint (no real model)")
    access = access_text(document)
    if access:
        parts.append(access)
    return " · ".join(parts)


@dataclass(frozen=True)
class Failing:
    name: str
    headline: str
    details: list[str]


def failing_cases(document: SuiteResult) -> list[Failing]:
    threshold = document.suite.threshold
    verdicts = [(case, case_verdict(case, threshold)) for case in document.cases]
    return [Failing(c.name, v.headline, list(v.details)) for c, v in verdicts if v.outcome != "passed"]


@dataclass(frozen=True)
class LoadError:
    dir: str
    message: str
    problems: list[tuple[str, str]]  # (file: key, or ''; message)


@dataclass(frozen=True)
class SuiteSummary:
    """What templates/suite.md.j2 shows of one suite."""

    heading: str
    title: str
    partial: str | None
    banners: list[str]
    load_errors: list[LoadError]
    cases: Table | None
    legend: str | None
    summary: str
    efficiency: Folded | None
    against: Against | None
    ablation: Table | None
    triggers: Table | None
    trigger_rates: list[tuple[str, str]]
    trigger_summary: str
    failing: list[Failing]
    findings_heading: str | None
    findings: list[tuple[str, list[str]]]
    comparison: str | None
    notes: list[str]
    kept: list[tuple[str, str]]


def suite_view(part: SessionPart, level: int = 2) -> SuiteSummary:
    document = part.document
    cases, legend = cases_view(document) if document.cases else (None, None)
    against, ablation = against_view(document)
    sets = document.triggers
    trigger_table, rates = triggers_view(sets) if sets else (None, [])
    return SuiteSummary(
        heading="#" * level,
        title=_title(document, part.label),
        partial=partial_label(document.partial_reason) if document.partial else None,
        banners=grouped([n for n in document.notices if not n.startswith(INFO_MARK)]),
        load_errors=[
            LoadError(
                error.dir,
                error.message,
                [
                    (
                        ": ".join(str(p) for p in (problem.get("file"), problem.get("key")) if p),
                        str(problem.get("message", "")),
                    )
                    for problem in error.problems
                ],
            )
            for error in document.load_errors
        ],
        cases=cases,
        legend=legend,
        summary=summary_line(document) if document.cases else "",
        efficiency=efficiency_view(document) if document.cases else None,
        against=against,
        ablation=ablation,
        triggers=trigger_table,
        trigger_rates=rates,
        trigger_summary=triggers.summary_line(sets) if sets else "",
        failing=failing_cases(document),
        findings_heading=findings_heading(document) if document.findings else None,
        findings=findings_by_case(document) if document.findings else [],
        comparison=comparison_markdown(part.comparison, level + 1).rstrip("\n")
        if part.comparison is not None
        else None,
        notes=[n for n in document.notices if n.startswith(INFO_MARK)],  # set-up notes: after the results
        kept=[
            (label, display_path(path))
            for label, path in (("Results", part.results_path), ("Report", part.report_path))
            if path is not None
        ],
    )


def suite_markdown(part: SessionPart, level: int = 2) -> str:
    """One suite's summary (templates/suite.md.j2), its heading at `level`."""
    return render_markdown("suite.md.j2", s=suite_view(part, level), ablation_title=arms.ABLATION_TITLE)


def session_markdown(parts: Sequence[SessionPart]) -> str:
    """A session's summary: a section per suite."""
    return "\n".join(suite_markdown(part) for part in parts)


def trigger_changes_table(v: compared.View) -> Table:
    head = ["Skill", "Query", "Label", "Fires then → now", "Change 95% CI", "Verdict"]
    body = []
    for change in v.triggers:
        name = change.name + (f" · {change.file}" if change.file else "")
        name += " (description changed)" if change.description_changed else ""
        for q in change.queries:
            old = f"{q.old.fires}/{q.old.runs}" if q.old else MISSING
            new = f"{q.new.fires}/{q.new.runs}" if q.new else MISSING
            verdict = VERDICT_MARKS.get(q.verdict or "", q.status if q.status != "compared" else MISSING)
            label = "should fire" if q.should_fire else "should not fire"
            body.append([name, q.id, label, f"{old} → {new}", triggers.interval(q.interval), verdict])
    return Table(head, body)


def changes_table(v: compared.View) -> Table:
    """WITH's change per case, and Δ's when both sessions had both arms."""
    head = ["Case", "WITH", "Change", f"{v.level} CI", "Verdict"]
    if v.two_arm:
        head += ["Δ", "Change in Δ", f"{v.level} CI", "Verdict"]
    body = []
    for row in v.rows:
        w = row.with_score
        line = [row.name, f"{w.old} → {w.new}", w.change, w.interval, VERDICT_MARKS.get(w.verdict or "", MISSING)]
        if v.two_arm:
            d = row.delta
            line += (
                [f"{d.old} → {d.new}", d.change, d.interval, VERDICT_MARKS.get(d.verdict or "", MISSING)]
                if d
                else [MISSING] * 4
            )
        body.append(line)
    return Table(head, body)


def comparison_markdown(comparison: Comparison, level: int = 2) -> str:
    """The comparison in Markdown (templates/comparison.md.j2), its heading at `level`."""
    v = compared.view(comparison)
    return render_markdown(
        "comparison.md.j2",
        v=v,
        heading="#" * level,
        cases=changes_table(v),
        queries=trigger_changes_table(v),
        efficiency_heading=compared.EFFICIENCY_HEADING.capitalize(),
    )
