"""The report of `plugin-eval tune`: the terminal summary and the HTML page's view (report/templates/tune.html.j2:
rounds × queries grid, each candidate's text and its diff against the original, train/validation/test with
intervals, the cost)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .result import Scored, TuneResult
from .rules import correctness


def _part(s: Scored | None) -> str:
    if s is None:
        return "—"
    low, high = s.interval
    return f"{s.right}/{s.total} right [{low:.2f}, {high:.2f}] (score {s.score:.2f})"


def _margin(p) -> str:
    if p is None:
        return "—"
    return f"{p.margin:+.2f} [{p.interval[0]:+.2f}, {p.interval[1]:+.2f}]"


def terminal(r: TuneResult) -> str:
    lines = [f"{r.skill} · {r.file} · {r.stop}" if r.stop else f"{r.skill} · {r.file}"]
    lines.append(f"  original     train {_part(r.original.train)} · validation {_part(r.original.validation)}")
    for i, c in enumerate(r.candidates):
        mark = "★" if i == r.winner else " "
        lines.append(
            f"{mark} r{c.round} #{i + 1:<3}     train {_part(c.train)} · validation {_part(c.validation)} · "
            f"Δ validation {_margin(c.vs_original)}"
        )
        lines.append(f"      {c.description[:150]}{'…' if len(c.description) > 150 else ''}")
    for s in r.siblings:
        verdict = f"takes {len(s.stolen)} of its {s.queries} should-fire queries" if s.stolen else "keeps its queries"
        lines.append(f"  sibling {s.skill}: {verdict}")
    if r.original.test is not None:
        test = f"  test (scored once): original {_part(r.original.test)}"
        if r.winner_test is not None:
            test += f" · winner {_part(r.winner_test)} · Δ {_margin(r.test_margin)}"
        lines.append(test)
    lines.append(f"→ {r.explanation}")
    for note in r.notes:
        lines.append(f"  note: {note}")
    cost = r.cost
    ceiling = f" of a ${cost.ceiling_usd:.2f} ceiling" if cost.ceiling_usd is not None else ""
    lines.append(
        f"spent ${cost.spent_usd:.4f}{ceiling} (estimate ${cost.estimate_usd:.2f}): {cost.agent_runs} trigger runs, "
        f"{cost.proposer_calls} proposer call(s) (${cost.proposer_usd:.4f})"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Rate:
    """A grid cell: a query's fire rate in one column, and whether that is the right side of its label."""

    text: str  # "·" when the column has no rate for it
    css: str  # ok, bad or none
    title: str | None


@dataclass(frozen=True)
class GridRow:
    part: str
    label: str
    query: str  # its id
    text: str  # the query itself
    rates: list[Rate]


@dataclass(frozen=True)
class ScoreRow:
    name: str
    train: str
    validation: str
    margin: str
    test: str
    winner: bool


@dataclass(frozen=True)
class Description:
    title: str
    text: str
    diff: list[tuple[str, str]] | None  # against the original, as _diff gives it (None: the original itself)
    rejected: list[str]


@dataclass(frozen=True)
class TunePage:
    """What report/templates/tune.html.j2 shows."""

    result: TuneResult
    columns: list[tuple[str, bool]]  # name, the winner's
    grid: list[GridRow]
    scores: list[ScoreRow]
    test_margin: str
    descriptions: list[Description]
    siblings: list[str]
    cost: str


def _rate(rate: float | None, should_fire: bool) -> Rate:
    if rate is None:
        return Rate("·", "none", None)
    right = correctness(rate, should_fire) > 0.5
    return Rate(f"{rate:.2f}", "ok" if right else "bad", f"fire rate {rate:.2f}")


def _diff(old: str, new: str) -> list[tuple[str, str]]:
    """A word diff as (kind, words): kind "" for words kept, "del" for words removed, "ins" for words added."""
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("", " ".join(a[i1:i2])))
        if op in ("delete", "replace"):
            out.append(("del", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("ins", " ".join(b[j1:j2])))
    return out


def page_view(r: TuneResult) -> TunePage:
    columns: list[tuple[str, int | None, dict[str, float]]] = [
        ("original", None, {**_rates(r.original.train), **_rates(r.original.validation)})
    ]
    columns += [
        (f"r{c.round} #{i + 1}", i, {**_rates(c.train), **_rates(c.validation)}) for i, c in enumerate(r.candidates)
    ]
    grid = []
    for part in ("train", "validation", "test"):
        for q in r.part(part):
            info = r.queries[q]
            rates = [_rate(rates.get(q), info["shouldFire"]) for _, _, rates in columns]
            rates += [_rate(_rates(s).get(q), info["shouldFire"]) for s in (r.original.test, r.winner_test)]
            label = "should fire" if info["shouldFire"] else "should not"
            grid.append(GridRow(part, label, q, info["query"], rates))
    scores = [
        ScoreRow("original", _part(r.original.train), _part(r.original.validation), "—", _part(r.original.test), False)
    ]
    scores += [
        ScoreRow(
            f"r{c.round} #{i + 1}",
            _part(c.train),
            _part(c.validation),
            _margin(c.vs_original),
            _part(r.winner_test) if i == r.winner else "—",
            i == r.winner,
        )
        for i, c in enumerate(r.candidates)
    ]
    descriptions = [Description("original", r.original.description, None, [])]
    descriptions += [
        Description(
            f"r{c.round} #{i + 1}" + (" ★ winner" if i == r.winner else ""),
            c.description,
            _diff(r.original.description, c.description),
            list(c.rejected),
        )
        for i, c in enumerate(r.candidates)
    ]
    cost = r.cost
    ceiling = f", ceiling ${cost.ceiling_usd:.2f}" if cost.ceiling_usd is not None else ""
    return TunePage(
        result=r,
        columns=[(name, i is not None and i == r.winner) for name, i, _ in columns],
        grid=grid,
        scores=scores,
        test_margin=_margin(r.test_margin),
        descriptions=descriptions,
        siblings=[
            f"{s.skill}: {'takes ' + ', '.join(s.stolen) if s.stolen else 'keeps its queries'}" for s in r.siblings
        ],
        cost=f"spent ${cost.spent_usd:.4f} (estimate ${cost.estimate_usd:.2f}{ceiling}): {cost.agent_runs} trigger "
        f"runs, {cost.proposer_calls} proposer call(s)",
    )


def html_page(r: TuneResult) -> str:
    """The page: its view (page_view) through report/templates/tune.html.j2."""
    from ..report.html import render_page

    return render_page("tune.html.j2", page=page_view(r)) + "\n"


def _rates(s: Scored | None) -> dict[str, float]:
    return s.rates if s else {}
