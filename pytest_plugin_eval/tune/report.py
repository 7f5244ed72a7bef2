"""The report of `plugin-eval tune`: the terminal summary and the HTML page (rounds × queries grid, each
candidate's text and its diff against the original, train/validation/test with intervals, the cost)."""

from __future__ import annotations

import difflib
from html import escape

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
    lines.append(f"  original     train {_part(r.original_train)} · validation {_part(r.original_validation)}")
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
    if r.original_test is not None:
        test = f"  test (scored once): original {_part(r.original_test)}"
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


CSS = """
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
.ok{background:#d9f2d9}.bad{background:#f7d4d4}.none{background:#eee}.part{font-size:12px;color:#555}
pre{white-space:pre-wrap;background:#f6f6f6;padding:6px}ins{background:#cfc;text-decoration:none}
del{background:#fcc}.winner{font-weight:bold}
"""


def _cell(rate: float | None, should_fire: bool) -> str:
    if rate is None:
        return '<td class="none">·</td>'
    right = correctness(rate, should_fire) > 0.5
    return f'<td class="{"ok" if right else "bad"}" title="fire rate {rate:.2f}">{rate:.2f}</td>'


def _diff(old: str, new: str) -> str:
    """A word diff: removed words struck, added words marked."""
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape(" ".join(a[i1:i2])))
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(' '.join(a[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(' '.join(b[j1:j2]))}</ins>")
    return " ".join(out)


def html_page(r: TuneResult) -> str:
    e = escape
    columns: list[tuple[str, int | None, dict[str, float]]] = [
        ("original", None, {**_rates(r.original_train), **_rates(r.original_validation)})
    ]
    columns += [
        (f"r{c.round} #{i + 1}", i, {**_rates(c.train), **_rates(c.validation)}) for i, c in enumerate(r.candidates)
    ]
    head = "".join(
        f'<th class="{"winner" if i is not None and i == r.winner else ""}">{e(name)}</th>' for name, i, _ in columns
    )
    head += "<th>test: original</th><th>test: winner</th>"
    rows = []
    for part in ("train", "validation", "test"):
        for q in r.part(part):
            info = r.queries[q]
            cells = "".join(_cell(rates.get(q), info["shouldFire"]) for _, _, rates in columns)
            cells += _cell(_rates(r.original_test).get(q), info["shouldFire"])
            cells += _cell(_rates(r.winner_test).get(q), info["shouldFire"])
            label = "should fire" if info["shouldFire"] else "should not"
            rows.append(
                f'<tr><td class="part">{part}</td><td>{label}</td><td title="{e(info["query"])}">{e(q)}</td>'
                f"{cells}</tr>"
            )
    scores = [
        f"<tr><td>original</td><td>{e(_part(r.original_train))}</td><td>{e(_part(r.original_validation))}</td>"
        f"<td>—</td><td>{e(_part(r.original_test))}</td></tr>"
    ]
    for i, c in enumerate(r.candidates):
        test = _part(r.winner_test) if i == r.winner else "—"
        scores.append(
            f'<tr class="{"winner" if i == r.winner else ""}"><td>r{c.round} #{i + 1}</td><td>{e(_part(c.train))}'
            f"</td><td>{e(_part(c.validation))}</td><td>{e(_margin(c.vs_original))}</td><td>{e(test)}</td></tr>"
        )
    texts = [f"<h3>original</h3><pre>{e(r.original)}</pre>"]
    for i, c in enumerate(r.candidates):
        star = " ★ winner" if i == r.winner else ""
        rejected = "".join(f"<li>rejected reply: {e(x)}</li>" for x in c.rejected)
        texts.append(
            f"<h3>r{c.round} #{i + 1}{star}</h3><pre>{e(c.description)}</pre><p>diff: {_diff(r.original, c.description)}"
            f"</p><ul>{rejected}</ul>"
        )
    siblings = "".join(
        f"<li>{e(s.skill)}: {'takes ' + e(', '.join(s.stolen)) if s.stolen else 'keeps its queries'}</li>"
        for s in r.siblings
    )
    cost = r.cost
    notes = "".join(f"<li>{e(n)}</li>" for n in r.notes)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>tune {e(r.skill)}</title>
<style>{CSS}</style></head><body><div class="plugin-eval-tune">
<h1>tune {e(r.skill)}</h1><p>{e(r.file)} · seed {r.seed} · {e(r.stop)}</p>
<p><b>{e(r.explanation)}</b></p>
<h2>Scores</h2><table><tr><th></th><th>train</th><th>validation</th><th>Δ validation (paired, 95%)</th>
<th>test (once)</th></tr>{"".join(scores)}</table>
<p>Δ test (winner − original): {e(_margin(r.test_margin))}</p>
<h2>Rounds × queries (fire rates; green: right side of its label)</h2>
<table><tr><th>part</th><th>label</th><th>query</th>{head}</tr>{"".join(rows)}</table>
<h2>Descriptions</h2>{"".join(texts)}
<h2>Siblings</h2><ul>{siblings or "<li>no sibling trigger set was run</li>"}</ul>
<h2>Cost</h2><p>spent ${cost.spent_usd:.4f} (estimate ${cost.estimate_usd:.2f}{
        f", ceiling ${cost.ceiling_usd:.2f}" if cost.ceiling_usd is not None else ""
    }): {cost.agent_runs} trigger runs, {cost.proposer_calls} proposer call(s)</p>
<ul>{notes}</ul></div></body></html>
"""


def _rates(s: Scored | None) -> dict[str, float]:
    return s.rates if s else {}
