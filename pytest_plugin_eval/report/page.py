"""The HTML page's view of a results document: plain objects holding every text and number the templates show,
so the templates only lay them out. The per-case numbers come from the rows the terminal table uses."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..core.kinds import Arm as ArmName
from ..core.kinds import ablated_component
from ..load.mocks import INFO_MARK
from ..results.findings import Finding, of_case
from ..results.history import Trend
from ..results.model import CaseResult, GraderInfo, GraderResult, PluginInfo, RunResult, SuiteResult
from ..results.scoring import trend
from ..run.refusals import describe
from ..stats import mean
from . import efficiency
from .arms import ArmsView, arms_view
from .calibration import JudgeChecks
from .conversation import Trace, trace
from .notice_groups import grouped
from .trend import TrendSection, trend_section
from .trigger_page import trigger_sections
from .view import (
    MISSING,
    CaseRow,
    aborted_text,
    access_text,
    auto_runs_text,
    case_row,
    cut,
    partial_label,
    reused_legend,
    reused_text,
    score,
    seconds,
    signed,
    trigger_cost,
    usd,
    yamlish,
)

EVIDENCE_CHARS = 20_000  # the evidence one judged grader read
NOTE_CHARS = 240  # the NOTES cell of the summary table
PASS_K_COLUMNS = 10  # k shown in a case's pass@k table: the first nine and the last when there are more

ARM_TITLES: dict[str, str] = {
    "with": "With the plugin",
    "without": "Without the plugin",
    "against": "The other version (--against)",
}


def arm_title(arm: ArmName) -> str:
    component = ablated_component(arm)
    return ARM_TITLES.get(arm) or f"Without {component} (--ablate)"


# ---- the top: header, cards, summary table, load errors -----------------------------------------------------


@dataclass(frozen=True)
class Fact:
    label: str
    value: str
    code: bool = False  # a path or an identifier, shown as code


@dataclass(frozen=True)
class Header:
    title: str  # the plugins' names
    plugins: list[PluginInfo]
    scripted: bool
    partial: str | None  # why the results are partial
    notices: list[str]  # banners
    notes: list[str]  # set-up notes (INFO_MARK), shown below the results
    facts: list[Fact]  # after the plugins
    verdict: list[tuple[str, str]]  # (style class, text)


@dataclass(frozen=True)
class Card:
    label: str
    value: str
    sub: str
    trend: str | None = None


@dataclass(frozen=True)
class DeltaBar:
    """Δ as a bar centred at zero; the full width is ±1."""

    left: float  # percent of the bar
    width: float

    @classmethod
    def of(cls, delta: float) -> DeltaBar:
        width = min(abs(delta), 1.0) * 50
        return cls(50 if delta >= 0 else 50 - width, width)

    @property
    def style(self) -> str:
        return f"left:{self.left:.1f}%;width:{self.width:.1f}%"


@dataclass(frozen=True)
class SummaryRow:
    row: CaseRow
    anchor: str | None  # the case's section (None where there is none to link to)
    below_threshold: bool
    bar: DeltaBar | None
    notes: str  # cut to fit the cell


@dataclass(frozen=True)
class Summary:
    """The per-case table; the spread and interval columns appear only when some case has them."""

    two_arm: bool
    spread: bool
    interval: bool
    rows: list[SummaryRow]
    reused_legend: str | None = None  # the line under the table saying what its ↺ marks mean, as the terminal's


@dataclass(frozen=True)
class LoadErrorRow:
    case: str
    file: str
    key: str
    message: str


@dataclass(frozen=True)
class LoadErrors:
    title: str
    rows: list[LoadErrorRow]


def _when(iso: str | None) -> str:
    if not iso:
        return MISSING
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _model(document: SuiteResult) -> str:
    suite = document.suite
    if suite.scripted:
        return "the scripted endpoint (no real model)"
    if suite.model_override:
        return suite.model_override
    models = sorted({c.effective_model for c in document.cases if c.effective_model})
    return ", ".join(models) if models else "Claude Code's default"


def _judge(document: SuiteResult) -> str:
    resolved = document.suite.judge_model_resolved or MISSING
    asked = document.suite.judge_model
    return f"{resolved} (asked for {asked})" if asked and asked != resolved else resolved


def title(document: SuiteResult) -> str:
    return ", ".join(p.name for p in document.suite.plugins) or "no plugin"


def _verdict(document: SuiteResult, rows: list[CaseRow]) -> list[tuple[str, str]]:
    sets = document.triggers
    if sets and not document.cases:
        return _trigger_verdict(sets)
    return _case_verdict(document, rows) + (_trigger_verdict(sets) if sets else [])


def _trigger_verdict(sets) -> list[tuple[str, str]]:
    queries = [(s, q) for s in sets for q in s.queries]
    right = sum(1 for s, q in queries if q.correct(s.threshold))
    wrong = sum(1 for s, q in queries if q.correct(s.threshold) is False)
    return [
        ("pos", f"queries right {right}"),
        ("neg", f"wrong {wrong}"),
        ("muted", f"undecided {len(queries) - right - wrong}"),
    ]


def _case_verdict(document: SuiteResult, rows: list[CaseRow]) -> list[tuple[str, str]]:
    if document.two_arm:
        trends = [row.trend for row in rows]
        # A Δ whose interval holds 0 is counted apart, "(n.s.)" as the table marks it: it may be noise.
        noise = [row.trend for row in rows if row.significant is False and row.trend in ("improved", "regressed")]
        parts = []
        for name in ("improved", "flat", "regressed"):
            parts.append((name, f"{name} {trends.count(name) - noise.count(name)}"))
            if noise.count(name):
                parts.append(("muted", f"{name} (n.s.) {noise.count(name)}"))
        if None in trends:
            parts.append(("muted", f"no Δ {trends.count(None)}"))
        return parts
    passed = document.aggregates.cases_passed
    return [
        ("pos", f"passed {passed}"),
        ("neg", f"failed {len(document.cases) - passed}"),
        ("muted", f"threshold {document.suite.threshold:.2f}"),
    ]


def header(document: SuiteResult, rows: list[CaseRow]) -> Header:
    suite = document.suite
    facts = [
        Fact("Started", _when(document.started_at)),
        Fact("Claude Code", document.claude_version or "unknown"),
        Fact("Model", _model(document)),
        Fact("Judge model", _judge(document)),
        *([Fact("Access", access)] if (access := access_text(document)) else []),
        Fact("Ablation", suite.ablation or MISSING),
        Fact("Suite root", suite.root, code=True),
    ]
    for label, value in (
        ("Case filter", suite.case_filter),
        ("Tag filter", suite.tag_filters or None),
        ("Runs per arm", suite.runs_override or None),
    ):
        if value is not None:
            facts.append(Fact(label, ", ".join(map(str, value)) if isinstance(value, list) else str(value)))
    return Header(
        title=title(document),
        plugins=list(suite.plugins),
        scripted=suite.scripted,
        partial=partial_label(document.partial_reason) if document.partial else None,
        notices=grouped([n for n in document.notices if not n.startswith(INFO_MARK)]),
        notes=[n for n in document.notices if n.startswith(INFO_MARK)],
        facts=facts,
        verdict=_verdict(document, rows),
    )


def cards(document: SuiteResult) -> list[Card]:
    agg, suite, cases = document.aggregates, document.suite, document.cases
    if not cases:
        return [
            Card("Cost", usd(document.cost_usd), "trigger runs"),
            Card("Duration", seconds(document.duration_seconds), f"concurrency {suite.concurrency}"),
        ]
    out = [Card("Score with the plugin", score(agg.overall_score), "mean over cases")]
    if document.two_arm:
        baseline = mean([c.aggregates.score_without for c in cases if c.aggregates.score_without is not None])
        out.append(Card("Mean Δ", signed(agg.mean_delta), "with − without", trend(agg.mean_delta)))
        out.append(Card("Baseline score", score(baseline), "without the plugin"))
    out.append(
        Card("Cases over the threshold", f"{agg.cases_passed} / {agg.cases_total}", f"threshold {suite.threshold:.2f}")
    )
    with_runs = [run for case in cases for run in case.runs("with")]
    out.append(
        Card(
            "Perfect runs", f"{sum(1 for r in with_runs if r.passed)} / {len(with_runs)}", "with-arm runs scoring 1.00"
        )
    )
    judge = sum(run.judge_cost_usd for case in cases for run in case.runs())
    # a run's cost holds its judges' (and mocks'); the trigger runs are the session's too
    spent = f"judges {usd(judge)} of it"
    if document.triggers:
        spent += f", trigger runs {usd(trigger_cost(document))}"
    out.append(Card("Cost", usd(document.cost_usd), spent))
    out.append(Card("Duration", seconds(document.duration_seconds), f"concurrency {suite.concurrency}"))
    return out


def anchor(index: int, name: str) -> str:
    """A unique id safe in an attribute and a URL fragment, whatever the case name holds."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:60]
    return f"case-{index}-{slug}" if slug else f"case-{index}"


