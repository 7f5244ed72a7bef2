"""The self-contained HTML report: one page a plugin author reads after a CI run.

`render_report` turns the results document, plus the traces its runs kept, into a single page: inline CSS, no
script, no external resource, every collapsible part a `<details>` block, so it reads the same offline, in any
browser and on paper. `conversation_html` renders one trace as a conversation on its own (for pytest-html
extras); `write_report` writes the page atomically.
"""
from __future__ import annotations

import html
import json
import re
from datetime import datetime
from pathlib import Path

from ..results.model import CaseResult, SuiteResult
from ..results.store import write_atomic
from ..run.transcript import Transcript
from ..stats import mean
from .view import PARTIAL_LABELS, aborted_text


# Dict readers kept while the page is rendered from the JSON form (to be replaced by the view model).
def is_two_arm(document: dict) -> bool:
    return any("delta" in case["aggregates"] for case in document["cases"])


def case_cost(case: dict) -> float:
    return sum(run.get("costUsd") or 0.0 for runs in case["arms"].values() for run in runs)


def notes_for(case: dict) -> str:
    from .view import notes_for as typed
    return typed(CaseResult.from_json(case))

FLAT = 0.005                # |Δ| up to this counts as flat (it rounds to 0.00)
RESULT_CHARS = 2_000        # one tool result in a transcript
BLOCK_CHARS = 20_000        # any other block of a transcript (assistant text, tool input, the prompt)
TRANSCRIPT_CHARS = 200_000  # one run's transcript in the page; beyond it the middle is left out
EVIDENCE_CHARS = 20_000     # the evidence one judged grader read
NOTE_CHARS = 240            # the NOTES cell of the summary table

ARM_TITLES = {"with": "With the plugin", "without": "Without the plugin"}

CONVERSATION_CSS = """
.conv{font-size:13px;display:flex;flex-direction:column;gap:6px;margin:8px 0}
.conv .msg{border:1px solid #d1d9e0;border-left:4px solid #8c959f;border-radius:4px;padding:4px 8px;background:#fff}
.conv .who{font-size:12px;font-weight:600;color:#59636e;margin-bottom:2px}
.conv pre{margin:0;padding:0;border:0;background:transparent;white-space:pre-wrap;overflow-wrap:anywhere;
 font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.conv .user{border-left-color:#0969da;background:#f3f8ff}
.conv .assistant{border-left-color:#1f2328}
.conv .tool{border-left-color:#8250df;background:#fbf8ff}
.conv .skill{border-left-color:#bf3989;background:#fff5fa}
.conv .result{border-left-color:#8c959f;background:#f6f8fa}
.conv .synthetic,.conv .system,.conv .thinking{border-left-color:#d1d9e0;color:#59636e}
.conv .final{border-left-color:#1a7f37;background:#f0fff4}
.conv .error{border-left-color:#cf222e;background:#fff5f5;color:#82071e}
.conv .sub{margin-left:28px}
.conv .cut{color:#9a6700;font-style:italic;padding:4px 8px}
.conv .badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600}
.conv .badge.skill{background:#bf3989;color:#fff;font-size:13px}
.conv .badge.sub{background:#ddf4ff;color:#0969da}
"""

