"""What the terminal, the Markdown summary and the HTML page show of the arms beyond with and without, defined
once: per case WITH against the other version (--against: ΔAGAINST, its interval, better or worse, and the cases
that moved), and the components --ablate left out, ranked by what each carried (WITH − ablated)."""

from __future__ import annotations

from dataclasses import dataclass

from ..results.arms import worse_cases
from ..results.model import Marginal, SuiteResult
from .view import MISSING, REUSED_MARK, score, signed

AGAINST_TITLE = "Against the other version (--against)"
ABLATION_TITLE = "What each component carried (--ablate)"


def interval(m: Marginal | None) -> str:
    if m is None or m.delta_ci is None:
        return MISSING
    low, high = m.delta_ci
    return f"[{signed(low)}, {signed(high)}]" + ("" if m.better or m.worse else " n.s.")


def verdict(m: Marginal | None) -> str | None:
    """better | worse (WITH against the other arm, its interval clear of 0) | None."""
    if m is None:
        return None
    return "better" if m.better else "worse" if m.worse else None


@dataclass(frozen=True)
class AgainstRow:
    name: str
    score: str  # WITH
    against: str  # the other version's score
    delta: str  # ΔAGAINST = WITH − AGAINST
    interval: str
    verdict: str | None  # better | worse | None (no detectable change)


@dataclass(frozen=True)
class AblationRow:
    component: str
    delta: str  # WITH − ablated, over every case that ran it
    interval: str
    cases: str  # each case's Δ: `greets +1.00, tidy 0.00`


@dataclass(frozen=True)
class ArmsView:
    against: str | None  # what --against named
    against_rows: list[AgainstRow]
    against_summary: str | None
    movers: list[str]  # compare-style: "worse than the other version: a, b"
    ablation_rows: list[AblationRow]
    against_reused: str | None = None  # the line saying what the ↺ after AGAINST means (--reuse-baseline)

    @property
    def empty(self) -> bool:
        return not self.against_rows and not self.ablation_rows

    @property
    def against_title(self) -> str:
        """The against table's title, naming the version when the document does (an older or merged document with
        against runs may not)."""
        return f"{AGAINST_TITLE}: {self.against}" if self.against else AGAINST_TITLE

    @property
    def against_name(self) -> str:
        return f"--against {self.against}" if self.against else "the other version"


def arms_view(document: SuiteResult) -> ArmsView:
    rows = [
        AgainstRow(
            case.name,
            score(case.aggregates.score),
            score(m.score) + (REUSED_MARK if any(run.reused_from for run in case.runs("against")) else ""),
            signed(m.delta),
            interval(m),
            verdict(m),
        )
        for case in document.cases
        if (m := case.aggregates.delta_against) is not None
    ]
    suite = document.aggregates.delta_against
    summary = None
    if suite is not None:
        worse = sum(1 for r in rows if r.verdict == "worse")
        better = sum(1 for r in rows if r.verdict == "better")
        summary = (
            f"mean ΔAGAINST {signed(suite.delta)} (paired 95% CI {interval(suite)} over {suite.pairs} run pairs) · "
            f"{better} better · {worse} worse · {len(rows) - better - worse} no detectable change"
        )
    movers = [
        f"{word} than the other version: {', '.join(f'{r.name} ({r.delta})' for r in moved)}"
        for word, moved in (
            ("worse", [r for r in rows if r.verdict == "worse"]),
            ("better", [r for r in rows if r.verdict == "better"]),
        )
        if moved
    ]
    ablations = [
        AblationRow(
            m.component or "",
            signed(m.delta),
            interval(m),
            ", ".join(
                f"{case.name} {signed(c.delta)}"
                for case in document.cases
                if (c := case.aggregates.ablations.get(m.component or "")) is not None
            ),
        )
        for m in document.aggregates.ablations
    ]
    return ArmsView(document.suite.against, rows, summary, movers, ablations, against_reused(document))


def against_reused(document: SuiteResult) -> str | None:
    """The line under the against table when some of its runs were stored with-plugin runs of that version."""
    runs = [run for case in document.cases for run in case.runs("against")]
    reused = sum(1 for run in runs if run.reused_from)
    if not reused:
        return None
    return (
        f"{REUSED_MARK} AGAINST from stored runs (--reuse-baseline): {reused} of {len(runs)} run(s) of the other "
        f"version are with-plugin runs an earlier session made on it, graded again"
    )


def terminal_lines(document: SuiteResult) -> list[str]:
    """The terminal's tables of the other arms (none when the session had none)."""
    v = arms_view(document)
    out: list[str] = []
    if v.against_rows:
        width = max([len(r.name) for r in v.against_rows] + [4]) + 2
        out += ["", v.against_title]
        out.append(f"{'CASE':<{width}}{'WITH':<6}{'AGAINST':<9}{'ΔAGAINST':<10}{'ΔAGAINST 95% CI':<21}VERDICT")
        out += [
            f"{r.name:<{width}}{r.score:<6}{r.against:<9}{r.delta:<10}{r.interval:<21}{r.verdict or ''}".rstrip()
            for r in v.against_rows
        ]
        out += [line for line in (v.against_summary, *v.movers, v.against_reused) if line]
        worse = worse_cases(document)
        if document.suite.fail_on_worse and worse:
            out.append(f"✗ {len(worse)} case(s) worse than {v.against_name}: {', '.join(worse)} (--fail-on-worse)")
    if v.ablation_rows:
        width = max([len(r.component) for r in v.ablation_rows] + [9]) + 2
        out += ["", ABLATION_TITLE]
        out.append(f"{'COMPONENT':<{width}}{'Δ':<7}{'Δ 95% CI':<21}CASES")
        out += [f"{r.component:<{width}}{r.delta:<7}{r.interval:<21}{r.cases}" for r in v.ablation_rows]
    return out
