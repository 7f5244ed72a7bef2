"""The terminal summary: one line per case (WITH, W/OUT, Δ or SCORE, PASS%), a summary line, and notes."""
from __future__ import annotations

from .case import display_path

PARTIAL_LABELS = {
    "cost_ceiling": "cost ceiling hit", "auth_failed": "credentials rejected", "api_error": "API errors",
    "interrupted": "interrupted", "judge_error": "judge unavailable",
}


def notes_for(case: dict) -> str:
    """Why a case is not perfect: a with-arm run's error or mock abort, then a diagnostic hint, then the first
    failing grader of the with arm (indicators included), else why it ran single-arm."""
    runs = case["arms"].get("with", [])
    for run in runs:
        if run.get("error"):
            return run["error"]
        if run.get("aborted"):
            return aborted_text(run["aborted"])
    if case.get("hints"):
        return case["hints"][0]
    for run in runs:
        for grader in run["graders"]:
            if not grader["passed"]:
                return f"{grader['name']}: {grader['explanation']}"
    if case.get("singleArmReason"):
        return f"single-arm: {case['singleArmReason']}"
    return ""


def _num(value) -> str:
    return "  -  " if value is None else f"{value:.2f}"


def _delta(value) -> str:
    if value is None:
        return "  -  "
    return "0.00" if abs(value) < 0.005 else f"{value:+.2f}"


def is_two_arm(document: dict) -> bool:
    """Whether any case ran both arms (then the tables show WITH, W/OUT and Δ)."""
    return any("delta" in case["aggregates"] for case in document["cases"])


def aborted_text(aborted: dict) -> str:
    return f"aborted by mock {aborted.get('server')}/{aborted.get('tool')}: {aborted.get('reason')}"


def case_cost(case: dict) -> float:
    return sum(run.get("costUsd") or 0.0 for runs in case["arms"].values() for run in runs)


def _interval(agg: dict) -> str:
    """Δ's 95% interval, marked n.s. when it spans 0 (a Δ that could be noise)."""
    ci = agg.get("deltaCI")
    if not ci:
        return "-"
    text = f"[{_delta(ci[0])}, {_delta(ci[1])}]"
    return text + (" n.s." if agg.get("deltaSignificant") is False else "")


def _spread(value) -> str:
    return "-" if value is None else f"±{value:.2f}"


def table(document: dict) -> list[str]:
    """WITH, W/OUT, Δ and Δ's 95% interval per case (or SCORE, its spread and PASS% for one arm)."""
    cases = document["cases"]
    two_arm = is_two_arm(document)
    width = max([len(c["name"]) for c in cases] + [4]) + 2
    if two_arm:
        lines = [f"{'CASE':<{width}}{'WITH':<6}{'W/OUT':<6}{'Δ':<7}{'Δ 95% CI':<21}{'RUNS':<5}{'COST':<8}NOTES"]
    else:
        lines = [f"{'CASE':<{width}}{'SCORE':<6}{'±SD':<6}{'PASS%':<6}{'RUNS':<5}{'COST':<8}NOTES"]
    for case in cases:
        agg = case["aggregates"]
        runs = sum(len(r) for r in case["arms"].values())
        cost = f"${case_cost(case):.2f}"
        if two_arm:
            cells = (f"{_num(agg['score']):<6}{_num(agg.get('scoreWithout')):<6}{_delta(agg.get('delta')):<7}"
                     f"{_interval(agg):<21}")
        else:
            rate = "-" if agg["passRate"] is None else f"{round(agg['passRate'] * 100)}%"
            cells = f"{_num(agg['score']):<6}{_spread(agg.get('stdevWith')):<6}{rate:<6}"
        lines.append(f"{case['name']:<{width}}{cells}{runs:<5}{cost:<8}{notes_for(case)}".rstrip())
    return lines


def summary_line(document: dict) -> str:
    parts = [f"{len(document['cases'])} case(s)"]
    mean_delta = document["aggregates"].get("meanDelta")
    if "meanDelta" in document["aggregates"]:
        parts.append(f"mean Δ {_delta(mean_delta)}")
    parts.append(f"{document['durationSeconds']}s")
    parts.append(f"${document['costUsd']:.2f}")
    if document.get("partial"):
        parts.append(f"⚠ partial ({PARTIAL_LABELS.get(document.get('partialReason'), document.get('partialReason'))})")
    return " · ".join(parts)


def write_summary(terminal, document: dict, results_path, report_path=None) -> None:
    terminal.write_sep("=", "plugin eval")
    for notice in document.get("notices", []):
        terminal.write_line(notice)
    for error in document.get("loadErrors", []):
        terminal.write_line(f"✗ {error['dir']}: {error['message']}", red=True)
    if document["cases"]:
        terminal.write_line("")
        for line in table(document):
            terminal.write_line(line)
        terminal.write_line("")
        terminal.write_line(summary_line(document))
    else:
        terminal.write_line("No eval cases ran.")
    if document.get("loadErrors"):
        n = len(document["loadErrors"])
        terminal.write_line(f"Couldn't load {n} case file{'s' if n != 1 else ''} — see above.", red=True)
    if results_path is not None:
        terminal.write_line(f"Results: {display_path(results_path)}")
    if report_path is not None:
        terminal.write_line(f"Report: {display_path(report_path)}")