PAGE_CSS = """
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 color:#1f2328;background:#fff;-webkit-print-color-adjust:exact;print-color-adjust:exact}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px}h3{font-size:15px;margin:18px 0 6px}
a{color:#0969da}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:4px 0;padding:8px;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:4px;overflow-x:auto}
pre.wrap{white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:#59636e}
.pos{color:#1a7f37}.neg{color:#cf222e}.flat{color:#59636e}
.banner{border:1px solid;border-radius:6px;padding:8px 12px;margin:10px 0;font-weight:600}
.banner.scripted{background:#fff8c5;border-color:#d4a72c;color:#4d2d00}
.banner.partial,.banner.error{background:#ffebe9;border-color:#cf222e;color:#82071e}
.banner.notice{background:#ddf4ff;border-color:#54aeff;color:#0a3069;font-weight:400}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
.facts dt{color:#59636e}.facts dd{margin:0}
.verdict{font-size:18px;font-weight:600;margin:12px 0}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid #d1d9e0;border-radius:6px;padding:10px 14px;flex:1 1 130px;max-width:220px}
.card .label{font-size:12px;color:#59636e}.card .value{font-size:22px;font-weight:600}
.card .sub{font-size:12px;color:#59636e}
table{border-collapse:collapse;margin:8px 0}
th,td{border-bottom:1px solid #d1d9e0;padding:5px 10px;text-align:left;vertical-align:top}
th{font-size:12px;text-transform:uppercase;color:#59636e}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.fail{color:#cf222e;font-weight:600}
td.notes{max-width:420px;overflow-wrap:anywhere;color:#59636e}
.delta{display:flex;align-items:center;gap:6px;white-space:nowrap}
.dbar{position:relative;width:120px;height:12px;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:2px}
.dbar::after{content:"";position:absolute;left:50%;top:-2px;bottom:-2px;border-left:1px solid #59636e}
.dbar .fill{position:absolute;top:0;bottom:0}
.dbar.pos .fill{background:#1a7f37}.dbar.neg .fill{background:#cf222e}
.dval{font-weight:600;font-variant-numeric:tabular-nums;min-width:3.5em}
.ns{display:inline-block;font-size:11px;border:1px solid #8c959f;border-radius:8px;padding:0 6px;color:#59636e}
.ns.sig{border-color:#1a7f37;color:#1a7f37}
section.load-errors{border:2px solid #cf222e;border-radius:6px;padding:4px 16px 12px;background:#fff5f5}
section.load-errors h2{color:#82071e;margin-top:12px}
section.case{border-top:2px solid #d1d9e0;margin-top:32px}
.chip{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;background:#eaeef2;margin-right:4px}
.chip.pass{background:#dafbe1;color:#116329}.chip.fail{background:#ffebe9;color:#82071e}
.chip.badge{background:#fff8c5;color:#4d2d00}
ul.defs,ul.graders{list-style:none;padding:0;margin:4px 0}
ul.defs>li{margin:6px 0}
.run{border:1px solid #d1d9e0;border-radius:6px;padding:8px 12px;margin:10px 0}
.run.pass{border-left:4px solid #1a7f37}.run.fail{border-left:4px solid #cf222e}
.run-head{font-weight:600}
ul.graders>li{margin:4px 0}
.mark{display:inline-block;width:1.2em;font-weight:700}
.mark.pass{color:#1a7f37}.mark.fail{color:#cf222e}.mark.na{color:#8c959f}
.explanation{white-space:pre-wrap;overflow-wrap:anywhere}
pre.error{background:#ffebe9;border-color:#cf222e;color:#82071e;white-space:pre-wrap}
.missing{color:#9a6700}
details{margin:4px 0}summary{cursor:pointer;color:#0969da}
@media print{body{padding:0}summary{color:#1f2328}.run,section.case{break-inside:avoid-page}}
"""


# ---- formatting ----------------------------------------------------------------------------------------

def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cut(text: str, limit: int) -> str:
    """The first `limit` characters, with a count of what was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters"


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _trend(delta: float | None) -> str:
    if delta is None or abs(delta) <= FLAT:
        return "flat"
    return "pos" if delta > 0 else "neg"


def _signed(delta: float | None) -> str:
    if delta is None:
        return "–"
    return "0.00" if _trend(delta) == "flat" else f"{delta:+.2f}"


def _usd(value: float | None) -> str:
    value = value or 0.0
    if 0 < value < 0.00005:
        return "<$0.0001"
    return f"${value:.4f}" if 0 < value < 0.01 else f"${value:.2f}"


def _seconds(value: float | None) -> str:
    value = value or 0.0
    if value < 60:
        return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
    minutes, seconds = divmod(round(value), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def _when(iso: str | None) -> str:
    if not iso:
        return "–"
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _anchor(index: int, name: str) -> str:
    """A unique id safe in an attribute and a URL fragment, whatever the case name holds."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:60]
    return f"case-{index}-{slug}" if slug else f"case-{index}"


def _pre(text: str, cls: str = "wrap") -> str:
    return f'<pre class="{cls}">{_e(text)}</pre>'


def _chip(text: str, cls: str = "") -> str:
    return f'<span class="chip {cls}">{_e(text)}</span>'


# ---- the document ----------------------------------------------------------------------------------------

def _runs(case: dict, arm: str) -> list[dict]:
    return case["arms"].get(arm) or []


# ---- header, cards, summary table, load errors ------------------------------------------------------------