def summary(document: SuiteResult, rows: list[CaseRow], linked: bool = True) -> Summary:
    """`linked`: case names link to their sections (the page has them; pytest-html's summary does not)."""
    threshold = document.suite.threshold
    table_rows = [
        SummaryRow(
            row=row,
            anchor=anchor(i, row.name) if linked else None,
            below_threshold=row.score is None or row.score < threshold,
            bar=None if row.delta is None else DeltaBar.of(row.delta),
            notes=cut(row.notes, NOTE_CHARS),
        )
        for i, row in enumerate(rows, 1)
    ]
    two_arm = document.two_arm
    return Summary(
        two_arm=two_arm,
        spread=any(r.stdev_with is not None or r.stdev_without is not None for r in rows),
        interval=two_arm and any(c.aggregates.delta_ci is not None for c in document.cases),
        rows=table_rows,
        reused_legend=reused_legend(document) if two_arm else None,
    )


def load_errors(document: SuiteResult) -> LoadErrors:
    rows = []
    for error in document.load_errors:
        # An entry without problems still shows its folder and message.
        problems = error.problems or [{"file": error.dir, "message": error.message}]
        rows += [
            LoadErrorRow(error.case, str(p.get("file", "")), str(p.get("key") or ""), str(p.get("message", "")))
            for p in problems
        ]
    n = len(document.load_errors)
    return LoadErrors(f"{n} case{'s' if n != 1 else ''} did not load", rows)


