"""Unit tests for the statistics of run scores (pytest_plugin_eval.stats): mean, sample standard deviation, the
interval for Δ (Agresti–Caffo generalised to scores, see bench/bench_intervals.py for its coverage), pass@k and
pass^k."""

from __future__ import annotations

import itertools
import math
import random
from itertools import product

import pytest

from pytest_plugin_eval.stats import (
    delta_interval,
    mean,
    median,
    median_interval,
    pass_at_k,
    pass_hat_k,
    shift_interval,
    stdev,
    wilson_interval,
    z_quantile,
)

# ---- mean / stdev --------------------------------------------------------------------------------------------


def test_mean():
    assert mean([]) is None
    assert mean([0.7]) == 0.7
    assert mean([1, 0.5, 0]) == 0.5
    assert mean([1 / 3, 1.0]) == pytest.approx(2 / 3)


def test_stdev_is_the_sample_standard_deviation():
    assert stdev([]) is None
    assert stdev([0.7]) is None  # one value has no spread to speak of
    assert stdev([1, 0.5, 0]) == pytest.approx(0.5)
    assert stdev([0.2, 0.8]) == pytest.approx(math.sqrt(0.18))
    assert stdev([1, 0.5]) == pytest.approx(0.3535533905932738)
    assert stdev([0.25, 0.25, 0.25]) == 0.0


# ---- z quantiles ---------------------------------------------------------------------------------------------


def test_z_quantiles():
    assert z_quantile(0.95) == pytest.approx(1.959963984540054, abs=1e-15)
    assert z_quantile(0.90) == pytest.approx(1.6448536269514722)
    assert z_quantile(0.99) == pytest.approx(2.5758293035489004)
    assert z_quantile(0.5) == pytest.approx(0.6744897501960817)


@pytest.mark.parametrize("level", [0, 1, -0.5, 1.5, 95])
def test_z_quantile_refuses_levels_outside_0_1(level):
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        z_quantile(level)


# ---- delta_interval ------------------------------------------------------------------------------------------

Z = 1.959963984540054


def agresti_caffo(c_with: int, n_with: int, c_without: int, n_without: int, z: float = Z) -> tuple[float, float]:
    """Agresti & Caffo (2000) for pass counts, as published: add one success and one failure to each arm."""
    pa, pb = (c_with + 1) / (n_with + 2), (c_without + 1) / (n_without + 2)
    half = z * math.sqrt(pa * (1 - pa) / (n_with + 2) + pb * (1 - pb) / (n_without + 2))
    return (max(-1.0, pa - pb - half), min(1.0, pa - pb + half))


def width(interval: tuple[float, float] | None) -> float:
    assert interval is not None
    return interval[1] - interval[0]


def test_all_pass_against_all_fail_at_three_runs_is_significant_but_not_zero_width():
    # 3/3 against 0/3: under "no difference" that split has probability at most 2 × (1/2)^6 ≈ 0.03, so it is
    # evidence at the 5 % level — but for a Δ anywhere from +0.10 to +1, not for Δ = 1 exactly.
    # Augmented arms 4/5 and 1/5: 0.6 ± 1.96 × sqrt(2 × 0.16 / 5).
    low, high = delta_interval([1, 1, 1], [0, 0, 0])
    assert low == pytest.approx(0.6 - Z * math.sqrt(2 * 0.16 / 5)) == pytest.approx(0.10416397)
    assert high == 1.0  # 1.096 clipped
    assert 0 < low < high
    assert delta_interval([0, 0, 0], [1, 1, 1]) == pytest.approx((-1.0, -low))


def test_all_pass_against_all_fail_at_two_runs_is_not_significant():
    # 2/2 against 0/2 happens by chance with probability up to 2 × (1/2)^4 = 0.125: not a result.
    low, high = delta_interval([1, 1], [0, 0])
    assert low == pytest.approx(0.5 - Z * math.sqrt(2 * 0.1875 / 4)) == pytest.approx(-0.10011396)
    assert high == 1.0 and low < 0


