"""The pull request comment (`plugin-eval pr-comment`): what a reviewer needs from a session, in the order they
need it — the verdict, the cases that newly fail, what moved against the baseline (cases and trigger queries,
then → now with the interval of the change), the cost, and a link to the run. Pure text over results documents
and their comparison (analysis.compare); every case's row is folded away at the end.

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


def failures(part: CommentPart) -> list[str]:
    """The cases below the threshold — those that newly fail first — each with the reason the verdict gives."""
    document = part.document
    threshold = document.suite.threshold
    failing = [c for c in document.cases if _failing(c, threshold)]
    if not failing and not document.load_errors:
        return []
    passed_before = _passed_before(part)
    new = [c for c in failing if part.before is not None and passed_before.get(c.name, True)]
    old = [c for c in failing if c not in new]
    out = []
    for error in document.load_errors:
        out.append(f"- ✗ {markdown.code(error.dir)} did not load: {markdown.cell(error.message)}")
    for case in new:
        out.append(f"- 🆕 **{markdown.cell(case.name)}** — {markdown.cell(case_verdict(case, threshold).headline)}")
    for case in old:
        still = " (failing in the baseline too)" if part.before is not None else ""
        out.append(f"- **{markdown.cell(case.name)}**{still} — {markdown.cell(case_verdict(case, threshold).headline)}")
    return out


def moved_cases(comparison: Comparison) -> list[str]:
    """A row per case whose WITH or Δ moved beyond its interval, worse first."""
    v = compared.view(comparison)  # its rows are the compared cases, in order
    moved = [
        (row, case) for row, case in zip(v.rows, comparison.compared, strict=True) if _verdicts(case) & {BETTER, WORSE}
    ]
    if not moved:
        return []
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
    return markdown._table(head, body)


def _query_verdict(query: QueryChange) -> str:
    now = query.new.fires if query.new else 0
    if query.verdict == WORSE:
        if query.should_fire:
            return "🔴 stopped firing" if now == 0 else "🔴 fires less"
        return "🔴 fires more (should not fire)"
    return "🟢 fires more" if query.should_fire else "🟢 fires less (should not fire)"


def moved_queries(comparison: Comparison) -> list[str]:
    """A row per trigger query whose fire rate moved beyond its interval, those that moved the wrong way first."""
    moved = [(t, q) for t in comparison.triggers for q in t.queries if q.verdict in (BETTER, WORSE)]
    if not moved:
        return []
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
    return markdown._table(head, body)


def section(part: CommentPart, baseline: str, level: int, details: bool = True) -> list[str]:
    document, comparison = part.document, part.comparison
    h = "#" * level
    out = [f"**{headline(part, baseline)}**", "", _figures(document, comparison), ""]
    if document.partial:
        out += [
            f"> ⚠ **Partial results** ({partial_label(document.partial_reason)}): some runs did not finish or were "
            "not graded — the scores are incomplete; rerun rather than blame the plugin.",
            "",
        ]
    if comparison is not None and comparison.warnings:
        out += ["> ⚠ **Not measured alike** — read the changes with care:"]
        out += [f"> - {markdown.cell(w.message)}" for w in comparison.warnings] + [""]
    failing = failures(part)
    if failing:
        out += [f"{h} Failing", "", *failing, ""]
    if comparison is not None:
        cases, queries = moved_cases(comparison), moved_queries(comparison)
        if cases or queries:
            out += [f"{h} What moved against {baseline}", ""]
            out += [*cases, ""] if cases else []
            out += [*queries, ""] if queries else []
        still = len(comparison.compared) - sum(1 for c in comparison.compared if _verdicts(c) & {BETTER, WORSE})
        if comparison.compared and still:
            out += [f"{still} case(s) compared with {baseline}: no detectable change.", ""]
        steady = sum(
            1
            for t in comparison.triggers
            for q in t.queries
            if q.status == "compared" and q.verdict not in (BETTER, WORSE)
        )
        if steady:
            out += [
                f"{steady} trigger quer{'y' if steady == 1 else 'ies'} compared with {baseline}: no detectable change.",
                "",
            ]
        if comparison.added:
            out += [f"New cases: {markdown.cell(', '.join(c.name for c in comparison.added))}", ""]
        if comparison.removed:
            out += [f"Removed cases: {markdown.cell(', '.join(c.name for c in comparison.removed))}", ""]
    if details and document.cases:
        out += ["<details><summary>Every case</summary>", "", *markdown.cases_table(document), "", "</details>", ""]
    if details and document.triggers:
        table = markdown.triggers_table(document.triggers)
        out += ["<details><summary>Every trigger query</summary>", "", *table, "", "</details>", ""]
    return out


def comment_text(
    parts: Sequence[CommentPart], key: str, run_url: str | None = None, baseline: str = "the baseline"
) -> str:
    """The whole comment: the marker, a title, a section per document (per model of a matrix), the run's link.
    `baseline`: what the comparison is with, in words ("main")."""
    first = parts[0].document
    plugins = ", ".join(p.name for p in first.suite.plugins) or key
    footer = [f"[The run, its summary and the results folder]({run_url})" if run_url else ""]
    footer.append("<sub>Updated in place on every push by `plugin-eval pr-comment`.</sub>")

    def render(details: bool) -> str:
        out = [marker(key), f"## Plugin eval: {markdown.cell(plugins)}", ""]
        for part in parts:
            if len(parts) > 1:
                out += [f"### {markdown.cell(part.label or '')}", ""]
            out += section(part, baseline, 3 if len(parts) == 1 else 4, details)
        out += [line for line in footer if line]
        return "\n".join(out).rstrip() + "\n"

    text = render(details=True)
    if len(text) > MAX_CHARS:
        text = render(details=False)
    if len(text) > MAX_CHARS:
        note = "\n\n… cut to fit a comment: the run's summary has the rest.\n"
        text = text[: MAX_CHARS - len(note)] + note
    return text
