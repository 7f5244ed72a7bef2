"""`budget`: a run passes when it spent no more than its limits — turns, tool calls, tokens, cost, seconds — each
either absolute (`max_turns: 8`) or a ratio of the without-plugin arm's median (`max_turns: {ratio: 1.5,
relative_to: without}`). Free: it reads what the run recorded, no model is asked.

A relative limit depends on the other arm's runs, which a run being graded cannot see (they run in other
workers, or later): the run's verdict is settled once the case has all its runs (`results/budget.py`, when the
case is aggregated), from the figures each run recorded — the same figures `aggregates.efficiency` is made of.
Every run, with the plugin or without, is held to the same bound, so the grader's Δ says whether the plugin's runs
go over it more often than runs without it do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...core.problems import SpecError
from ...core.validate import known_keys, type_name
from ...run.output import RunOutput
from ..base import GradeContext, GraderType, Verdict, register

# The grader's keys → the efficiency figure each limits (results/efficiency.py's names) and how it is shown.
LIMITS: dict[str, tuple[str, str]] = {
    "max_turns": ("turns", "turns"),
    "max_tool_calls": ("toolCalls", "tool calls"),
    "max_tokens": ("tokens", "tokens"),
    "max_cost_usd": ("costUsd", "cost"),
    "max_seconds": ("seconds", "time"),
}
RELATIVE_TO = ("without",)
RELATIVE_FORM = "{ratio: 1.5, relative_to: without}"
PENDING = "pending"  # a verdict's detail: settled once the case has all its runs (not written in the document)


@dataclass(frozen=True)
class Limit:
    key: str  # max_turns …
    bound: float  # the limit itself, or the ratio of the without-plugin median
    relative: bool

    @property
    def figure(self) -> str:
        return LIMITS[self.key][0]

    @property
    def label(self) -> str:
        return LIMITS[self.key][1]


@dataclass(frozen=True)
class BudgetConfig:
    limits: tuple[Limit, ...]
    written: dict  # the keys as written, which is what the results JSON reports

    @property
    def relative(self) -> bool:
        return any(limit.relative for limit in self.limits)


def _number(value: object, key: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        got = type_name(value) if isinstance(value, bool) or not isinstance(value, (int, float)) else value
        raise SpecError(key, f"must be {what} (got {got})")
    return float(value)


def parse_limit(key: str, value: object) -> Limit:
    if isinstance(value, dict):
        known_keys(value, ("ratio", "relative_to"), key, f"`{key}:`")
        if value.get("relative_to") not in RELATIVE_TO:
            raise SpecError(
                f"{key}.relative_to",
                f"must be `without` (the without-plugin arm's median; got {value.get('relative_to')!r}) — "
                f"write {key}: {RELATIVE_FORM}",
            )
        if "ratio" not in value:
            raise SpecError(f"{key}.ratio", f"is required: how many times the without-plugin median — {RELATIVE_FORM}")
        ratio = _number(value["ratio"], f"{key}.ratio", "a number greater than 0 (1.5: half as much again)")
        if ratio == 0:
            raise SpecError(f"{key}.ratio", "must be a number greater than 0 (got 0): no run could pass")
        return Limit(key, ratio, True)
    what = f"a number ≥ 0, or {RELATIVE_FORM} for a ratio of the without-plugin median"
    return Limit(key, _number(value, key, what), False)


def show(figure: str, value: float) -> str:
    """A figure's value as messages write it."""
    if figure == "costUsd":
        return f"${value:.4f}"
    if figure == "seconds":
        return f"{value:.1f} s"
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"  # 1,200,000 tokens; 4.5 turns


@dataclass(frozen=True)
class Decision:
    """A budget's verdict on one run. `decided` False: some limit could not be checked (and none failed), so the
    grader is reported and left out of the score."""

    passed: bool
    explanation: str
    decided: bool = True


def decide(
    config: BudgetConfig,
    figures: Mapping[str, float] | None,
    without: Mapping[str, float] | None = None,
    without_runs: int = 0,
) -> Decision:
    """Check each limit against the run's `figures`; a relative one against `without` (the without-plugin arm's
    medians over `without_runs` runs; None: not known yet). Fails when a limit is exceeded; otherwise undecided
    when a limit could not be checked."""
    checked: list[str] = []
    missing: list[str] = []  # why a limit could not be checked
    waiting = failed = False
    for limit in config.limits:
        value = None if figures is None else figures.get(limit.figure)
        if value is None:
            missing.append(f"the run did not record its {limit.label}")
            continue
        if limit.relative and without is None:
            waiting = True
            continue
        if limit.relative:
            median = without.get(limit.figure) if without is not None else None
            if median is None:
                missing.append(f"no without-plugin run recorded its {limit.label} to compare with")
                continue
            bound = limit.bound * median
            runs = f"{without_runs} run{'s' if without_runs != 1 else ''}"
            where = f"{limit.bound:g} × {show(limit.figure, median)}, the without-plugin median of {runs}"
        else:
            bound, where = limit.bound, limit.key
        over = value > bound
        failed |= over
        sign = ">" if over else "≤"
        checked.append(f"{limit.label} {show(limit.figure, value)} {sign} {show(limit.figure, bound)} ({where})")
    if failed or not (missing or waiting):
        return Decision(not failed, "; ".join(checked))
    if waiting:
        missing.append("its limits relative to the without-plugin runs are decided once the case has them all")
    return Decision(False, "; ".join([*checked, "not decided: " + "; ".join(missing)]), decided=False)


def run_figures(run: RunOutput) -> dict[str, float]:
    """What a run being graded spent, from its trace (and, for an agent run, its cost and time): the figures a
    RunResult records (`RunResult.figures`)."""
    usage = run.transcript.usage_by_model().values()
    tokens = sum(
        u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens for u in usage
    )
    out: dict[str, float] = {"turns": run.transcript.num_turns, "toolCalls": len(run.tool_calls), "tokens": tokens}
    for figure, attr in (("costUsd", "cost_usd"), ("seconds", "duration_seconds")):
        value = getattr(run, attr, None)  # an AgentRun has them; a run rebuilt from its files (regrade) has not
        if isinstance(value, (int, float)):
            out[figure] = value
    return out


@register
class BudgetGrader(GraderType):
    name = "budget"
    keys = tuple(LIMITS)

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> BudgetConfig:
        limits = tuple(parse_limit(key, raw[key]) for key in LIMITS if key in raw)
        if not limits:
            raise SpecError(
                "max_turns",
                f"a budget grader needs at least one limit: {', '.join(LIMITS)} (a number, or {RELATIVE_FORM})",
            )
        return BudgetConfig(limits, {k: raw[k] for k in LIMITS if k in raw})

    def config_json(self, config: BudgetConfig) -> dict:
        return dict(config.written)

    def grade(self, config: BudgetConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        # Relative limits wait for the case's other runs (see the module's docstring): not scored until then.
        decision = decide(config, run_figures(run))
        pending = {PENDING: True} if not decision.decided and config.relative else {}
        return Verdict(decision.passed, decision.explanation, errored=not decision.decided, details=pending)
