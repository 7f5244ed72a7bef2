"""The pull request comment (`plugin-eval pr-comment`): what a reviewer needs from a session, in the order they
need it — the verdict, the cases that newly fail, what moved against the baseline (cases and trigger queries,
then → now with the interval of the change), the cost, and a link to the run. Pure text over results documents
and their comparison (analysis.compare); every case's row is folded away at the end. This module makes the view of
each document (CommentSection); templates/pr_comment.md.j2 lays the comment out.

The first line is a hidden marker naming the suite (`marker`): the poster finds its own comment by it and
updates it in place, so that a pull request holds one comment per suite however often it is pushed to."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..results.comparison import BETTER, WORSE, CaseComparison, Comparison
from ..results.matrix import model_exit_status
from ..results.model import CaseResult, SuiteResult
from ..results.scoring import EXIT_FAILED, EXIT_PARTIAL
from ..results.trigger_compare import QueryChange
from ..results.verdict import case_verdict
from . import comparison as compared
from . import markdown
from .markdown import Table
from .view import MISSING, partial_label, seconds, signed, usd

# GitHub refuses a comment body over 65,536 characters: stay below it, and fold what does not fit.
MAX_CHARS = 60_000
MARKER_PREFIX = "<!-- plugin-eval:pr-comment "
VERDICT_MARKS = {BETTER: "🟢 better", WORSE: "🔴 worse"}


@dataclass(frozen=True)
class CommentPart:
    """One results document in the comment (a model of a model matrix has one each), and its comparison with the
    baseline's document when there is one."""

    document: SuiteResult
    comparison: Comparison | None = None
    before: SuiteResult | None = None  # the baseline's document, which `comparison` compares with
    label: str | None = None  # the model's name, in a matrix


def suite_key(document: SuiteResult) -> str:
    """The default key of a suite's comment: its plugins' names (`--key` names another, for two tiers or two
    model jobs of one suite that each keep a comment)."""
    return "+".join(p.name for p in document.suite.plugins) or "suite"


def marker(key: str) -> str:
    """The hidden first line that identifies the comment of suite `key` (kept to characters an HTML comment
    cannot be closed by)."""
    safe = re.sub(r"-{2,}", "-", re.sub(r"[^A-Za-z0-9._+@/:=-]+", "-", key)).strip("-") or "suite"
    return f"{MARKER_PREFIX}{safe} -->"


def _failing(case: CaseResult, threshold: float) -> bool:
    return bool(case.runs("with")) and case_verdict(case, threshold).outcome != "passed"


def _passed_before(part: CommentPart) -> dict[str, bool]:
    """Per case of the baseline: whether it passed there, at the baseline's own threshold."""
    before = part.before
    if before is None:
        return {}
    return {c.name: not _failing(c, before.suite.threshold) for c in before.cases}


def headline(part: CommentPart, baseline: str) -> str:
    """One line: the session's outcome, then how it compares with the baseline."""
    document, comparison = part.document, part.comparison
    wrong = sum(len(s.wrong) for s in document.triggers)
    status = model_exit_status(document, bool(wrong))  # the session's own rule, trigger sets included
    failing = [c for c in document.cases if _failing(c, document.suite.threshold)]
    words = []
    if status >= EXIT_PARTIAL:
        words.append(f"⚠ partial results ({partial_label(document.partial_reason)})")
    if document.load_errors:
        words.append(f"✗ {len(document.load_errors)} case(s) did not load")
    if failing:
        words.append(f"❌ {len(failing)} of {len(document.cases)} case(s) below the threshold")
    if wrong:
        words.append(f"❌ {wrong} trigger quer{'y' if wrong == 1 else 'ies'} on the wrong side")
    if status == EXIT_FAILED and not (failing or wrong or document.load_errors):
        words.append("❌ failed")
    if status < EXIT_FAILED:
        words.append(f"✅ {len(document.cases)} case(s) passed" if document.cases else "✅ passed")
    if comparison is not None:
        worse = _counted(len(comparison.worse), len(comparison.worse_queries))
        better = _counted(
            sum(1 for c in comparison.compared if BETTER in _verdicts(c) and not c.worse),
            sum(len(t.better) for t in comparison.triggers),
        )
        if worse:
            words.append(f"🔴 worse than {baseline}: {worse}")
        elif better:
            words.append(f"🟢 better than {baseline}: {better}")
        else:
            words.append(f"no detectable change from {baseline}")
    return " · ".join(words)


