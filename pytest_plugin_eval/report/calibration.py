"""`plugin-eval calibrate` as text: per judged grader its agreement with the labels, and the pass rates before and
after correcting for the judge's errors; then the judge's answers to the controls, when they were asked."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..results.calibration import ArmRates, Calibration, ControlAnswer, GraderCalibration, Rate
from ..results.findings import Finding
from .view import percent, signed


def interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]"


def rate_text(rate: Rate | None, sign: bool = False) -> str:
    if rate is None:
        return "–"
    value = signed(rate.value) if sign else f"{rate.value:.2f}"
    return f"{value} [{rate.low:+.2f}, {rate.high:+.2f}]" if sign else f"{value} [{rate.low:.2f}, {rate.high:.2f}]"


def arm_text(arm: ArmRates | None) -> str:
    if arm is None:
        return "–"
    return f"{arm.raw:.2f} ({arm.passed}/{arm.judged}) → {rate_text(arm.corrected)}"


def agreement_line(grader: GraderCalibration) -> str:
    """One line of a grader's agreement with its labels (also what the report and compare show)."""
    if not grader.n:
        return "no labels"
    tpr = f"{grader.tpr:.2f}{interval(grader.tpr_ci)}" if grader.tpr is not None else "– (no PASS labels)"
    tnr = f"{grader.tnr:.2f}{interval(grader.tnr_ci)}" if grader.tnr is not None else "– (no FAIL labels)"
    kappa = f"{grader.kappa:.2f}" if grader.kappa is not None else "–"
    return f"{grader.n} labels, agrees {percent(grader.agreement)} · TPR {tpr} · TNR {tnr} · κ {kappa}"


def labelled_lines(labelled: dict[str, Calibration]) -> list[str]:
    """What `compare` prints of a session whose verdicts a person labelled: per side (OLD, NEW), each labelled
    grader's agreement."""
    return [
        f"judge vs your labels ({side}) {grader.case} · {grader.grader}: {agreement_line(grader)}"
        for side, result in labelled.items()
        for grader in result.graders
        if grader.n
    ]


@dataclass(frozen=True)
class JudgeChecks:
    """What `calibrate` found of the judges, as the report shows it with each grader and case: its agreement with
    the labels, its answers to the controls, and the findings of the controls it passed."""

    agreement: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    controls: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


def judge_checks(result: Calibration) -> JudgeChecks:
    return JudgeChecks(agreement_by_grader(result), controls_by_grader(result.controls or []), list(result.findings))


def control_mark(control: ControlAnswer) -> str:
    """✗ PASSED (the judge passed what it must fail), ✓ failed, or ? (not asked)."""
    return "✗ PASSED" if control.passed else "✓ failed" if control.passed is False else "? "


def control_detail(control: ControlAnswer) -> str:
    return control.control + (f" — {control.error}" if control.error else "")


def controls_by_grader(controls: list[ControlAnswer]) -> dict[tuple[str, str], list[str]]:
    """Each judged grader's controls, a line each (what the report shows with the grader)."""
    out: dict[tuple[str, str], list[str]] = {}
    for control in controls:
        out.setdefault((control.case, control.grader), []).append(f"{control_mark(control)}  {control_detail(control)}")
    return out


def agreement_by_grader(result: Calibration) -> dict[tuple[str, str], list[str]]:
    """What the report shows with each judged grader: its agreement, and its rates raw → corrected."""
    out = {}
    for grader in result.graders:
        if not grader.n and not grader.stale:
            continue
        lines = [agreement_line(grader)]
        lines.append(f"WITH raw {arm_text(grader.with_arm)}")
        if grader.without_arm is not None:
            lines.append(f"W/OUT raw {arm_text(grader.without_arm)}")
            lines.append(f"Δ raw {signed(grader.raw_delta)} → {rate_text(grader.corrected_delta, sign=True)}")
        if grader.stale:
            lines.append(f"{grader.stale} stale label(s) left out (the rubric changed since)")
        out[(grader.case, grader.grader)] = lines + grader.warnings
    return out


def grader_lines(grader: GraderCalibration) -> list[str]:
    models = f" — judge {', '.join(grader.judge_models)}" if grader.judge_models else ""
    lines = [f"{grader.case} · {grader.grader} ({grader.type}){models}", f"  {agreement_line(grader)}"]
    if grader.n:
        lines.append(
            f"  table: judge PASS/you PASS {grader.tp}, FAIL/PASS {grader.fn}, PASS/FAIL {grader.fp}, "
            f"FAIL/FAIL {grader.tn}"
        )
    if grader.stale:
        lines.append(f"  {grader.stale} stale label(s) left out (the rubric changed since)")
    lines.append(f"  WITH   raw {arm_text(grader.with_arm)}")
    if grader.without_arm is not None:
        lines.append(f"  W/OUT  raw {arm_text(grader.without_arm)}")
        raw = signed(grader.raw_delta)
        lines.append(f"  Δ      raw {raw} → {rate_text(grader.corrected_delta, sign=True)}")
    lines += [f"  ! {warning}" for warning in grader.warnings]
    return lines


def calibration_lines(result: Calibration) -> list[str]:
    lines = [
        f"calibrate: {len(result.folders)} results folder(s), {result.labels} label(s)"
        + (f", {result.stale} stale" if result.stale else "")
        + (f", {result.unmatched} unmatched" if result.unmatched else ""),
        "  rates are the judge's raw pass rate → corrected for its errors (Rogan–Gladen), with 95% intervals "
        "that carry the TPR/TNR uncertainty",
        "",
    ]
    if not result.graders:
        lines.append("no llm or baseline graders in these results: nothing to calibrate")
    for grader in result.graders:
        lines += [*grader_lines(grader), ""]
    if result.controls is not None:
        lines += control_lines(result.controls, result.findings)
    lines += [f"! {warning}" for warning in result.warnings]
    return lines


def control_lines(controls: list[ControlAnswer], findings: list[Finding]) -> list[str]:
    if not controls:
        return ["controls: no llm or baseline grader to probe", ""]
    lines = ["controls (answers the judge must fail):"]
    for control in controls:
        lines.append(f"  {control_mark(control)}  {control.case} · {control.grader}: {control_detail(control)}")
    if findings:
        lines.append(f"Findings ({len(findings)}): verdicts of these judges measure less than they seem")
        lines += [f"  ⚑ {finding.case}: {finding.line()}" for finding in findings]
    return [*lines, ""]