# ---- a case and its runs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraderDef:
    name: str
    type: str
    weight: float
    config: str  # YAML-like lines ('' for none)
    rubric: str | None
    agreement: list[str] = field(default_factory=list)  # against a person's labels (plugin-eval calibrate)
    controls: list[str] = field(default_factory=list)  # its judge's answers to the controls (calibrate --controls)


@dataclass(frozen=True)
class GraderVerdict:
    name: str
    mark: str  # pass | fail | na (errored or skipped)
    badges: list[str]
    explanation: str
    votes: list[bool] | None
    judge_model: str | None
    evidence: str | None  # cut to EVIDENCE_CHARS
    evidence_note: str  # how much was cut


@dataclass(frozen=True)
class Mocks:
    summary: str
    warnings: list[str]
    servers: str
    detail: str  # the run's mock record as JSON


@dataclass(frozen=True)
class Run:
    label: str
    passed: bool
    facts: str
    error: str | None
    aborted: str | None
    skipped_paid_graders: bool
    graders: list[GraderVerdict]
    mocks: Mocks | None
    workspace: str | None
    transcript: Trace


@dataclass(frozen=True)
class Arm:
    title: str
    runs: list[Run]


@dataclass(frozen=True)
class PassK:
    """pass@k and pass^k of the with arm's runs, formatted, for the k shown."""

    runs: int  # scored runs they are estimated from
    ks: list[int]
    at: list[str]  # pass@k: at least one of k runs passes
    hat: list[str]  # pass^k: all k runs pass


