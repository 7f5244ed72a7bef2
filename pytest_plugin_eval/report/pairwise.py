"""What the terminal, the Markdown and the HTML page show of `compare --pairwise` (results.pairwise), defined once
as text; then the terminal's layout of it and the Markdown section. The HTML section (templates/pairwise.html.j2)
lays out the same view."""

from __future__ import annotations

from dataclasses import dataclass

from ..results.comparison import BETTER, NO_CHANGE, WORSE
from ..results.pairwise import LOSS, TIE, WIN, PairwiseComparison, WinTally
from .view import MISSING, score, usd

PREFERENCE_LABELS = {BETTER: "NEW preferred", WORSE: "OLD preferred", NO_CHANGE: "no detectable preference"}
OUTCOME_LABELS = {WIN: "win", LOSS: "loss", TIE: "tie", "no_decision": "no decision"}


@dataclass(frozen=True)
class TallyCells:
    wins: int
    ties: int
    losses: int
    no_decision: int
    win_rate: str
    interval: str
    verdict: str | None
    label: str


def tally_cells(tally: WinTally, level: float) -> TallyCells:
    bounds = tally.interval(level)
    verdict = tally.verdict(level)
    return TallyCells(
        wins=tally.wins,
        ties=tally.ties,
        losses=tally.losses,
        no_decision=tally.no_decision,
        win_rate=score(tally.win_rate),
        interval=MISSING if bounds is None else f"[{score(bounds[0])}, {score(bounds[1])}]",
        verdict=verdict,
        label=PREFERENCE_LABELS.get(verdict or "", "no decided pair"),
    )


@dataclass(frozen=True)
class PairLine:
    label: str  # "pair 1 (OLD run 1 · NEW run 1)"
    outcome: str  # win | loss | tie | no decision
    why: str
    reasons: list[str]  # "old_first → new: …"


@dataclass(frozen=True)
class CaseView:
    name: str
    tally: TallyCells
    note: str | None
    pairs: list[PairLine]


@dataclass(frozen=True)
class View:
    level: str
    judge: str
    overall: TallyCells
    cases: list[CaseView]
    cost: str  # "judge cost $0.0123 (estimated at most $0.0400)"
    stopped: str | None
    notes: list[str]
    rule: str


RULE = (
    "each pair is judged twice, swapped; a win or loss needs both orders to agree, anything else is a tie; "
    "win rate = (wins + ½ ties) / decided pairs"
)


def view(p: PairwiseComparison) -> View:
    cases = []
    for case in p.cases:
        lines = []
        for pair in case.pairs:
            reasons = [f"{a.order} → {a.preferred or 'no verdict'}: {a.reason}" for a in pair.answers]
            lines.append(
                PairLine(
                    f"pair {pair.index} (OLD run {pair.old_run} · NEW run {pair.new_run})",
                    OUTCOME_LABELS[pair.outcome],
                    pair.why,
                    reasons,
                )
            )
        cases.append(CaseView(case.name, tally_cells(case.tally, p.level), case.note, lines))
    cost = f"judge cost {usd(p.cost_usd)} (estimated at most {usd(p.estimate_usd)})"
    if p.max_cost_usd is not None:
        cost += f", ceiling {usd(p.max_cost_usd)}"
    return View(
        level=f"{p.level * 100:g}%",
        judge=p.judge_model,
        overall=tally_cells(p.tally, p.level),
        cases=cases,
        cost=cost,
        stopped=p.stopped,
        notes=list(p.notes),
        rule=RULE,
    )


def _counts(t: TallyCells) -> str:
    text = f"{t.wins} win · {t.ties} tie · {t.losses} loss"
    return text + (f" · {t.no_decision} no decision" if t.no_decision else "")


# ---- the terminal --------------------------------------------------------------------------------------------


def lines(v: View) -> list[str]:
    width = max([len(c.name) for c in v.cases] + [7]) + 2
    out = [f"judge: {v.judge} · {v.rule}", ""]
    out.append(f"{'CASE':<{width}}{'W · T · L (no decision)':<26}{'WIN RATE':<10}{v.level + ' CI':<16}VERDICT")
    rows = [(c.name, c.tally) for c in v.cases] + [("overall", v.overall)]
    for name, t in rows:
        counts = f"{t.wins} · {t.ties} · {t.losses}" + (f" ({t.no_decision})" if t.no_decision else "")
        out.append(f"{name:<{width}}{counts:<26}{t.win_rate:<10}{t.interval:<16}{t.label}")
    for case in v.cases:
        out += ["", f"{case.name}:"]
        if case.note:
            out.append(f"  note: {case.note}")
        for pair in case.pairs:
            out.append(f"  {pair.label}: {pair.outcome} — {pair.why}")
            out += [f"    {r}" for r in pair.reasons]
    out += [f"note: {n}" for n in v.notes]
    if v.stopped:
        out.append(f"⚠ {v.stopped}; the pairs after it were not judged")
    out += [
        "",
        f"pairwise overall: {_counts(v.overall)} · win rate {v.overall.win_rate} {v.overall.interval} — "
        f"{v.overall.label}",
        v.cost,
    ]
    return out


def write_pairwise(terminal, p: PairwiseComparison) -> None:
    terminal.write_sep("-", "pairwise: NEW's output against OLD's, judged blind in both orders")
    for line in lines(view(p)):
        terminal.write_line(line, **({"yellow": True} if line.startswith("⚠") else {}))


# ---- Markdown ------------------------------------------------------------------------------------------------


def markdown(p: PairwiseComparison, level: int = 2) -> str:
    """The section in Markdown (templates/pairwise.md.j2), its heading at `level`."""
    from .md import render_markdown

    v = view(p)
    rows = [(c.name, c.tally) for c in v.cases] + [("**overall**", v.overall)]
    return render_markdown("pairwise.md.j2", v=v, rows=rows, heading="#" * level, counts=_counts)