def test_arms_that_agree_without_spread_give_an_interval_around_zero():
    for scores in ([1, 1, 1], [0, 0, 0], [0.5, 0.5], [0.75] * 5):
        low, high = delta_interval(scores, scores)
        assert low == pytest.approx(-high) and high > 0.3, scores
    # 1, 1, 1 against 1, 1, 1: augmented 4/5 each, ± 1.96 × sqrt(2 × 0.16 / 5).
    assert delta_interval([1, 1, 1], [1, 1, 1]) == pytest.approx((-0.49583603, 0.49583603))


def test_zero_spread_never_gives_a_zero_width_interval():
    for value_with, value_without, n in product([0, 0.25, 0.5, 1], [0, 0.5, 0.75, 1], [2, 3, 5, 10, 50]):
        assert width(delta_interval([value_with] * n, [value_without] * n)) > 0.05


def test_a_third_of_a_point_on_three_runs_is_not_significant():
    # +0.33 from one lucky run (1, 0, 0 against 0, 0, 0): 0.2 ± 0.554.
    low, high = delta_interval([1, 0, 0], [0, 0, 0])
    assert (low, high) == pytest.approx((-0.35436153, 0.75436153))


def test_fractional_scores_two_runs_each():
    # Augmented with runs 1 and 0: (1, 0.5, 1, 0) mean 0.625, variance 0.171875; (0.25, 0.25, 1, 0) mean 0.375,
    # variance 0.140625 → 0.25 ± 1.96 × sqrt((0.171875 + 0.140625) / 4).
    low, high = delta_interval([1, 0.5], [0.25, 0.25])
    half = Z * math.sqrt((0.171875 + 0.140625) / 4)
    assert (low, high) == pytest.approx((0.25 - half, 0.25 + half))


def test_pass_fail_scores_give_agresti_caffo_exactly():
    for n_with, n_without in [(2, 2), (3, 3), (3, 5), (10, 4), (10, 10)]:
        for c_with, c_without in product(range(n_with + 1), range(n_without + 1)):
            got = delta_interval(
                [1] * c_with + [0] * (n_with - c_with), [1] * c_without + [0] * (n_without - c_without)
            )
            assert got == pytest.approx(agresti_caffo(c_with, n_with, c_without, n_without), abs=1e-12)


def test_the_spread_of_fractional_scores_narrows_the_interval():
    # Same means as 2 passes and 2 failures of 4, but every run scored 0.5: less spread, a narrower interval.
    assert width(delta_interval([0.5] * 4, [0.25] * 4)) < width(delta_interval([1, 1, 0, 0], [1, 0, 0, 0]))


def test_delta_interval_needs_two_scores_in_each_arm():
    assert delta_interval([], []) is None
    assert delta_interval([1, 0.5], []) is None
    assert delta_interval([], [1, 0.5]) is None
    assert delta_interval([1], [0]) is None
    assert delta_interval([1, 0.5, 0], [0]) is None
    assert delta_interval([1], [0, 0.5, 1]) is None


def random_arms(rng: random.Random):
    """Arms of 2 to 12 runs: pass/fail, fractions of a few graders, or arbitrary scores, equal or not."""
    kind = rng.choice(["binary", "graders", "any", "flat"])
    graders = rng.randint(2, 6)
    value = rng.random()

    def arm() -> list[float]:
        n = rng.randint(2, 12)
        if kind == "binary":
            return [rng.choice([0.0, 1.0]) for _ in range(n)]
        if kind == "graders":
            return [rng.randint(0, graders) / graders for _ in range(n)]
        if kind == "flat":
            return [value] * n
        return [rng.random() for _ in range(n)]

    return arm(), arm()