def _plugin_names(suite: dict) -> str:
    return ", ".join(p["name"] for p in suite.get("plugins") or []) or "no plugin"


def _plugins(suite: dict) -> str:
    plugins = suite.get("plugins") or []
    if not plugins:
        return "no plugin"
    return ", ".join(f"<b>{_e(p['name'])}</b> {_e(p.get('version') or '')} "
                     f"<code class=\"muted\">{_e(p.get('path', ''))}</code>" for p in plugins)


def _model(document: dict) -> str:
    suite = document["suite"]
    if suite.get("scripted"):
        return "the scripted endpoint (no real model)"
    if suite.get("modelOverride"):
        return suite["modelOverride"]
    models = sorted({c["effectiveModel"] for c in document["cases"] if c.get("effectiveModel")})
    return ", ".join(models) if models else "Claude Code's default"


def _judge(suite: dict) -> str:
    resolved = suite.get("judgeModelResolved") or "–"
    asked = suite.get("judgeModel")
    return f"{resolved} (asked for {asked})" if asked and asked != resolved else resolved


def _facts(document: dict) -> str:
    suite = document["suite"]
    facts = [("Plugin", _plugins(suite)), ("Started", _e(_when(document.get("startedAt")))),
             ("Claude Code", _e(document.get("claudeVersion") or "unknown")), ("Model", _e(_model(document))),
             ("Judge model", _e(_judge(suite))), ("Ablation", _e(suite.get("ablation", "–"))),
             ("Suite root", f"<code>{_e(suite.get('root', ''))}</code>")]
    for key, label in (("caseFilter", "Case filter"), ("tagFilters", "Tag filter"), ("runsOverride", "Runs per arm")):
        if suite.get(key) is not None:
            value = suite[key]
            facts.append((label, _e(", ".join(map(str, value)) if isinstance(value, list) else value)))
    rows = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in facts)
    return f'<dl class="facts">{rows}</dl>'


def _verdict(document: dict) -> str:
    cases = document["cases"]
    if is_two_arm(document):
        deltas = [c["aggregates"].get("delta") for c in cases]
        trends = [None if delta is None else _trend(delta) for delta in deltas]
        parts = [f'<span class="pos">improved {trends.count("pos")}</span>',
                 f'<span class="flat">flat {trends.count("flat")}</span>',
                 f'<span class="neg">regressed {trends.count("neg")}</span>']
        if None in trends:
            parts.append(f'<span class="muted">no Δ {trends.count(None)}</span>')
    else:
        passed = document["aggregates"]["casesPassed"]
        threshold = document["suite"].get("threshold", 1.0)
        parts = [f'<span class="pos">passed {passed}</span>',
                 f'<span class="neg">failed {len(cases) - passed}</span>',
                 f'<span class="muted">threshold {threshold:.2f}</span>']
    return f'<p class="verdict">{" · ".join(parts)}</p>'


def _banners(document: dict) -> str:
    out = []
    if document["suite"].get("scripted"):
        out.append('<div class="banner scripted">Scripted run: every answer came from the cases\' scripted.yaml '
                   'through the scripted endpoint, not from a real model. '
                   'Scores test the harness, not the plugin.</div>')
    if document.get("partial"):
        reason = document.get("partialReason")
        label = PARTIAL_LABELS.get(reason, reason) or "unknown reason"
        out.append(f'<div class="banner partial">⚠ Partial results: {_e(label)}. Some runs did not finish or '
                   f'were not graded, so the scores below are incomplete.</div>')
    out += [f'<div class="banner notice">{_e(text)}</div>' for text in document.get("notices") or []]
    return "".join(out)


def _header(document: dict) -> str:
    return (f"<header><h1>Plugin eval: {_e(_plugin_names(document['suite']))}</h1>"
            f"{_banners(document)}{_facts(document)}{_verdict(document)}</header>")


def _card(label: str, value: str, sub: str = "", cls: str = "") -> str:
    return (f'<div class="card"><div class="label">{_e(label)}</div><div class="value {cls}">{_e(value)}</div>'
            f'<div class="sub">{_e(sub)}</div></div>')


