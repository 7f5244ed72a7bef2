"""What the terminal table and the HTML page both show, defined once: the per-case rows, the labels, the NOTES
text, and the number, money and time formats. The two renderers differ only in layout and in how they mark a
missing value."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..adaptive import STOP_REASONS
from ..results import scoring
from ..results.model import CaseResult, RunResult, SuiteResult
from ..results.refused import refusal_explains_failures, refusal_note
from ..results.scoring import trend
from ..results.verdict import one_line

PARTIAL_LABELS = {
    "cost_ceiling": "cost ceiling hit",
    "auth_failed": "credentials rejected",
    "api_error": "API errors",
    "interrupted": "interrupted",
    "worker_lost": "a worker process died",
    "sandbox_failed": "the shell's sandbox failed to start",
    "judge_error": "judge unavailable",
    "trigger_run_error": "trigger runs that erred",
    "tool_refused": "runs refused a tool (--strict-tools)",
}

MISSING = "–"  # the page's mark for a value that does not exist; the terminal passes its own


def access_text(document: SuiteResult) -> str | None:
    """How the runs and judges reached the model (the document's `access`), and on a plan what its costs mean."""
    access = document.access
    if not isinstance(access, dict) or not access.get("label"):
        return None
    how = "directly" if access.get("judges") == "direct" else "through Claude Code"
    text = f"{access['label']} for runs and judges (judges asked {how})"
    if access.get("plan"):
        text += "; costs are list-price estimates, the plan's usage is what is spent"
    return text


def partial_label(reason: str | None) -> str:
    return PARTIAL_LABELS.get(reason or "", reason or "unknown reason")


# ---- formats ---------------------------------------------------------------------------------------------


def score(value: float | None, missing: str = MISSING) -> str:
    return missing if value is None else f"{value:.2f}"


def signed(delta: float | None, missing: str = MISSING) -> str:
    """A Δ with its sign; one that rounds to zero is 0.00."""
    return missing if delta is None else scoring.signed(delta)


def spread(stdev: float | None, missing: str = MISSING) -> str:
    return missing if stdev is None else f"±{stdev:.2f}"


def percent(rate: float | None, missing: str = MISSING) -> str:
    return missing if rate is None else f"{round(rate * 100)}%"


def usd(value: float | None) -> str:
    """Money, written alike everywhere: two decimals, but an amount under a cent keeps four, so a cheap run does
    not read as free (at most 8 characters)."""
    value = value or 0.0
    if 0 < value < 0.00005:
        return "<$0.0001"
    return f"${value:.4f}" if 0 < value < 0.01 else f"${value:.2f}"


def trigger_cost(document: SuiteResult) -> float:
    """What the session's trigger runs cost (a share of its cost)."""
    return sum(t.cost_usd for t in document.triggers)


def session_cost(document: SuiteResult) -> str:
    """The session's cost under its case table: the trigger runs are in it too, so say their share (the
    trigger table's own total would otherwise read as more on top)."""
    total = usd(document.cost_usd)
    if not (document.cases and document.triggers):
        return total
    return f"{total} in all (trigger runs {usd(trigger_cost(document))} of it)"


def seconds(value: float | None, whole: bool = False) -> str:
    """A duration. `whole`: whole seconds, as the terminal's summary line has them; otherwise a tenth under
    10 s and minutes (and hours) from a minute up."""
    value = value or 0.0
    if whole:
        return f"{round(value)}s"
    if value < 60:
        return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
    minutes, secs = divmod(round(value), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def cut(text: str, limit: int) -> str:
    """The first `limit` characters, with a count of what was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters"


def yamlish(mapping: dict, skip: str | None = None) -> str:
    """A mapping as YAML-like lines, multi-line strings as indented blocks (a Write's content or a Bash script
    reads as it would in a file). `skip`: a value shown elsewhere."""
    lines = []
    for key, value in mapping.items():
        if isinstance(value, str) and value == skip:
            continue
        if isinstance(value, str) and "\n" in value:
            lines.append(f"{key}: |")
            lines += [f"  {line}" for line in value.split("\n")]
        elif isinstance(value, str):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


# ---- notes -----------------------------------------------------------------------------------------------


def aborted_text(aborted: dict) -> str:
    return f"aborted by mock {aborted.get('server')}/{aborted.get('tool')}: {aborted.get('reason')}"


def notes_for(case: CaseResult) -> str:
    """Why a case is not perfect: the tools Claude Code refused, when a refusal is in every failing with-plugin
    run; what keeps it from passing as written (a tool not granted), a with-arm run's error or mock abort, then a
    diagnostic hint, then the first failing grader of the with arm (indicators included), else why it ran
    single-arm. On one line: a table's cell."""
    return one_line(_notes(case))


def _notes(case: CaseResult) -> str:
    note = refusal_note(case)
    if note and refusal_explains_failures(case):
        return note
    if case.warnings:
        return case.warnings[0]
    runs = case.runs("with")
    for run in runs:
        if run.error:
            return run.error
        if run.aborted:
            return aborted_text(run.aborted)
    if case.hints:
        return case.hints[0]
    for run in runs:
        for grader in run.graders:
            if not grader.passed:
                return f"{grader.name}: {grader.explanation}"
    if case.single_arm_reason:
        return f"single-arm: {case.single_arm_reason}"
    return auto_runs_text(case)


REUSED_MARK = "↺"  # after W/OUT: some of its runs were taken from a stored session (--reuse-baseline)


def reused_text(run: RunResult) -> str | None:
    """Where a run reused by --reuse-baseline was made (None: it ran in this session): a without-plugin run, or
    an against run taken from a with-plugin run made on that version."""
    origin = run.reused_from
    if not origin:
        return None
    which = "with-plugin run" if run.arm == "against" else "run"  # --against's: the old version's with arm
    return f"{REUSED_MARK} reused from the session of {origin.get('session')} ({which} {origin.get('index')}), graded again"


def reused_legend(document: SuiteResult) -> str | None:
    """The line under a table whose W/OUT cells are marked: how many without-plugin runs were reused."""
    runs = [run for case in document.cases for run in case.runs("without")]
    reused = sum(1 for run in runs if run.reused_from)
    if not reused:
        return None
    return (
        f"{REUSED_MARK} W/OUT from stored runs (--reuse-baseline): {reused} of {len(runs)} without-plugin run(s) "
        f"reused from earlier sessions and graded again"
    )


def without_cell(text: str, row: CaseRow) -> str:
    return f"{text}{REUSED_MARK}" if row.reused else text


def auto_runs_text(case: CaseResult) -> str:
    """With --runs auto: how many runs per arm the case took and why no more ("" otherwise)."""
    if not case.auto_runs:
        return ""
    runs, reason = case.auto_runs.get("runs"), str(case.auto_runs.get("stopped"))
    return f"{runs} runs/arm: {STOP_REASONS.get(reason, reason)}"


FINDINGS_TITLE = "Findings"


def findings_by_case(document: SuiteResult) -> list[tuple[str, list[str]]]:
    """The document's findings under their case, in the table's order (a case no longer in it: last)."""
    order = {case.name: i for i, case in enumerate(document.cases)}
    grouped: dict[str, list[str]] = {}
    for f in sorted(document.findings, key=lambda f: order.get(f.case, len(order))):
        grouped.setdefault(f.case, []).append(f.line())
    return list(grouped.items())


def findings_heading(document: SuiteResult) -> str:
    n = len(document.findings)
    return f"{FINDINGS_TITLE} ({n}): what may make a case measure less than it seems — each with its fix"


# ---- the per-case rows -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseRow:
    """One case's line of the summary, in numbers; each renderer formats them with the functions above."""

    name: str
    score: float | None  # WITH (SCORE when one arm ran)
    score_without: float | None
    delta: float | None
    trend: str | None  # improved | flat | regressed (scoring.trend)
    interval: str | None  # Δ's 95% interval, "[-0.90, +0.10]"
    significant: bool | None  # the interval excludes 0 (None: no interval)
    stdev_with: float | None
    stdev_without: float | None
    pass_rate: float | None
    runs: int  # of both arms
    cost_usd: float
    notes: str
    reused: int = 0  # without-plugin runs taken from stored sessions (--reuse-baseline)


def case_row(case: CaseResult) -> CaseRow:
    agg = case.aggregates
    interval = None
    if agg.delta_ci:
        low, high = agg.delta_ci
        interval = f"[{signed(low)}, {signed(high)}]"
    return CaseRow(
        name=case.name,
        score=agg.score,
        score_without=agg.score_without,
        delta=agg.delta,
        trend=trend(agg.delta),
        interval=interval,
        significant=agg.delta_significant,
        stdev_with=agg.stdev_with,
        stdev_without=agg.stdev_without,
        pass_rate=agg.pass_rate,
        runs=len(case.runs()),
        cost_usd=case.cost_usd,
        notes=notes_for(case),
        reused=sum(1 for run in case.runs("without") if run.reused_from),
    )


def case_rows(document: SuiteResult) -> list[CaseRow]:
    return [case_row(case) for case in document.cases]
