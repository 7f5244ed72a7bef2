"""Findings read from a session's runs: computations over the results document, so a session and `--regrade`
(and any later reader) find the same. How each is decided:

- `no-delta-possible`: a two-arm case whose scored graders passed in every graded run of both arms — both arms
  at the ceiling, so no Δ can show. Not said of a should-not-fire decoy (a `tool_used` grader on `Skill` or an
  `mcp__` tool with `max: 0`), whose Δ is 0 by design.
- `grader-never-varies`: a scored grader of a two-arm case that passed in every graded run of both arms, while
  the case's other graders did not (else `no-delta-possible` says it), and none of them tells the arms apart
  either (passes in a different share of runs in one arm than in the other). A grader every answer passes
  beside one that does tell them apart is a guard — the file exists, the reply names the subject — checking the
  floor while the other measures the Δ: not flagged.
- `grader-always-fails`: a scored grader that failed in every graded run (both arms when two ran), at least two
  runs: the case cannot pass while it stays as written.
- `never-fired`: a two-arm case whose plugin-fired indicator (a with-only `tool_used: Skill` grader, not a
  `max: 0` decoy) failed in every with-plugin run, while a Δ is reported: the Δ came from something else — or,
  when every one of those runs did call Skill, the indicator's input_match is what is wrong (results/hints.py).
- `tool-refused`: runs in which Claude Code refused the agent a tool (results/refused.py).
- `unanswered-question`: a question the agent asked (AskUserQuestion) that neither the case's `answers:` nor a
  simulated user answered (results/conversation_findings.py).
- `user-turns-capped`: runs whose simulated user wrote its max_user_turns replies and answers before it said the
  user was done (results/conversation_findings.py).

A run with no verdicts (a run error, an errored or skipped grader) counts in none of them, nor does a run of
--against's or --ablate's arms: "both arms" are with and without the plugin.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.kinds import ARMS, Arm
from .conversation_findings import capped_findings, unanswered_findings
from .findings import Finding
from .hints import missed_calls
from .model import CaseResult, GraderInfo, RunResult
from .refused import refusal_findings

MIN_RUNS = 2  # fewer runs decide nothing about a grader's spread


def is_decoy(case: CaseResult) -> bool:
    """A should-not-fire case: a `tool_used` grader forbidding the plugin's entry point (`max: 0`)."""
    return any(_forbids_plugin(g) for g in case.graders)


def _forbids_plugin(g: GraderInfo) -> bool:
    tool = str(g.config.get("tool", ""))
    return g.type == "tool_used" and g.config.get("max") == 0 and (tool == "Skill" or tool.startswith("mcp__"))


def _graded(runs: Iterable[RunResult]) -> list[RunResult]:
    return [run for run in runs if run.score is not None and not run.error_kind]


def _runs(case: CaseResult, arm: Arm | None) -> list[RunResult]:
    """The runs of one arm, or of both: with and without the plugin — what these findings are about; the arms of
    --against and --ablate measure other versions of the plugin, and their own Δs say what they did."""
    return case.runs(arm) if arm is not None else [run for a in ARMS for run in case.runs(a)]


def verdicts(case: CaseResult, name: str, arm: Arm | None = None) -> list[bool]:
    """A scored grader's verdicts over the case's graded runs (of one arm, or both)."""
    return [
        g.passed
        for run in _graded(_runs(case, arm))
        for g in run.graders
        if g.name == name and g.scored and not g.errored and not g.skipped
    ]


def _scored_names(case: CaseResult) -> list[str]:
    return list(dict.fromkeys(g.name for run in _graded(_runs(case, None)) for g in run.graders if g.scored))


def separates_arms(case: CaseResult, name: str) -> bool:
    """The grader passed in a different share of the with-plugin runs than of the without-plugin runs."""
    with_, without = verdicts(case, name, "with"), verdicts(case, name, "without")
    return bool(with_ and without) and sum(with_) * len(without) != sum(without) * len(with_)


def ceiling(case: CaseResult) -> bool:
    """Every scored grader passed in every graded run of both arms (and there were such runs in each arm)."""
    if not case.two_arm or not _graded(case.runs("with")) or not _graded(case.runs("without")):
        return False
    names = _scored_names(case)
    return bool(names) and all(all(verdicts(case, n)) and len(verdicts(case, n)) >= MIN_RUNS for n in names)


def indicator_never_fired(case: CaseResult) -> bool:
    names = {
        g.name
        for g in case.graders
        if g.type == "tool_used" and g.config.get("tool") == "Skill" and not _forbids_plugin(g)
    }
    fired = [g.passed for run in _graded(case.runs("with")) for g in run.graders if g.name in names and g.with_only]
    return bool(fired) and not any(fired)


def case_findings(case: CaseResult) -> list[Finding]:
    out: list[Finding] = []
    decoy = is_decoy(case)
    if ceiling(case) and not decoy:
        out.append(
            Finding(
                case.name,
                kind="no-delta-possible",
                message="every scored grader passed in every run of both arms: the case cannot show what the "
                "plugin adds",
                fix="make the task harder without the plugin (ask for what only the skill teaches), or grade "
                "what the plugin changes",
            )
        )
    names = _scored_names(case)
    guarded = case.two_arm and any(separates_arms(case, n) for n in names)  # another grader measures the Δ
    for name in names:
        both = verdicts(case, name)
        if len(both) < MIN_RUNS:
            continue
        if not any(both):
            arms = "both arms" if case.two_arm else "the run's arm"
            out.append(
                Finding(
                    case.name,
                    grader=name,
                    kind="grader-always-fails",
                    message=f"failed in every run of {arms} ({len(both)}/{len(both)}): the case cannot pass as written",
                    fix="read one failing run's explanation: the grader may ask for something the task does not "
                    "(a file path, an exact phrase), or the runs were refused a tool",
                )
            )
        elif case.two_arm and all(both) and not (guarded or ceiling(case) or decoy) and verdicts(case, name, "without"):
            out.append(
                Finding(
                    case.name,
                    grader=name,
                    kind="grader-never-varies",
                    message=f"passed in every run of both arms ({len(both)}/{len(both)}), and no other grader "
                    "tells the arms apart either: the case cannot show what the plugin adds",
                    fix="tighten it to what the plugin adds, or add a grader that checks what only the skill "
                    "teaches (then this one may stay, as a guard)",
                )
            )
    called = missed_calls(case) if indicator_never_fired(case) else None
    if called is not None:  # every run called the skill: the indicator's pattern is what is wrong, not the description
        out.append(
            Finding(
                case.name,
                kind="never-fired",
                message=f"the plugin-fired indicator failed in every with-plugin run, though every one called Skill "
                f"({called}): its input_match matches none of these calls",
                fix="fix the indicator's input_match (a typo in the skill's name or its namespace?), not the description",
            )
        )
    elif case.two_arm and case.aggregates.delta is not None and indicator_never_fired(case):
        out.append(
            Finding(
                case.name,
                kind="never-fired",
                message="the plugin-fired indicator failed in every with-plugin run, yet a Δ is reported: the Δ "
                "did not come from the skill",
                fix="sharpen the skill's description in SKILL.md (when to use it, in the user's words), or drop "
                "the indicator if the plugin works another way",
            )
        )
    return out + refusal_findings(case) + unanswered_findings(case) + capped_findings(case)


def session_findings(cases: Iterable[CaseResult]) -> list[Finding]:
    return [f for case in cases for f in case_findings(case)]
