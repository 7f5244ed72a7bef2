"""Statistics of a judge measured against a person's labels: pure functions of counts, nothing else.

A judged grader is a classifier of runs. The person's label is the truth; "positive" is a run the person passes:

    TPR (sensitivity) = judge PASS among the runs the person passed   tp / (tp + fn)
    TNR (specificity) = judge FAIL among the runs the person failed   tn / (tn + fp)

Both get Wilson intervals (`stats.wilson_interval`); Cohen's κ says how far the agreement is above what two raters
with these pass rates would reach by chance. `corrected_rate` is Rogan & Gladen's (1978) estimate of the true pass
rate from the judge's raw pass rate and its TPR/TNR, and `corrected_delta` that of WITH − W/OUT.

The interval of a corrected rate (and of a corrected Δ) is a delta-method (Wald) interval over the three
binomials it is made of — the raw rate, the TPR and the TNR — so that it carries the uncertainty of the judge's
measured accuracy, not only that of the runs. It is Agresti & Coull's adjustment carried through: each
proportion's variance is taken at its adjusted value (z²/2 successes and z²/2 failures added), and the interval
is centred on the correction of the adjusted raw rate(s) — a TPR of 12 of 12 is not known to be exactly 1, and
plain Wald intervals of counts this small fall well short of their level. (Adjusted-Wald intervals of this kind
are what Lang & Reiczigel (2014) recommend for a prevalence corrected for a test's sensitivity and specificity.)
It needs no random numbers (unlike a bootstrap, the same labels always give the same interval) and is a formula
anyone can check by hand (p̃ = (x + z²/2) / (n + z²), each Var at its p̃ over n + z²):

    θ = (p + TNR − 1) / J,   J = TPR + TNR − 1 (Youden's J);  interval (p̃ + TNR − 1) / J ± z √Var θ
    Var θ ≈ [Var p + θ² Var TPR + (1 − θ)² Var TNR] / J²
    Δ = (p_with − p_without) / J;  interval (p̃_with − p̃_without) / J ± z √Var Δ
    Var Δ ≈ [Var p_with + Var p_without + Δ² (Var TPR + Var TNR)] / J²

`bench/bench_calibration.py` measures the coverage by simulation: over its grid (10–30 runs, 10–30 labels of
each kind, judges from 0.95/0.95 to 1.0/0.6) the rate's lowest is about 0.93 and Δ's about 0.91 at a 95% level
(raw-centred, they were 0.89 and 0.89): with few runs and labels they are a little too narrow.

A judge with J ≤ 0 (no better than a coin, or worse) cannot be corrected for: the functions give None. Point
estimates are clipped to [0, 1] (Δ to [−1, 1]), and so are the intervals, which always hold their estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .stats import wilson_interval, z_quantile


@dataclass(frozen=True)
class Table:
    """Judge against person over the labelled verdicts of one grader."""

    tp: int = 0  # person pass, judge pass
    fn: int = 0  # person pass, judge fail
    fp: int = 0  # person fail, judge pass
    tn: int = 0  # person fail, judge fail

    @property
    def n(self) -> int:
        return self.tp + self.fn + self.fp + self.tn

    @property
    def positives(self) -> int:
        """Runs the person passed."""
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        """Runs the person failed."""
        return self.fp + self.tn

    def add(self, person: bool, judge: bool) -> Table:
        return Table(
            self.tp + (person and judge),
            self.fn + (person and not judge),
            self.fp + (not person and judge),
            self.tn + (not person and not judge),
        )


def tpr(table: Table) -> float | None:
    """The share of the person's passes the judge passed (None when the person passed none)."""
    return table.tp / table.positives if table.positives else None


def tnr(table: Table) -> float | None:
    """The share of the person's failures the judge failed (None when the person failed none)."""
    return table.tn / table.negatives if table.negatives else None


def tpr_interval(table: Table, level: float = 0.95) -> tuple[float, float] | None:
    return wilson_interval(table.tp, table.positives, level)


def tnr_interval(table: Table, level: float = 0.95) -> tuple[float, float] | None:
    return wilson_interval(table.tn, table.negatives, level)