def _counted(cases: int, queries: int) -> str:
    """`1 case, 2 trigger queries` (what is not there left out)."""
    parts = [f"{cases} case{'s' if cases != 1 else ''}"] if cases else []
    parts += [f"{queries} trigger quer{'y' if queries == 1 else 'ies'}"] if queries else []
    return ", ".join(parts)


def _verdicts(case: CaseComparison) -> set[str | None]:
    """The verdicts of a compared case's WITH and Δ."""
    return {case.with_score.verdict, case.delta.verdict if case.delta else None}


def _figures(document: SuiteResult, comparison: Comparison | None) -> str:
    agg = document.aggregates
    parts = []
    if document.cases:
        parts.append(f"{agg.cases_passed}/{len(document.cases)} passed at threshold {document.suite.threshold:.2f}")
        if agg.two_arm and agg.mean_delta is not None:
            parts.append(f"mean Δ {signed(agg.mean_delta)}")
    if document.triggers:
        queries = sum(len(s.queries) for s in document.triggers)
        right = queries - sum(len(s.wrong) for s in document.triggers)
        parts.append(f"{right}/{queries} trigger quer{'y' if queries == 1 else 'ies'} on the right side")
    cost = f"cost {usd(document.cost_usd)}"
    if comparison is not None and comparison.cost_usd.old is not None:
        cost += f" (baseline {usd(comparison.cost_usd.old)})"
    parts += [cost, seconds(document.duration_seconds)]
    if document.suite.scripted:
        parts.append("scripted endpoint (no real model)")
    return " · ".join(parts)


@dataclass(frozen=True)
class FailingCase:
    name: str
    why: str  # the verdict's headline
    new: bool  # it passed in the baseline
    still: bool  # it failed in the baseline too


def failures(part: CommentPart) -> list[FailingCase]:
    """The cases below the threshold — those that newly fail first — each with the reason the verdict gives."""
    document = part.document
    threshold = document.suite.threshold
    failing = [c for c in document.cases if _failing(c, threshold)]
    passed_before = _passed_before(part)
    new = [c for c in failing if part.before is not None and passed_before.get(c.name, True)]
    old = [c for c in failing if c not in new]
    why = {c.name: case_verdict(c, threshold).headline for c in failing}
    return [FailingCase(c.name, why[c.name], True, False) for c in new] + [
        FailingCase(c.name, why[c.name], False, part.before is not None) for c in old
    ]


def moved_cases(comparison: Comparison) -> Table | None:
    """A row per case whose WITH or Δ moved beyond its interval, worse first."""
    v = compared.view(comparison)  # its rows are the compared cases, in order
    moved = [
        (row, case) for row, case in zip(v.rows, comparison.compared, strict=True) if _verdicts(case) & {BETTER, WORSE}
    ]
    if not moved:
        return None
    moved.sort(key=lambda pair: not pair[1].worse)
    head = ["Case", "WITH then → now", f"{v.level} CI", "Δ then → now", f"{v.level} CI", "Verdict"]
    body = []
    for row, case in moved:
        w, d = row.with_score, row.delta
        body.append(
            [
                row.name,
                f"{w.old} → {w.new}",
                w.interval,
                f"{d.old} → {d.new}" if d else MISSING,
                d.interval if d else MISSING,
                VERDICT_MARKS[WORSE if case.worse else BETTER],
            ]
        )
    return Table(head, body)


def _query_verdict(query: QueryChange) -> str:
    now = query.new.fires if query.new else 0
    if query.verdict == WORSE:
        if query.should_fire:
            return "🔴 stopped firing" if now == 0 else "🔴 fires less"
        return "🔴 fires more (should not fire)"
    return "🟢 fires more" if query.should_fire else "🟢 fires less (should not fire)"