@dataclass(frozen=True)
class CaseSection:
    anchor: str
    name: str
    dir: str
    facts: list[str]  # after its folder
    tags: list[str]
    description: str | None
    expected_outcome: str | None
    single_arm_reason: str | None
    hints: list[str]
    findings: list[str]  # results/findings.py: what may make the case measure less than it seems
    scores: str
    pass_k: PassK | None  # None: no scored run, or a document without them
    prompt: str
    graders: list[GraderDef]
    arms: list[Arm]


def grader_def(grader: GraderInfo) -> GraderDef:
    return GraderDef(
        grader.name, grader.type or "?", grader.weight, yamlish(grader.config, grader.markdown), grader.markdown or None
    )


def grader_verdict(grader: GraderResult) -> GraderVerdict:
    if grader.errored or grader.skipped:
        mark = "na"
    else:
        mark = "pass" if grader.passed else "fail"
    badges = [
        label
        for flag, label in (
            (grader.with_only, "with-only indicator"),
            (grader.errored, "errored"),
            (grader.skipped, "skipped"),
            (not grader.scored, "not scored"),
        )
        if flag
    ]
    evidence, note = grader.evidence, ""
    if evidence is not None and len(evidence) > EVIDENCE_CHARS:
        note = f" (cut at {EVIDENCE_CHARS:,} of {len(evidence):,} characters)"
    return GraderVerdict(
        name=grader.name,
        mark=mark,
        badges=badges,
        explanation=grader.explanation,
        votes=grader.judge_votes,
        judge_model=grader.judge_model,
        evidence=None if evidence is None else cut(evidence, EVIDENCE_CHARS),
        evidence_note=note,
    )


def mocks(record: dict) -> Mocks:
    calls = record.get("calls") or {}
    text = f"Mock calls: {calls.get('total', 0)} · errors {calls.get('errors', 0)}"
    if calls.get("unmocked"):
        text += " · unmocked: " + ", ".join(map(str, calls["unmocked"]))
    return Mocks(
        summary=text,
        warnings=[str(w) for w in record.get("warnings") or []],
        servers=", ".join(map(str, record.get("servers") or [])) or "none",
        detail=cut(json.dumps(record, indent=2, ensure_ascii=False), EVIDENCE_CHARS),
    )


def run(result: RunResult, label: str, prompt: str) -> Run:
    facts = [
        f"score {score(result.score)}",
        "passed" if result.passed else "not perfect",
        f"{result.turns} turns",
        usd(result.cost_usd),
    ]
    if result.tool_calls is not None:  # what the run spent, when it recorded it
        facts[3:3] = [f"{result.tool_calls} tool calls"]
    if result.tokens is not None:
        facts.insert(-1, f"{efficiency.amount('tokens', result.tokens.total)} tokens")
    if result.judge_cost_usd:
        facts.append(f"judge {usd(result.judge_cost_usd)}")
    facts.append(seconds(result.duration_seconds))
    reused = reused_text(result)
    if reused:
        facts.append(reused)
    if result.refused_tools:
        facts.append(describe(result.refused_tools))
    error = None
    if result.error:
        error = f"{result.error_kind}: {result.error}" if result.error_kind else result.error
    return Run(
        label=label,
        passed=result.passed,
        facts=" · ".join(facts),
        error=error,
        aborted=aborted_text(result.aborted) if result.aborted else None,
        skipped_paid_graders=result.skipped_paid_graders,
        graders=[grader_verdict(g) for g in result.graders],
        mocks=mocks(result.mocks) if result.mocks else None,
        workspace=result.workspace or None,
        transcript=trace(result.trace_path, prompt, (result.conversation or {}).get("messages")),
    )


def _arms(case: CaseResult) -> list[Arm]:
    out = []
    for arm, runs in case.arms.items():
        name = arm_title(arm)
        out.append(
            Arm(
                f"{name} · {len(runs)} run{'s' if len(runs) != 1 else ''}",
                [run(r, f"{arm}-{i}", case.prompt) for i, r in enumerate(runs, 1)],
            )
        )
    return out


