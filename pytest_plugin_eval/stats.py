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
    arm against run n of the other: the same prompt, made in the same round of the session), as
    `difference_interval` makes it: three pairs that agree give about ±0.62 around 0. None with fewer than two
    pairs."""
    if len(pairs) < 2:
        return None
    return difference_interval([a - b for a, b in pairs], level)


def difference_interval(diffs: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The `level` confidence interval of the mean of paired differences in [-1, 1]. Two pseudo-pairs, one at +1
    and one at −1, are added before the normal interval is taken (as Agresti–Caffo add a success and a failure): a
    handful of equal pairs never reads as certainty, and the interval is never zero wide. The one paired interval
    of the package: the arms' ΔAGAINST and ablations (`paired_interval`) and tune's margins use it."""
    augmented = [*diffs, 1.0, -1.0]
    n = len(augmented)
    m = sum(augmented) / n
    sd = math.sqrt(sum((d - m) ** 2 for d in augmented) / (n - 1))
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


def median(values: Sequence[float]) -> float | None:
    """The middle value (the mean of the two middle ones for an even count); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


# An interval that would hold the truth less often than this is not reported (2 runs against 2: 67%).
LOWEST_LEVEL = 0.8


def _mann_whitney_counts(n: int, m: int) -> list[int]:
    """How many of the C(n+m, n) equally likely orderings of two samples of n and m give each value of the
    Mann–Whitney U (0 … n·m): the exact null distribution, by the usual recurrence."""
    # counts[a][b] is the distribution for samples of a and b, built up from the empty samples.
    counts = [[[1] for _ in range(m + 1)] for _ in range(n + 1)]
    for a in range(1, n + 1):
        for b in range(1, m + 1):
            # the largest value is from the first sample (it beats all b of the other) or from the second
            first, second = counts[a - 1][b], counts[a][b - 1]
            size = a * b + 1
            counts[a][b] = [
                (first[u - b] if 0 <= u - b < len(first) else 0) + (second[u] if u < len(second) else 0)
                for u in range(size)
            ]
    return counts[n][m]


def shift_interval(
    with_values: Sequence[float], without_values: Sequence[float], level: float = 0.95
) -> tuple[tuple[float, float], float] | None:
    """A distribution-free confidence interval for how far the with-plugin runs' figures (turns, tokens, seconds…)
    are shifted from the without-plugin runs': the Mann–Whitney (Moses) interval, order statistics of the n·m
    differences with − without, cut where the exact Mann–Whitney distribution puts (1 − level) / 2 on each side.
    The runs of the two arms are independent samples (run i of one arm shares nothing with run i of the other but
    its number), so a paired interval would claim a precision the runs do not have; ranks make it robust to the
    run that loops for 40 turns, and exact for small arms. Returns the interval and the level it really has:
    `level` when the runs allow it, else the highest they allow (3 runs against 3: 90%); None below
    LOWEST_LEVEL (2 against 2) or with an empty arm."""
    n, m = len(with_values), len(without_values)
    if n == 0 or m == 0:
        return None
    counts = _mann_whitney_counts(n, m)
    total = sum(counts)
    # the largest k with P(U ≤ k − 1) ≤ (1 − level) / 2; at least 1 (the widest interval: the extreme differences)
    k, tail = 1, counts[0]
    while k < len(counts) and tail + counts[k] <= total * (1 - level) / 2:
        tail += counts[k]
        k += 1
    real = 1 - 2 * sum(counts[:k]) / total
    if real < LOWEST_LEVEL - 1e-12:
        return None
    differences = sorted(a - b for a in with_values for b in without_values)
    return (differences[k - 1], differences[len(differences) - k]), min(level, real)


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[tuple[float, float], float] | None:
    """A distribution-free confidence interval for the median of paired differences (one per case, with − without):
    the sign test's interval, order statistics cut where Binomial(n, ½) puts (1 − level) / 2 on each side. It
    assumes nothing of the differences' shape (the signed-rank interval would assume symmetry). Returns the
    interval and the level it really has: `level` when there are enough values, else the highest they allow (4
    cases: 87.5%); None below LOWEST_LEVEL (3 cases or fewer)."""
    n = len(values)
    if n == 0:
        return None
    total = 2**n
    k, tail = 1, 1  # tail: the number of sign patterns with at most k − 1 positive
    while k < n and tail + math.comb(n, k) <= total * (1 - level) / 2:
        tail += math.comb(n, k)
        k += 1
    real = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / total
    if real < LOWEST_LEVEL - 1e-12:
        return None
    ordered = sorted(values)
    return (ordered[k - 1], ordered[n - k]), min(level, real)