def test_bounds_stay_within_minus_one_and_one_and_hold_the_observed_delta():
    rng = random.Random(7)
    for _ in range(3000):
        with_scores, without_scores = random_arms(rng)
        low, high = delta_interval(with_scores, without_scores)
        assert -1.0 <= low < high <= 1.0
        assert low - 1e-12 <= mean(with_scores) - mean(without_scores) <= high + 1e-12
    assert delta_interval([1] * 50, [0] * 50)[1] == 1.0 and delta_interval([0] * 50, [1] * 50)[0] == -1.0


def test_swapping_the_arms_mirrors_the_interval():
    rng = random.Random(11)
    for _ in range(500):
        with_scores, without_scores = random_arms(rng)
        low, high = delta_interval(with_scores, without_scores)
        assert delta_interval(without_scores, with_scores) == pytest.approx((-high, -low), abs=1e-12)


@pytest.mark.parametrize(
    "pattern_with, pattern_without",
    [([1], [0]), ([1, 1, 0], [0, 0, 1]), ([1, 0], [1, 0]), ([0.75, 0.5], [0.25, 0.5]), ([1, 0.5, 0.5, 0], [0.25])],
)
def test_more_runs_at_the_same_rates_narrow_the_interval(pattern_with, pattern_without):
    widths = [
        width(delta_interval(pattern_with * k, pattern_without * k))
        for k in range(1, 40)
        if len(pattern_with) * k >= 2 and len(pattern_without) * k >= 2
    ]
    assert all(a > b for a, b in zip(widths, widths[1:], strict=False)), widths
    assert widths[-1] < widths[0] / 2


def test_all_pass_against_all_fail_becomes_surer_with_more_runs():
    lows = [delta_interval([1] * n, [0] * n)[0] for n in range(2, 30)]
    assert all(a < b for a, b in zip(lows, lows[1:], strict=False))
    assert lows[0] < 0 < lows[1]  # n = 2 spans 0, n = 3 does not


def test_levels():
    scores_with, scores_without = [1, 1, 0.5, 0], [0.5, 0, 0, 0.25]
    intervals = [delta_interval(scores_with, scores_without, level) for level in (0.5, 0.8, 0.9, 0.95, 0.99)]
    assert all(a[0] > b[0] and a[1] < b[1] for a, b in zip(intervals, intervals[1:], strict=False))
    # Only z changes: the half-width scales with it.
    low90, high90 = delta_interval(scores_with, scores_without, level=0.9)
    low95, high95 = delta_interval(scores_with, scores_without)
    assert (high90 - low90) / (high95 - low95) == pytest.approx(1.6448536269514722 / Z)
    with pytest.raises(ValueError, match="level"):
        delta_interval(scores_with, scores_without, level=95)
    with pytest.raises(ValueError, match="level"):
        delta_interval([1], [0], level=0)  # a bad level is refused even where there is no interval


def test_delta_interval_accepts_any_sequence():
    assert delta_interval((1.0, 0.5), (0.25, 0.25)) == delta_interval([1.0, 0.5], [0.25, 0.25])


# ---- pass@k and pass^k ---------------------------------------------------------------------------------------


def test_pass_at_k_and_pass_hat_k_examples():
    # 2 of 3 runs passed.
    assert [pass_at_k(3, 2, k) for k in (1, 2, 3)] == pytest.approx([2 / 3, 1.0, 1.0])
    assert [pass_hat_k(3, 2, k) for k in (1, 2, 3)] == pytest.approx([2 / 3, 1 / 3, 0.0])
    # 7 of 10: pass@3 = 1 − C(3, 3)/C(10, 3) = 1 − 1/120; pass^3 = C(7, 3)/C(10, 3) = 35/120.
    assert pass_at_k(10, 7, 3) == pytest.approx(1 - 1 / 120)
    assert pass_hat_k(10, 7, 3) == pytest.approx(35 / 120)


def test_pass_at_1_and_pass_hat_1_are_the_pass_rate():
    for n in range(1, 8):
        for c in range(n + 1):
            assert pass_at_k(n, c, 1) == pytest.approx(c / n) == pass_hat_k(n, c, 1)