def _cards(document: dict) -> str:
    agg, suite, cases = document["aggregates"], document["suite"], document["cases"]
    cards = [_card("Score with the plugin", _score(agg.get("overallScore")), "mean over cases")]
    if is_two_arm(document):
        mean_delta = agg.get("meanDelta")
        baseline = mean([c["aggregates"]["scoreWithout"] for c in cases
                          if c["aggregates"].get("scoreWithout") is not None])
        cards.append(_card("Mean Δ", _signed(mean_delta), "with − without", _trend(mean_delta)))
        cards.append(_card("Baseline score", _score(baseline), "without the plugin"))
    threshold = suite.get("threshold", 1.0)
    cards.append(_card("Cases over the threshold", f"{agg['casesPassed']} / {agg['casesTotal']}",
                       f"threshold {threshold:.2f}"))
    with_runs = [run for case in cases for run in _runs(case, "with")]
    cards.append(_card("Perfect runs", f"{sum(1 for r in with_runs if r.get('passed'))} / {len(with_runs)}",
                       "with-arm runs scoring 1.00"))
    judge = sum(run.get("judgeCostUsd") or 0.0 for case in cases for runs in case["arms"].values() for run in runs)
    cards.append(_card("Cost", _usd(document.get("costUsd")), f"agent; judge {_usd(judge)} more"))
    cards.append(_card("Duration", _seconds(document.get("durationSeconds")),
                       f"concurrency {suite.get('concurrency', 1)}"))
    return f'<div class="cards">{"".join(cards)}</div>'


def _delta_cell(delta: float | None) -> str:
    """A bar centred at zero (full width: ±1) and the signed number."""
    if delta is None:
        return '<span class="muted">–</span>'
    trend = _trend(delta)
    width = min(abs(delta), 1.0) * 50
    left = 50 if delta >= 0 else 50 - width
    bar = (f'<span class="dbar {trend}" aria-hidden="true">'
           f'<span class="fill" style="left:{left:.1f}%;width:{width:.1f}%"></span></span>')
    return f'<span class="delta">{bar}<span class="dval {trend}">{_signed(delta)}</span></span>'


def _spread_cell(agg: dict, two_arm: bool) -> str:
    def sd(key: str) -> str:
        return "–" if agg.get(key) is None else f"±{agg[key]:.2f}"
    return _e(f"{sd('stdevWith')} / {sd('stdevWithout')}" if two_arm else sd("stdevWith"))


def _ci_cell(agg: dict) -> str:
    ci = agg.get("deltaCI")
    if not ci:
        return "–"
    text = _e(f"[{ci[0]:+.2f}, {ci[1]:+.2f}]")
    significant = agg.get("deltaSignificant")
    if significant is False:
        return f'{text} <span class="ns">not significant</span>'
    return f'{text} <span class="ns sig">significant</span>' if significant else text


def _summary_table(document: dict, anchors: list[str]) -> str:
    cases, two_arm = document["cases"], is_two_arm(document)
    threshold = document["suite"].get("threshold", 1.0)
    spread = any(c["aggregates"].get("stdevWith") is not None or c["aggregates"].get("stdevWithout") is not None
                 for c in cases)
    ci = two_arm and any("deltaCI" in c["aggregates"] for c in cases)
    head = ["Case", "With", "W/out", "Δ"] if two_arm else ["Case", "Score", "Pass %"]
    head += (["Spread"] if spread else []) + (["Δ CI"] if ci else []) + ["Runs", "Cost", "Notes"]
    rows = []
    for case, anchor in zip(cases, anchors):
        agg = case["aggregates"]
        below = agg.get("score") is None or agg["score"] < threshold
        cells = [f'<td><a href="#{anchor}">{_e(case["name"])}</a></td>',
                 f'<td class="num{" fail" if below else ""}">{_score(agg.get("score"))}</td>']
        if two_arm:
            cells += [f'<td class="num">{_score(agg.get("scoreWithout"))}</td>',
                      f"<td>{_delta_cell(agg.get('delta'))}</td>"]
        else:
            rate = "–" if agg.get("passRate") is None else f"{round(agg['passRate'] * 100)}%"
            cells.append(f'<td class="num">{rate}</td>')
        if spread:
            cells.append(f'<td class="num">{_spread_cell(agg, two_arm)}</td>')
        if ci:
            cells.append(f'<td class="num">{_ci_cell(agg)}</td>')
        runs = sum(len(r) for r in case["arms"].values())
        cells += [f'<td class="num">{runs}</td>', f'<td class="num">{_usd(case_cost(case))}</td>',
                  f'<td class="notes">{_e(_cut(notes_for(case), NOTE_CHARS))}</td>']
        rows.append(f"<tr>{''.join(cells)}</tr>")
    header = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f'<table id="summary"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _load_errors(errors: list[dict]) -> str:
    if not errors:
        return ""
    rows = []
    for error in errors:
        # An entry without problems still shows its folder and message.
        problems = error.get("problems") or [{"file": error.get("dir", ""), "message": error.get("message", "")}]
        for problem in problems:
            cells = [_e(error.get("case", "")), f"<code>{_e(problem.get('file', ''))}</code>",
                     f"<code>{_e(problem.get('key') or '')}</code>", _e(problem.get("message", ""))]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    n = len(errors)
    return (f'<section class="load-errors" id="load-errors"><h2>✗ {n} case{"s" if n != 1 else ""} did not load</h2>'
            f'<p>These cases were not run: fix their files.</p><table id="load-error-list"><thead><tr>'
            f"<th>Case</th><th>File</th><th>Key</th><th>Message</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>")