def moved_queries(comparison: Comparison) -> Table | None:
    """A row per trigger query whose fire rate moved beyond its interval, those that moved the wrong way first."""
    moved = [(t, q) for t in comparison.triggers for q in t.queries if q.verdict in (BETTER, WORSE)]
    if not moved:
        return None
    moved.sort(key=lambda tq: tq[1].verdict != WORSE)
    head = ["Skill", "Query", "Label", "Fires then → now", f"Change {comparison.level * 100:g}% CI", "Verdict"]
    body = []
    for change, query in moved:
        old = f"{query.old.fires}/{query.old.runs}" if query.old else MISSING
        new = f"{query.new.fires}/{query.new.runs}" if query.new else MISSING
        label = "should fire" if query.should_fire else "should not fire"
        skill = change.name + (" (description changed)" if change.description_changed else "")
        body.append(
            [skill, query.id, label, f"{old} → {new}", compared.interval(query.interval), _query_verdict(query)]
        )
    return Table(head, body)


@dataclass(frozen=True)
class CommentSection:
    """What templates/pr_comment.md.j2 shows of one document."""

    label: str | None
    headline: str
    figures: str
    partial: str | None
    warnings: list[str]
    load_errors: list[tuple[str, str]]  # (dir, message)
    failing: list[FailingCase]
    moved_cases: Table | None
    moved_queries: Table | None
    still: int  # cases compared with no detectable change
    steady: int  # trigger queries likewise
    added: list[str]
    removed: list[str]
    cases: Table | None  # every case, folded (None: left out to fit)
    legend: str | None
    triggers: Table | None
    trigger_rates: list[tuple[str, str]]


def section(part: CommentPart, baseline: str, details: bool = True) -> CommentSection:
    document, comparison = part.document, part.comparison
    still = steady = 0
    if comparison is not None:
        still = len(comparison.compared) - sum(1 for c in comparison.compared if _verdicts(c) & {BETTER, WORSE})
        steady = sum(
            1
            for t in comparison.triggers
            for q in t.queries
            if q.status == "compared" and q.verdict not in (BETTER, WORSE)
        )
    cases, legend = markdown.cases_view(document) if details and document.cases else (None, None)
    triggers, rates = markdown.triggers_view(document.triggers) if details and document.triggers else (None, [])
    return CommentSection(
        label=part.label,
        headline=headline(part, baseline),
        figures=_figures(document, comparison),
        partial=partial_label(document.partial_reason) if document.partial else None,
        warnings=[w.message for w in comparison.warnings] if comparison is not None else [],
        load_errors=[(error.dir, error.message) for error in document.load_errors],
        failing=failures(part),
        moved_cases=moved_cases(comparison) if comparison is not None else None,
        moved_queries=moved_queries(comparison) if comparison is not None else None,
        still=still if comparison is not None and comparison.compared else 0,
        steady=steady,
        added=[c.name for c in comparison.added] if comparison is not None else [],
        removed=[c.name for c in comparison.removed] if comparison is not None else [],
        cases=cases,
        legend=legend,
        triggers=triggers,
        trigger_rates=rates,
    )


def comment_text(
    parts: Sequence[CommentPart], key: str, run_url: str | None = None, baseline: str = "the baseline"
) -> str:
    """The whole comment (templates/pr_comment.md.j2): the marker, a title, a section per document (per model of a
    matrix), the run's link. `baseline`: what the comparison is with, in words ("main")."""
    from .md import render_markdown

    first = parts[0].document

    def render(details: bool) -> str:
        return render_markdown(
            "pr_comment.md.j2",
            marker=marker(key),
            plugins=", ".join(p.name for p in first.suite.plugins) or key,
            sections=[section(part, baseline, details) for part in parts],
            heading="###" if len(parts) == 1 else "####",
            many=len(parts) > 1,
            baseline=baseline,
            run_url=run_url,
        )

    text = render(details=True)
    if len(text) > MAX_CHARS:
        text = render(details=False)
    if len(text) > MAX_CHARS:
        note = "\n\n… cut to fit a comment: the run's summary has the rest.\n"
        text = text[: MAX_CHARS - len(note)] + note
    return text