def test_all_or_none_passed():
    for n, k in product(range(1, 8), range(1, 8)):
        if k <= n:
            assert (pass_at_k(n, 0, k), pass_hat_k(n, 0, k)) == (0.0, 0.0)
            assert (pass_at_k(n, n, k), pass_hat_k(n, n, k)) == (1.0, 1.0)


def test_k_beyond_the_runs_is_unknown():
    assert pass_at_k(3, 2, 4) is None and pass_hat_k(3, 2, 4) is None
    assert pass_at_k(0, 0, 1) is None and pass_hat_k(0, 0, 1) is None


def test_pass_k_estimates_are_monotonic_in_k():
    for n in range(1, 9):
        for c in range(n + 1):
            at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
            hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
            assert all(a <= b + 1e-15 for a, b in zip(at, at[1:], strict=False))
            assert all(a + 1e-15 >= b for a, b in zip(hat, hat[1:], strict=False))
            assert all(h <= a + 1e-15 for h, a in zip(hat, at, strict=True))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.73, 0.95])
def test_pass_k_estimates_are_unbiased(p):
    # Averaged over the binomial distribution of c, they give exactly 1 − (1 − p)^k and p^k.
    for n in (3, 5, 10):
        weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
        for k in range(1, n + 1):
            assert sum(w * pass_at_k(n, c, k) for c, w in enumerate(weights)) == pytest.approx(1 - (1 - p) ** k)
            assert sum(w * pass_hat_k(n, c, k) for c, w in enumerate(weights)) == pytest.approx(p**k)


@pytest.mark.parametrize("n, c, k", [(3, 4, 1), (3, -1, 1), (3, 1, 0), (-1, 0, 1)])
def test_pass_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


# ---- Wilson's interval for a fire rate -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (5, 5, 0.5655, 1.0),
        (0, 5, 0.0, 0.4345),
        (4, 5, 0.3755, 0.9638),
        (2, 3, 0.2077, 0.9385),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval_known_values(k, n, low, high):
    assert wilson_interval(k, n) == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_is_never_zero_width_at_all_or_nothing():
    low, high = wilson_interval(5, 5)
    assert high == 1.0 and low < 1.0
    low, high = wilson_interval(0, 5)
    assert low == 0.0 and high > 0.0


@pytest.mark.parametrize(("k", "n"), [(k, n) for n in (1, 3, 5, 10) for k in range(n + 1)])
def test_wilson_interval_is_symmetric_in_successes_and_failures(k, n):
    low, high = wilson_interval(k, n)
    mirror_low, mirror_high = wilson_interval(n - k, n)
    assert (low, high) == pytest.approx((1 - mirror_high, 1 - mirror_low), abs=1e-12)
    assert 0 <= low <= k / n + 1e-12 and k / n - 1e-12 <= high <= 1  # 10 of 10 reaches 1 only to rounding


def test_wilson_interval_of_no_trials_is_none():
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(("k", "n"), [(6, 5), (-1, 5)])
def test_wilson_interval_refuses_counts_outside_0_to_n(k, n):
    with pytest.raises(ValueError, match="successes must be between 0 and n"):
        wilson_interval(k, n)


def test_wilson_interval_widens_with_the_level():
    ninety, ninety_five, ninety_nine = (wilson_interval(4, 5, level) for level in (0.90, 0.95, 0.99))
    assert ninety[0] > ninety_five[0] > ninety_nine[0]
    assert ninety[1] < ninety_five[1] < ninety_nine[1]
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        wilson_interval(4, 5, 1.0)


# ---- median, and the intervals of the efficiency figures --------------------------------------------------


def test_median():
    assert median([]) is None
    assert median([3]) == 3
    assert median([5, 1, 4]) == 4
    assert median([4, 1, 3, 2]) == 2.5