# ---- one case ------------------------------------------------------------------------------------------

def _yamlish(mapping: dict, skip: str | None = None) -> str:
    """A mapping as YAML-like lines, multi-line strings as indented blocks. `skip`: a value shown elsewhere."""
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


def _grader_defs(graders: list[dict]) -> str:
    items = []
    for grader in graders:
        rubric = grader.get("graderMarkdown")
        config = _yamlish(grader.get("config") or {}, rubric)
        body = _pre(config, "wrap config") if config else ""
        if rubric:
            body += f'<div class="muted">rubric</div>{_pre(rubric)}'
        items.append(f"<li><b>{_e(grader['name'])}</b> {_chip(grader.get('type', '?'))}"
                     f"<span class=\"muted\">weight {_e(grader.get('weight', 1))}</span>{body}</li>")
    return f'<ul class="defs">{"".join(items)}</ul>'


def _case_meta(case: dict) -> str:
    facts = [f"<code>{_e(case.get('dir', ''))}</code>", f"source: {_e(case.get('source', '–'))}",
             f"runs per arm: {_e(case.get('runsPerArm', case.get('runsPerCase', '–')))}",
             f"timeout: {_e(case.get('timeoutSeconds', '–'))} s", f"max turns: {_e(case.get('maxTurns', '–'))}"]
    if case.get("effectiveModel") or case.get("model"):
        facts.append(f"model: {_e(case.get('effectiveModel') or case.get('model'))}")
    out = f'<p class="muted">{" · ".join(facts)}</p>'
    if case.get("tags"):
        out += "<p>" + "".join(_chip(tag) for tag in case["tags"]) + "</p>"
    if case.get("description"):
        out += f"<p>{_e(case['description'])}</p>"
    if case.get("expectedOutcome"):
        out += f"<p><b>Expected outcome:</b> {_e(case['expectedOutcome'])}</p>"
    if case.get("singleArmReason"):
        out += f'<p class="missing">Only the with-plugin arm ran: {_e(case["singleArmReason"])}.</p>'
    for hint in case.get("hints", []):
        out += f'<p class="missing">💡 {_e(hint)}</p>'
    agg = case["aggregates"]
    scores = [f"score {_score(agg.get('score'))}"]
    if "delta" in agg:
        scores += [f"without {_score(agg.get('scoreWithout'))}", f"Δ {_signed(agg.get('delta'))}"]
    return out + f"<p><b>{_e(' · '.join(scores))}</b></p>"


def _case_section(case: dict, anchor: str) -> str:
    parts = [f'<section class="case" id="{anchor}"><h2>{_e(case["name"])}</h2>', _case_meta(case),
             "<h3>Prompt</h3>", _pre(case.get("promptMarkdown", "")),
             "<h3>Graders</h3>", _grader_defs(case.get("graders", []))]
    for arm, title in ARM_TITLES.items():
        if arm not in case["arms"]:
            continue
        runs = case["arms"][arm]
        parts.append(f"<h3>{title} · {len(runs)} run{'s' if len(runs) != 1 else ''}</h3>")
        if not runs:
            parts.append('<p class="muted">No runs.</p>')
        parts += [_run(run, f"{arm}-{i}", case.get("promptMarkdown", "")) for i, run in enumerate(runs, 1)]
    return "".join(parts) + "</section>"


