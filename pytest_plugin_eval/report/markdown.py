"""The Markdown summary of a session (`--md PATH`, and a CI job's step summary) and of a comparison: the same rows
as the terminal table (view.case_rows) and the same comparison view (report.comparison), in GitHub-flavoured
Markdown — tables, no HTML but what GitHub renders."""

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


def cell(text: str) -> str:
    """Text safe in a table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|") or " "


def code(text: str) -> str:
    return f"`{str(text).replace('`', '')}`"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    align = ["---:" if i in right else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(map(cell, head)) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return lines


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


def cases_table(document: SuiteResult) -> list[str]:
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
        legend = reused_legend(document)
        return [*_table(head, body, right=(1, 2, 3, 5, 6)), *(["", legend] if legend else [])]
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
    return _table(head, body, right=(1, 2, 3, 4, 5))


def efficiency_section(document: SuiteResult) -> list[str]:
    """What the runs spent, folded: a row per case (and the suite) of with / without medians and Δ."""
    found = efficiency.table(document, interval=True)
    if found is None:
        return []
    rows = [[name, *cells] for name, cells in found.rows]
    head = ["Case", *(title.capitalize() for title in found.columns)]
    return [
        f"<details><summary>{cell(found.title)}</summary>",
        "",
        *_table(head, rows),
        "",
        "</details>",
        "",
    ]


def arms_markdown(document: SuiteResult, level: int) -> list[str]:
    """The other version's arm (--against) and the ablated components (--ablate), as the terminal shows them."""
    v, h = arms.arms_view(document), "#" * level
    out: list[str] = []
    if v.against_rows:
        head = ["Case", "With", "Against", "ΔAGAINST", "ΔAGAINST 95% CI", "Verdict"]
        body = [
            [r.name, r.score, r.against, r.delta, r.interval, VERDICT_MARKS.get(r.verdict or "", MISSING)]
            for r in v.against_rows
        ]
        title = f"{arms.AGAINST_TITLE}: {code(v.against)}" if v.against else arms.AGAINST_TITLE
        out += [f"{h} {title}", "", *_table(head, body, right=(1, 2, 3)), ""]
        out += [f"- {cell(line)}" for line in (v.against_summary, *v.movers, v.against_reused) if line] + [""]
    if v.ablation_rows:
        head = ["Component", "Δ (with − without it)", "95% CI", "Per case"]
        body = [[r.component, r.delta, r.interval, r.cases] for r in v.ablation_rows]
        out += [f"{h} {arms.ABLATION_TITLE}", "", *_table(head, body, right=(1,)), ""]
    return out


def triggers_table(sets: Sequence[TriggerSetResult]) -> list[str]:
    """A row per query: its skill, label, fires k/n with the interval, its verdict, what else its runs took."""
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
    rates = [f"- **{cell(s.name)}** — {cell(triggers.skill_line(s).split(' · ', 1)[1])}" for s in sets]
    return [*_table(head, body, right=(4,)), "", *rates]


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


def failing_cases(document: SuiteResult) -> list[str]:
    threshold = document.suite.threshold
    out = []
    for case in document.cases:
        verdict = case_verdict(case, threshold)
        if verdict.outcome == "passed":
            continue
        out.append(f"- **{cell(case.name)}** — {cell(verdict.headline)}")
        out += [f"  - {cell(detail)}" for detail in verdict.details]
    return out


def suite_markdown(part: SessionPart, level: int = 2) -> str:
    document, h = part.document, "#" * level
    out = [f"{h} {_title(document, part.label)}", ""]
    if document.partial:
        out += [
            f"> ⚠ **Partial results** ({partial_label(document.partial_reason)}): some runs did not finish or were "
            f"not graded, so the scores below are incomplete.",
            "",
        ]
    banners = grouped([n for n in document.notices if not n.startswith(INFO_MARK)])
    if banners:
        out += [f"- {cell(notice)}" for notice in banners] + [""]
    if document.load_errors:
        n = len(document.load_errors)
        out += [f"**✗ {n} case{'s' if n != 1 else ''} did not load** (not run — fix their files):", ""]
        for error in document.load_errors:
            out.append(f"- {code(error.dir)}: {cell(error.message)}")
            for problem in error.problems:
                where = ": ".join(str(p) for p in (problem.get("file"), problem.get("key")) if p)
                out.append(f"  - {code(where) if where else ''} {cell(str(problem.get('message', '')))}".rstrip())
        out.append("")
    sets = document.triggers
    if document.cases:
        out += [*cases_table(document), "", summary_line(document), "", *efficiency_section(document)]
    elif not sets:
        out += ["No eval cases ran.", ""]
    out += arms_markdown(document, level + 1)
    if sets:
        out += [f"{h}# Triggers", "", *triggers_table(sets), "", triggers.summary_line(sets), ""]
    failing = failing_cases(document)
    if failing:
        out += [f"{h}# Failing cases", "", *failing, ""]
    if document.findings:
        out += [f"{h}# {cell(findings_heading(document))}", ""]
        for case, lines in findings_by_case(document):
            out += [f"- **{cell(case)}**", *(f"  - ⚑ {cell(line)}" for line in lines)]
        out.append("")
    if part.comparison is not None:
        out += [comparison_markdown(part.comparison, level + 1).rstrip("\n"), ""]
    notes = [n for n in document.notices if n.startswith(INFO_MARK)]  # set-up notes: after the results
    if notes:
        out += [f"- {cell(note)}" for note in notes] + [""]
    kept = [
        f"{label}: {code(display_path(path))}"
        for label, path in (("Results", part.results_path), ("Report", part.report_path))
        if path is not None
    ]
    if kept:
        out += [" · ".join(kept), ""]
    return "\n".join(out).rstrip() + "\n"


def session_markdown(parts: Sequence[SessionPart]) -> str:
    """A session's summary: a section per suite."""
    return "\n".join(suite_markdown(part) for part in parts)


def trigger_changes_markdown(v: compared.View) -> list[str]:
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
    out = ["**Triggers**", "", *_table(head, body), ""]
    if v.trigger_note:
        out += [f"> {cell(v.trigger_note)}", ""]
    return out


def comparison_markdown(comparison: Comparison, level: int = 2) -> str:
    v = compared.view(comparison)
    h = "#" * level
    out = [f"{h} Compared with an earlier session", "", f"- old: {v.old}", f"- new: {v.new}"]
    out += [f"- changed in the plugin: {cell('; '.join(v.plugin_changes))}"] if v.plugin_changes else []
    out.append("")
    if v.warnings:
        out += ["> ⚠ **Not comparable** — read the changes with care:"]
        out += [f"> - {cell(w)}" for w in v.warnings] + [""]
    for note in (v.baseline_note, v.arms_note):
        out += [f"> {cell(note)}", ""] if note else []
    if v.rows:
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
        out += [*_table(head, body), ""]
    if v.efficiency:
        out += [
            f"**{compared.EFFICIENCY_HEADING.capitalize()}**",
            "",
            *(f"- {cell(line)}" for line in v.efficiency),
            "",
        ]
    if v.added:
        out += [f"**Added:** {cell(', '.join(v.added))}", ""]
    if v.removed:
        out += [f"**Removed:** {cell(', '.join(v.removed))}", ""]
    if v.graders:
        out += ["**Graders whose pass rate moved** (with-arm runs passed, before → after):", ""]
        out += [f"- {cell(g)}" for g in v.graders] + [""]
    if v.triggers:
        out += trigger_changes_markdown(v)
    out += [f"- {text}" for _, text in v.verdict_counts]
    out += [f"- {v.summary}", ""]
    return "\n".join(out).rstrip() + "\n"