def agreement(table: Table) -> float | None:
    """The share of verdicts on which judge and person agree."""
    return (table.tp + table.tn) / table.n if table.n else None


def cohen_kappa(table: Table) -> float | None:
    """Cohen's κ = (p_o − p_e) / (1 − p_e): 1 for perfect agreement, 0 for what chance gives, below 0 for worse.
    None without labels, or when both raters gave one verdict only (p_e = 1: κ is 0/0 — agreement on a single
    class says nothing about telling the classes apart)."""
    n = table.n
    if not n:
        return None
    observed = (table.tp + table.tn) / n
    judge_pass, person_pass = (table.tp + table.fp) / n, table.positives / n
    chance = judge_pass * person_pass + (1 - judge_pass) * (1 - person_pass)
    if chance >= 1:
        return None
    return (observed - chance) / (1 - chance)


def _adjusted_variance(successes: float, n: int, z: float) -> float:
    """The variance of a proportion at Agresti & Coull's adjusted estimate (z²/2 successes and failures added)."""
    total = n + z * z
    p = (successes + z * z / 2) / total
    return p * (1 - p) / total


def _adjusted(successes: float, n: int, z: float) -> float:
    return (successes + z * z / 2) / (n + z * z)


def _clip(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return min(high, max(low, value))


@dataclass(frozen=True)
class Corrected:
    """A rate (or Δ) corrected for the judge's errors, with its interval."""

    value: float
    low: float
    high: float


def youden(table: Table) -> float | None:
    """J = TPR + TNR − 1 (None when either is unknown)."""
    sensitivity, specificity = tpr(table), tnr(table)
    if sensitivity is None or specificity is None:
        return None
    return sensitivity + specificity - 1


def corrected_rate(passed: int, judged: int, table: Table, level: float = 0.95) -> Corrected | None:
    """Rogan–Gladen: the pass rate the runs would have by the person's judgement, from the judge's `passed` of
    `judged` runs and its TPR/TNR from `table`. None without runs, without labels of both kinds, or with a judge
    no better than chance (J ≤ 0)."""
    j = youden(table)
    if not judged or j is None or j <= 0:
        return None
    z = z_quantile(level)
    p = passed / judged
    theta = _clip((p + (tnr(table) or 0.0) - 1) / j)
    variance = (
        _adjusted_variance(passed, judged, z)
        + theta**2 * _adjusted_variance(table.tp, table.positives, z)
        + (1 - theta) ** 2 * _adjusted_variance(table.tn, table.negatives, z)
    ) / (j * j)
    half = z * math.sqrt(variance)
    centre = _clip((_adjusted(passed, judged, z) + (tnr(table) or 0.0) - 1) / j)
    return Corrected(theta, min(theta, _clip(centre - half)), max(theta, _clip(centre + half)))


def corrected_delta(
    with_counts: tuple[int, int], without_counts: tuple[int, int], table: Table, level: float = 0.95
) -> Corrected | None:
    """Rogan–Gladen for Δ = WITH − W/OUT, each arm `(passed, judged)`: the raw difference divided by J (the
    TNR's offset cancels). The interval counts TPR's and TNR's uncertainty once, shared by the two arms."""
    j = youden(table)
    (pw, nw), (po, no) = with_counts, without_counts
    if not nw or not no or j is None or j <= 0:
        return None
    z = z_quantile(level)
    delta = _clip((pw / nw - po / no) / j, -1.0, 1.0)
    variance = (
        _adjusted_variance(pw, nw, z)
        + _adjusted_variance(po, no, z)
        + delta**2
        * (_adjusted_variance(table.tp, table.positives, z) + _adjusted_variance(table.tn, table.negatives, z))
    ) / (j * j)
    half = z * math.sqrt(variance)
    centre = _clip((_adjusted(pw, nw, z) - _adjusted(po, no, z)) / j, -1.0, 1.0)
    low, high = _clip(centre - half, -1.0, 1.0), _clip(centre + half, -1.0, 1.0)
    return Corrected(delta, min(delta, low), max(delta, high))