# ---- one run ------------------------------------------------------------------------------------------

def _run(run: dict, label: str, prompt: str) -> str:
    status = "pass" if run.get("passed") else "fail"
    facts = [f"score {_score(run.get('score'))}", "passed" if run.get("passed") else "not perfect",
             f"{run.get('turns', 0)} turns", _usd(run.get("costUsd"))]
    if run.get("judgeCostUsd"):
        facts.append(f"judge {_usd(run['judgeCostUsd'])}")
    facts.append(_seconds(run.get("durationSeconds")))
    parts = [f'<div class="run {status}"><div class="run-head"><span class="mark {status}">'
             f'{"✓" if status == "pass" else "✗"}</span>{_e(label)} · {_e(" · ".join(facts))}</div>']
    if run.get("error"):
        kind = f"{run['errorKind']}: " if run.get("errorKind") else ""
        parts.append(_pre(kind + run["error"], "error"))
    if run.get("aborted"):
        parts.append(_pre(aborted_text(run["aborted"]), "error"))
    if run.get("skippedPaidGraders"):
        parts.append('<p class="missing">Paid graders were skipped (cost ceiling).</p>')
    parts.append(f'<ul class="graders">{"".join(_grader_result(g) for g in run.get("graders", []))}</ul>')
    if run.get("mocks"):
        parts.append(_mocks(run["mocks"]))
    if run.get("workspace"):
        parts.append(f'<p class="muted">Workspace kept at <code>{_e(run["workspace"])}</code></p>')
    parts.append(_transcript(run.get("tracePath"), prompt))
    return "".join(parts) + "</div>"


def _grader_result(grader: dict) -> str:
    if grader.get("errored") or grader.get("skipped"):
        mark = '<span class="mark na">–</span>'
    elif grader.get("passed"):
        mark = '<span class="mark pass">✓</span>'
    else:
        mark = '<span class="mark fail">✗</span>'
    badges = [label for key, label in (("withOnly", "with-only indicator"), ("errored", "errored"),
                                       ("skipped", "skipped")) if grader.get(key)]
    if not grader.get("scored", True):
        badges.append("not scored")
    out = (f"<li>{mark}<b>{_e(grader['name'])}</b> {''.join(_chip(b, 'badge') for b in badges)}"
           f"<span class=\"explanation\"> {_e(grader.get('explanation', ''))}</span>")
    if grader.get("judgeVotes") is not None:
        votes = "".join(_chip("PASS", "pass") if vote else _chip("FAIL", "fail") for vote in grader["judgeVotes"])
        judge = f' <span class="muted">by {_e(grader["judgeModel"])}</span>' if grader.get("judgeModel") else ""
        out += f'<div class="votes">votes: {votes}{judge}</div>'
    if grader.get("evidence") is not None:
        evidence = grader["evidence"]
        note = f" (cut at {EVIDENCE_CHARS:,} of {len(evidence):,} characters)" if len(evidence) > EVIDENCE_CHARS else ""
        out += (f"<details class=\"evidence\"><summary>Evidence the judge read{note}</summary>"
                f"{_pre(_cut(evidence, EVIDENCE_CHARS))}</details>")
    return out + "</li>"


def _mocks(mocks: dict) -> str:
    calls = mocks.get("calls") or {}
    summary = f"Mock calls: {calls.get('total', 0)} · errors {calls.get('errors', 0)}"
    if calls.get("unmocked"):
        summary += " · unmocked: " + ", ".join(map(str, calls["unmocked"]))
    warnings = "".join(f'<p class="missing">⚠ {_e(w)}</p>' for w in mocks.get("warnings") or [])
    servers = ", ".join(map(str, mocks.get("servers") or [])) or "none"
    detail = _pre(_cut(json.dumps(mocks, indent=2, ensure_ascii=False), EVIDENCE_CHARS))
    return (f"{warnings}<details class=\"mocks\"><summary>{_e(summary)}</summary>"
            f"<p>servers: {_e(servers)}</p>{detail}</details>")