def pass_k(case: CaseResult) -> PassK | None:
    at, hat = case.aggregates.pass_at_k, case.aggregates.pass_hat_k
    if not at:
        return None
    ks = sorted(at)
    if len(ks) > PASS_K_COLUMNS:
        ks = [*ks[: PASS_K_COLUMNS - 1], ks[-1]]
    return PassK(runs=max(at), ks=ks, at=[score(at.get(k)) for k in ks], hat=[score((hat or {}).get(k)) for k in ks])


def case_section(
    case: CaseResult, index: int, judge: JudgeChecks | None = None, findings: list[Finding] | None = None
) -> CaseSection:
    """`judge`: what `calibrate` found of each judged grader's judge (report.calibration.judge_checks): its
    agreement with a person's labels and its answers to the controls, by (case, grader), and the findings of the
    controls it passed, shown with the case's own `findings`."""
    judge = judge or JudgeChecks()
    agg = case.aggregates
    facts = [
        f"source: {case.source or MISSING}",
        f"runs per arm: {auto_runs_text(case) or case.runs_per_arm}",
        f"timeout: {case.timeout_seconds} s",
        f"max turns: {case.max_turns}",
    ]
    if case.effective_model or case.model:
        facts.append(f"model: {case.effective_model or case.model}")
    scores = [f"score {score(agg.score)}"]
    if agg.two_arm:
        scores += [f"without {score(agg.score_without)}", f"Δ {signed(agg.delta)}"]
        if agg.delta_ci is not None:
            verdict = "significant" if agg.delta_significant else "not significant"
            scores.append(f"95% CI [{signed(agg.delta_ci[0])}, {signed(agg.delta_ci[1])}] {verdict}")
    return CaseSection(
        anchor=anchor(index, case.name),
        name=case.name,
        dir=case.dir,
        facts=facts,
        tags=list(case.tags),
        description=case.description or None,
        expected_outcome=case.expected_outcome or None,
        single_arm_reason=case.single_arm_reason or None,
        hints=list(case.hints),
        findings=[f.line() for f in of_case([*(findings or []), *judge.findings], case.name)],
        scores=" · ".join(scores),
        pass_k=pass_k(case),
        prompt=case.prompt,
        graders=[
            replace(
                grader_def(g),
                agreement=judge.agreement.get((case.name, g.name), []),
                controls=judge.controls.get((case.name, g.name), []),
            )
            for g in case.graders
        ],
        arms=_arms(case),
    )


# ---- the page ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Top:
    """What a session's summary shows: the page's top, and pytest-html's summary."""

    header: Header
    load_errors: LoadErrors
    cards: list[Card]
    summary: Summary
    has_cases: bool
    efficiency: efficiency.Table | None = None  # what the runs spent, per case and for the suite


@dataclass(frozen=True)
class Page:
    top: Top
    cases: list[CaseSection]
    trend: TrendSection | None = None  # None: no earlier comparable session (or none was looked for)
    triggers: list = field(default_factory=list)  # report.trigger_page.TriggerSection, one per trigger set
    arms: ArmsView | None = None  # the other version's arm and the ablations (None: the session had neither)


def top(document: SuiteResult, linked: bool = True) -> Top:
    rows = [case_row(case) for case in document.cases]
    return Top(
        header=header(document, rows),
        load_errors=load_errors(document),
        cards=cards(document),
        summary=summary(document, rows, linked),
        has_cases=bool(document.cases),
        efficiency=efficiency.table(document, interval=True),
    )


def page(document: SuiteResult, history: Trend | None = None, judge: JudgeChecks | None = None) -> Page:
    """`history`: the trend over earlier comparable sessions (results.history.trend), drawn when it has one;
    `judge`: what `calibrate` found of the judges (report.calibration.judge_checks)."""
    anchors = {case.dir: anchor(i, case.name) for i, case in enumerate(document.cases, 1)}
    return Page(
        top(document),
        [case_section(case, i, judge, document.findings) for i, case in enumerate(document.cases, 1)],
        trend_section(history, anchors),
        trigger_sections(document.triggers),
        None if (arms := arms_view(document)).empty else arms,
    )