def _holds_zero(interval) -> bool:
    return interval[0] <= 0 <= interval[1]


@pytest.mark.parametrize(("n", "m"), [(2, 3), (3, 3), (4, 5), (5, 5), (6, 7)])
def test_shift_interval_covers_no_shift_as_often_as_it_says(n, m):
    # With no shift every split of n + m distinct values into the arms is equally likely: the share of splits
    # whose interval holds 0 is the interval's exact coverage, which must be the level it reports (or more).
    values = list(range(n + m))
    splits = list(itertools.combinations(values, n))
    levels, held = set(), 0
    for chosen in splits:
        rest = [v for v in values if v not in chosen]
        found = shift_interval(list(chosen), rest)
        assert found is not None
        interval, level = found
        levels.add(level)
        held += _holds_zero(interval)
    [level] = levels
    assert held / len(splits) >= level - 1e-12
    assert level <= 0.95


def test_shift_interval_level_follows_the_number_of_runs():
    assert shift_interval([5, 6, 7], [3, 3, 4]) == ((1, 4), pytest.approx(0.9))  # 3 against 3: 90% at most
    assert shift_interval([5, 6], [3, 4]) is None  # 2 against 2: 67%, too low to say anything
    assert shift_interval([], [1, 2]) is None
    interval, level = shift_interval(list(range(10)), list(range(10)))
    assert (interval, level) == ((-3, 3), 0.95)  # the textbook critical U of 10 against 10 is 23: D(24), D(77)


def test_shift_interval_moves_with_a_shift_and_ignores_an_outlier():
    base = [3.0, 4.0, 5.0, 4.0, 3.0]
    shifted = [v + 10 for v in base]
    interval, _ = shift_interval(shifted, base)
    assert interval[0] > 0
    looping = [*shifted[:-1], 1000.0]  # one run that looped: the interval barely moves
    assert shift_interval(looping, base)[0][0] == interval[0]


@pytest.mark.parametrize("n", [4, 5, 6, 8, 10])
def test_median_interval_covers_a_zero_median_as_often_as_it_says(n):
    # Differences of distinct sizes whose signs are fair coins: every sign pattern is equally likely.
    patterns = list(product((-1, 1), repeat=n))
    held, levels = 0, set()
    for signs in patterns:
        interval, level = median_interval([s * (i + 1) for i, s in enumerate(signs)])
        levels.add(level)
        held += _holds_zero(interval)
    [level] = levels
    assert held / len(patterns) >= level - 1e-12


def test_median_interval_needs_enough_cases():
    assert median_interval([]) is None
    assert median_interval([1, 2, 3]) is None  # 75%
    assert median_interval([1, 2, 3, 4]) == ((1, 4), 0.875)
    assert median_interval(list(range(10))) == ((1, 8), 0.95)


@pytest.mark.parametrize(("n", "m"), [(3, 3), (3, 5), (5, 5)])
def test_shift_interval_stays_honest_with_ties(n, m):
    # Turns and tool calls are whole numbers, so the arms tie often: the closed interval then holds the true
    # shift at least as often as its level says (simulated: a shift of 2 on a few-valued figure).
    rng = random.Random(7)
    held = total = 0
    level = 0.0
    for _ in range(1500):
        without = [rng.choice([1, 1, 2, 3]) for _ in range(m)]
        with_ = [rng.choice([1, 1, 2, 3]) + 2 for _ in range(n)]
        found = shift_interval(with_, without)
        assert found is not None
        (low, high), level = found
        total += 1
        held += low <= 2 <= high
    assert held / total >= level


def test_median_interval_stays_honest_with_ties():
    rng = random.Random(7)
    held = 0
    for _ in range(1500):
        deltas = [rng.choice([-1, 0, 0, 1]) for _ in range(6)]  # a true median of 0, and many ties at it
        (low, high), level = median_interval(deltas)
        held += low <= 0 <= high
    assert held / 1500 >= level