def _transcript(trace_path: str | None, prompt: str) -> str:
    if not trace_path:
        return '<p class="missing">No trace was kept for this run.</p>'
    try:
        text = Path(trace_path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f'<p class="missing">Trace unavailable ({_e(e.strerror or e)}): <code>{_e(trace_path)}</code></p>'
    return (f'<details class="transcript"><summary>Transcript · <code>{_e(trace_path)}</code></summary>'
            f"{_conversation(text, prompt)}</details>")


# ---- the conversation ------------------------------------------------------------------------------------

def conversation_html(trace_text: str, prompt: str) -> str:
    """One run's trace as a readable conversation, with its own styles (usable outside the report page)."""
    return f"<style>{CONVERSATION_CSS}</style>{_conversation(trace_text, prompt)}"


def _conversation(trace_text: str, prompt: str) -> str:
    entries = [_msg("user", "User prompt", _pre(_cut(prompt, BLOCK_CHARS), ""))]
    entries += _entries(Transcript(trace_text).events)
    return f'<div class="conv">{"".join(_fit(entries, TRANSCRIPT_CHARS))}</div>'


def _fit(entries: list[str], budget: int) -> list[str]:
    """All entries when they fit in `budget` characters; else the head and tail that do, with a note between."""
    if sum(map(len, entries)) <= budget:
        return entries
    head = _within(entries, budget // 2)
    tail = _within(entries[len(head):][::-1], budget // 2)[::-1]
    omitted = entries[len(head):len(entries) - len(tail)]
    note = (f'<div class="cut">… {len(omitted)} entries ({sum(map(len, omitted)):,} characters) left out of the '
            f"middle to keep this page small; the full trace is in trace.jsonl.</div>")
    return head + [note] + tail


def _within(entries: list[str], budget: int) -> list[str]:
    """The leading entries whose sizes add up to at most `budget`."""
    size = 0
    for count, entry in enumerate(entries):
        size += len(entry)
        if size > budget:
            return entries[:count]
    return entries


def _msg(cls: str, who: str, body: str, event: dict | None = None) -> str:
    """One entry; `who` is HTML. Subagent entries are indented and labelled."""
    if event and event.get("parent_tool_use_id"):
        cls += " sub"
        who = f'<span class="badge sub">subagent</span> {who}'
    return f'<div class="msg {cls}"><div class="who">{who}</div>{body}</div>'


def _blocks(event: dict) -> list[dict]:
    content = (event.get("message") or {}).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def _entries(events: list[dict]) -> list[str]:
    tool_names: dict[str, str] = {}  # tool_use id → name, to label each result with its call
    out: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "system":
            out.append(_system(event))
        elif kind == "assistant":
            out += [_assistant(event, block, tool_names) for block in _blocks(event)]
        elif kind == "user":
            out += [_user(event, block, tool_names) for block in _blocks(event)]
        elif kind == "result":
            out.append(_final(event))
    return out


def _system(event: dict) -> str:
    if event.get("subtype") != "init":
        return _msg("system", f"system: {_e(event.get('subtype', '?'))}", "")
    plugins = ", ".join(str(p.get("name")) for p in event.get("plugins") or [] if isinstance(p, dict)) or "none"
    facts = (f"Claude Code {event.get('claude_code_version', '?')} · model {event.get('model', '?')} · "
             f"plugins: {plugins}")
    return _msg("system", "Session start", _pre(facts, ""))


def _assistant(event: dict, block: dict, tool_names: dict[str, str]) -> str:
    kind = block.get("type")
    error = f" · error: {_e(event['error'])}" if event.get("error") else ""
    cls = " error" if error else ""
    if kind == "text":
        text = _cut(str(block.get("text", "")), BLOCK_CHARS)
        return _msg("assistant" + cls, "Assistant" + error, _pre(text, ""), event)
    if kind == "tool_use":
        name = str(block.get("name", "?"))
        tool_names[str(block.get("id"))] = name
        given = block.get("input")
        # Key per line, multi-line strings (a Write's content, a Bash script) as they would read in a file.
        data = _cut(_yamlish(given) if isinstance(given, dict) else json.dumps(given, ensure_ascii=False), BLOCK_CHARS)
        if name == "Skill":
            skill = given.get("skill", "?") if isinstance(given, dict) else "?"
            return _msg("tool skill", f'<span class="badge skill">skill: {_e(skill)}</span>', _pre(data, ""), event)
        return _msg("tool", f"Tool call <code>{_e(name)}</code>", _pre(data, ""), event)
    if kind == "thinking":
        text = str(block.get("thinking", ""))
        body = f"<details><summary>{len(text):,} characters</summary>{_pre(_cut(text, BLOCK_CHARS), '')}</details>"
        return _msg("thinking", "Thinking", body, event)
    return _msg("system", f"assistant block: {_e(kind)}", "", event)


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) and b.get("type") == "text"
                         else f"[{b.get('type', '?') if isinstance(b, dict) else 'value'}]" for b in content)
    return json.dumps(content, ensure_ascii=False)


def _user(event: dict, block: dict, tool_names: dict[str, str]) -> str:
    kind = block.get("type")
    if kind == "tool_result":
        name = _e(tool_names.get(str(block.get("tool_use_id")), "tool"))
        text = _pre(_cut(_result_text(block.get("content")), RESULT_CHARS), "")
        if block.get("is_error"):
            return _msg("result error", f"Error from <code>{name}</code>", text, event)
        return _msg("result", f"Result of <code>{name}</code>", text, event)
    text = str(block.get("text", "")) if kind == "text" else f"[{kind}]"
    if event.get("isSynthetic"):
        # Text Claude Code adds as the user (a loaded skill's instructions): long, and not what the user said.
        body = (f"<details><summary>{_e(text.split(chr(10), 1)[0][:120])}</summary>"
                f"{_pre(_cut(text, BLOCK_CHARS), '')}</details>")
        return _msg("synthetic", "Added by Claude Code", body, event)
    return _msg("user", "User", _pre(_cut(text, BLOCK_CHARS), ""), event)


def _final(event: dict) -> str:
    subtype = str(event.get("subtype", "?"))
    facts = [subtype, f"{event.get('num_turns', '?')} turns", _usd(event.get("total_cost_usd"))]
    if event.get("stop_reason"):
        facts.append(f"stop reason: {event['stop_reason']}")
    body = _pre(" · ".join(facts), "")
    errors = event.get("errors")
    if errors:
        body += _pre("\n".join(map(str, errors if isinstance(errors, list) else [errors])), "")
    failed = subtype != "success" or event.get("is_error")
    return _msg("final error" if failed else "final", "Result", body)


# ---- the page ------------------------------------------------------------------------------------------

def render_report(result: SuiteResult) -> str:
    """The whole page for one results document, reading each run's kept trace from its tracePath."""
    document = result.to_json()
    cases = document["cases"]
    anchors = [_anchor(i, case["name"]) for i, case in enumerate(cases, 1)]
    body = [_header(document), _load_errors(document.get("loadErrors") or [])]
    if cases:
        body += [_cards(document), "<h2>Cases</h2>", _summary_table(document, anchors)]
        body += [_case_section(case, anchor) for case, anchor in zip(cases, anchors)]
    else:
        body.append("<p><b>No eval cases ran.</b></p>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Plugin eval: {_e(_plugin_names(document['suite']))}</title>"
            f"<style>{PAGE_CSS}{CONVERSATION_CSS}</style></head>"
            f"<body>{''.join(body)}</body></html>\n")


def _framed(body: str, height: int) -> str:
    """A mini page in an iframe: our styles stay inside it when it is embedded in another report."""
    page = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{PAGE_CSS}{CONVERSATION_CSS}</style></head>'
            f"<body>{body}</body></html>")
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" title="plugin eval" '
            f'style="width:100%;height:{height}px;border:1px solid #d1d9e0;border-radius:6px"></iframe>')


def summary_html(result: SuiteResult) -> str:
    """The verdict, the cards and the per-case table, for the summary of a pytest-html report."""
    document = result.to_json()
    anchors = [_anchor(i, case["name"]) for i, case in enumerate(document["cases"], 1)]
    body = [_header(document), _load_errors(document.get("loadErrors") or [])]
    if document["cases"]:
        body += [_cards(document), _summary_table(document, anchors)]
    return _framed("".join(body), 660 + 34 * len(document["cases"]))


def run_html(run, prompt: str) -> str:
    """One run — graders, judge votes, transcript — for its row of a pytest-html report."""
    return _framed(_run(run.to_json(), "run", prompt), 640)


def write_report(document: SuiteResult, path: Path) -> None:
    """Render, then write atomically (never half a page; an old report stays whole if rendering fails)."""
    write_atomic(Path(path), render_report(document))
