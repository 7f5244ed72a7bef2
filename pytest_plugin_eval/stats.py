"""Statistics of run scores: pure functions of numbers, nothing else.

`delta_interval` is the confidence interval of Δ = mean(with) − mean(without) that the table, the JSON
(`deltaCI`, `deltaSignificant`), the report and comparisons use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def stdev(values: Sequence[float]) -> float | None:
    """The sample standard deviation (None with fewer than two values)."""
    if len(values) < 2:
        return None
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


# Two-sided 95% quantiles of Student's t by degrees of freedom (larger df use the next smaller entry).
T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    12: 2.179,
    15: 2.131,
    20: 2.086,
    25: 2.060,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t95(df: float) -> float:
    if df >= 1000:
        return 1.960
    return T95[max(k for k in T95 if k <= max(df, 1))]


def delta_interval(
    with_scores: Sequence[float], without_scores: Sequence[float], level: float = 0.95
) -> tuple[float, float] | None:
    """The 95% confidence interval of mean(with) − mean(without): Welch's unpaired t-interval on run scores
    (the arms run in separate sessions). None with fewer than two scores in either arm."""
    if level != 0.95:
        raise ValueError("only level=0.95 is supported")
    a, b = list(with_scores), list(without_scores)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = (stdev(a) or 0.0) ** 2 / len(a), (stdev(b) or 0.0) ** 2 / len(b)
    delta = sum(a) / len(a) - sum(b) / len(b)
    if va + vb == 0:
        return (delta, delta)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = t95(math.floor(df)) * math.sqrt(va + vb)
    return (delta - half, delta + half)
