"""What the plugin costs per task: each run's figures (turns, tool calls, tokens, cost, seconds), each arm's
medians, and with − without with a confidence interval — per case over its runs, and for the suite over its cases.

A case's runs are two independent samples (run i with the plugin shares nothing with run i without it but its
number), so its Δ is the difference of the arms' medians with the Mann–Whitney interval of the shift between them
(`stats.shift_interval`). For the suite the cases are the pairs — each one measured in both arms — so its Δ is the
median of the cases' Δs with the sign test's interval (`stats.median_interval`). Medians and ranks, because these
figures are skewed: one run that loops for forty turns moves a mean, not a median. Pure functions of numbers, like
`stats.py`; `model.RunResult.figures` says which runs are counted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from typing import Any

from .. import stats
from .jsonmap import EXTRA, Document, key


@dataclass
class Tokens(Document):
    """A run's tokens by kind, over every model it used (the trace's result line, `modelUsage`)."""

    input: int = field(default=0, metadata=key("input"))
    output: int = field(default=0, metadata=key("output"))
    cache_read: int = field(default=0, metadata=key("cacheRead"))
    cache_creation: int = field(default=0, metadata=key("cacheCreation"))
    _: KW_ONLY
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_creation


def _pair(ci: Any) -> tuple[float, float] | None:
    return (ci[0], ci[1]) if ci else None


@dataclass
class Figure(Document):
    """One figure of a case (or of the suite): each arm's median, how many runs (cases) it is over, and
    with − without with its interval (`ciLevel`: the level the interval really has, below 0.95 when the runs are
    too few for 95%; no interval when they are too few for 80%)."""

    medians: dict[str, float] = field(default_factory=dict, metadata=key("medians"))
    _: KW_ONLY
    runs: dict[str, int] = field(default_factory=dict, metadata=key("runs", omit="falsy"))  # a case's
    cases: int | None = field(default=None, metadata=key("cases", omit="none"))  # the suite's: cases with both arms
    delta: float | None = field(default=None, metadata=key("delta", omit="none"))
    delta_ci: tuple[float, float] | None = field(default=None, metadata=key("deltaCI", omit="none", read=_pair))
    ci_level: float | None = field(default=None, metadata=key("ciLevel", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class Efficiency(Document):
    """Every figure of a case or of the suite (a figure no run measured is left out)."""

    _: KW_ONLY
    turns: Figure | None = field(default=None, metadata=key("turns", omit="none"))
    tool_calls: Figure | None = field(default=None, metadata=key("toolCalls", omit="none"))
    tokens: Figure | None = field(default=None, metadata=key("tokens", omit="none"))
    input_tokens: Figure | None = field(default=None, metadata=key("inputTokens", omit="none"))
    output_tokens: Figure | None = field(default=None, metadata=key("outputTokens", omit="none"))
    cache_read_tokens: Figure | None = field(default=None, metadata=key("cacheReadTokens", omit="none"))
    cache_creation_tokens: Figure | None = field(default=None, metadata=key("cacheCreationTokens", omit="none"))
    cost_usd: Figure | None = field(default=None, metadata=key("costUsd", omit="none"))
    seconds: Figure | None = field(default=None, metadata=key("seconds", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    def items(self) -> Iterator[tuple[str, Figure]]:
        """(JSON name, figure) of each figure measured, in the document's order."""
        for name, attr in _ATTRS.items():
            value = getattr(self, attr)
            if isinstance(value, Figure):
                yield name, value

    def get(self, name: str) -> Figure | None:
        """A figure by its JSON name (`toolCalls`)."""
        return dict(self.items()).get(name)


# The figures by their JSON names, in the document's order; what each means is in docs/efficiency.md.
FIGURES: tuple[str, ...] = (
    "turns",
    "toolCalls",
    "tokens",
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheCreationTokens",
    "costUsd",
    "seconds",
)
_ATTRS = {name: f.name for f in fields(Efficiency) if (name := getattr(f.metadata.get("json"), "name", None))}

Arms = Mapping[str, Sequence[Mapping[str, float]]]  # arm → its runs' figures


def figures_of(
    *, turns: int, tool_calls: int, tokens: Tokens, cost_usd: float, seconds: float | None
) -> dict[str, float]:
    """One run's figures by name (`seconds` left out when not measured)."""
    out: dict[str, float] = {
        "turns": turns,
        "toolCalls": tool_calls,
        "tokens": tokens.total,
        "inputTokens": tokens.input,
        "outputTokens": tokens.output,
        "cacheReadTokens": tokens.cache_read,
        "cacheCreationTokens": tokens.cache_creation,
        "costUsd": cost_usd,
    }
    if seconds is not None:
        out["seconds"] = seconds
    return out


def arm_medians(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Figure → its median over the runs that measured it."""
    out = {}
    for name in FIGURES:
        median = stats.median([r[name] for r in runs if name in r])
        if median is not None:
            out[name] = median
    return out


def case_efficiency(arms: Arms) -> Efficiency | None:
    """A case's figures: per arm the median over its measured runs; with − without (difference of the medians)
    with the Mann–Whitney interval of the shift when both arms measured it. None when no run was measured."""
    made: dict[str, Any] = {}  # attribute → its figure
    for name in FIGURES:
        values = {arm: [r[name] for r in runs if name in r] for arm, runs in arms.items()}
        values = {arm: v for arm, v in values.items() if v}
        if not values:
            continue
        figure = Figure(
            {arm: m for arm, v in values.items() if (m := stats.median(v)) is not None},
            runs={arm: len(v) for arm, v in values.items()},
        )
        if "with" in values and "without" in values:
            figure.delta = figure.medians["with"] - figure.medians["without"]
            interval = stats.shift_interval(values["with"], values["without"])
            if interval is not None:
                figure.delta_ci, figure.ci_level = interval
        made[_ATTRS[name]] = figure
    return Efficiency(**made) if made else None


def suite_efficiency(cases: Sequence[Efficiency | None]) -> Efficiency | None:
    """The suite's figures: per arm the median over the cases of their medians (the typical case); with − without
    the median of the Δs of the cases that measured both arms, with the sign test's interval (paired by case)."""
    made: dict[str, Any] = {}  # attribute → its figure
    measured = [case for case in cases if case is not None]
    for name in FIGURES:
        figures = [f for case in measured if (f := case.get(name)) is not None]
        if not figures:
            continue
        arms = dict.fromkeys(arm for f in figures for arm in f.medians)
        medians = {arm: stats.median([f.medians[arm] for f in figures if arm in f.medians]) for arm in arms}
        figure = Figure({arm: m for arm, m in medians.items() if m is not None})
        deltas = [f.delta for f in figures if f.delta is not None]
        if deltas:
            figure.cases, figure.delta = len(deltas), stats.median(deltas)
            interval = stats.median_interval(deltas)
            if interval is not None:
                figure.delta_ci, figure.ci_level = interval
        made[_ATTRS[name]] = figure
    return Efficiency(**made) if made else None
