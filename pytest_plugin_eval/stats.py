"""Statistics of run scores: pure functions of numbers, nothing else.

`delta_interval` is the confidence interval of Δ = mean(with) − mean(without) that the table, the JSON
(`deltaCI`, `deltaSignificant`), the report and comparisons use; `pass_at_k` and `pass_hat_k` estimate the chance
that at least one / every one of k runs passes. `bench/bench_intervals.py` measures the interval's coverage.
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


# The two-sided 95% quantile of the standard normal distribution (other levels are computed when asked for).
Z95 = 1.959963984540054


def z_quantile(level: float) -> float:
    """The standard normal quantile of a two-sided `level` (0.95 → 1.96)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (got {level!r})")
    if level == 0.95:
        return Z95
    from statistics import NormalDist  # only here: the module costs a few milliseconds to import

    return NormalDist().inv_cdf((1 + level) / 2)


def _augmented(scores: Sequence[float], runs: int | None = None) -> tuple[float, float]:
    """An arm's mean and the variance of that mean after adding two pseudo-runs, one scoring 1 and one 0. With
    `runs`, as if the arm had that many runs with the same mean and spread (a projection)."""
    runs = len(scores) if runs is None else runs
    scale = runs / len(scores)
    n = runs + 2
    m = (sum(scores) * scale + 1) / n
    variance = max((sum(s * s for s in scores) * scale + 1) / n - m * m, 0.0)
    return m, variance / n


def delta_interval(
    with_scores: Sequence[float], without_scores: Sequence[float], level: float = 0.95, runs: int | None = None
) -> tuple[float, float] | None:
    """The `level` confidence interval of mean(with) − mean(without) for run scores in [0, 1]: Agresti–Caffo's
    interval, generalised from pass/fail to scores. Each arm gets two pseudo-runs, one scoring 1 and one scoring
    0; the interval is the difference of the augmented means ± z × the standard error from the augmented arms'
    variances, clipped to [-1, 1]. With all-or-nothing scores it is exactly Agresti & Caffo (2000) ("add one
    success and one failure"); with fractional scores it follows their observed spread. The pseudo-runs keep it
    from ever being zero-width: 3 passes against 3 failures gives [+0.10, +1.00], 2 against 2 [-0.10, +1.00].
    The arms are unpaired (they run in separate sessions) and may differ in size. None with fewer than two
    scores in either arm. Coverage, measured by bench/bench_intervals.py: docs/statistics.md.

    With `runs`, the interval the arms would give with that many runs each if their means and spreads stayed as
    they are (what `--runs auto` asks before adding runs that could not settle Δ)."""
    z = z_quantile(level)
    a, b = list(with_scores), list(without_scores)
    if len(a) < 2 or len(b) < 2:
        return None
    (ma, va), (mb, vb) = _augmented(a, runs), _augmented(b, runs)
    centre, half = ma - mb, z * math.sqrt(va + vb)
    return (max(-1.0, centre - half), min(1.0, centre + half))


def paired_interval(pairs: Sequence[tuple[float, float]], level: float = 0.95) -> tuple[float, float] | None:
    """The `level` confidence interval of the mean difference a − b over paired run scores in [0, 1] (run n of one
    arm against run n of the other: the same prompt, made in the same round of the session). Two pseudo-pairs, one
    at +1 and one at −1, are added before the normal interval is taken (as Agresti–Caffo add a success and a
    failure): a handful of equal pairs never reads as certainty, and the interval is never zero wide — three pairs
    that agree give about ±0.62 around 0. None with fewer than two pairs."""
    if len(pairs) < 2:
        return None
    diffs = [a - b for a, b in pairs] + [1.0, -1.0]
    n = len(diffs)
    m = sum(diffs) / n
    sd = math.sqrt(sum((d - m) ** 2 for d in diffs) / (n - 1))
    half = z_quantile(level) * sd / math.sqrt(n)
    return (max(-1.0, m - half), min(1.0, m + half))


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """The chance that at least one of k runs passes, estimated without bias from n runs of which c passed:
    1 − C(n−c, k) / C(n, k). None when k > n (n runs cannot tell)."""
    _check_counts(n, c, k)
    if k > n:
        return None
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """pass^k: the chance that all k runs pass, estimated without bias from n runs of which c passed:
    C(c, k) / C(n, k). None when k > n."""
    _check_counts(n, c, k)
    if k > n:
        return None
    return math.comb(c, k) / math.comb(n, k)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1 (got n={n}, c={c}, k={k})")


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Wilson's score interval for a proportion of `successes` in `n` trials (None for no trials): unlike the
    normal approximation it stays inside [0, 1] and is not zero-width at 0 of n or n of n (5 of 5 → [0.57, 1]).
    `successes` may hold halves (a pairwise tie counts half a win), which makes the interval conservative."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n (got {successes} of {n})")
    z = z_quantile(level)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends where rounding would fall short
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high
