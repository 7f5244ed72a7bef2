"""Unit tests for the statistics of run scores (pytest_plugin_eval.stats): mean, sample standard deviation, the
t quantiles and Welch's interval for Δ."""

from __future__ import annotations

import math

import pytest

from pytest_plugin_eval import stats
from pytest_plugin_eval.stats import delta_interval, mean, stdev, t95

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


# ---- t quantiles ---------------------------------------------------------------------------------------------


def test_t_quantiles():
    assert t95(1) == 12.706 and t95(2) == 4.303 and t95(11) == 2.228 and t95(35) == 2.042 and t95(5000) == 1.96


def test_t_quantiles_between_and_below_table_entries():
    # Degrees of freedom between two entries use the smaller one (a wider, conservative interval).
    assert t95(13) == t95(12) == 2.179
    assert t95(119) == t95(60) == 2.000
    assert t95(120) == t95(999) == 1.980
    assert t95(1000) == 1.960
    # Below one degree of freedom the table's first entry stands.
    assert t95(0.5) == t95(0) == 12.706
    assert all(stats.T95[a] > stats.T95[b] for a, b in zip(sorted(stats.T95), sorted(stats.T95)[1:], strict=False))


# ---- delta_interval ------------------------------------------------------------------------------------------


def test_delta_interval_welch_two_runs_each():
    # sd 0.3536 and 0 over 2 runs each: the without arm adds no variance, df = 1 → 0.5 ± 12.706 × 0.25
    low, high = delta_interval([1, 0.5], [0.25, 0.25])
    assert (low, high) == pytest.approx((0.5 - 12.706 * 0.25, 0.5 + 12.706 * 0.25))


def test_delta_interval_n2_both_arms_spread():
    # Equal spread in both arms: va = vb = 0.125/2, df = (2v)² / (2v²) = 2 → t = 4.303, se = sqrt(0.125) = 0.3536
    low, high = delta_interval([1, 0.5], [0.5, 0])
    se = math.sqrt(0.125 / 2 + 0.125 / 2)
    assert (low, high) == pytest.approx((0.5 - 4.303 * se, 0.5 + 4.303 * se))
    assert low < 0 < high


def test_delta_interval_three_runs():
    # +0.33 on three runs (1, 0, 0 against 0, 0, 0): df = 2, se = sqrt(1/9) = 1/3 → 1/3 ± 4.303/3
    low, high = delta_interval([1, 0, 0], [0, 0, 0])
    assert (low, high) == pytest.approx((1 / 3 - 4.303 / 3, 1 / 3 + 4.303 / 3))
    assert low < 0 < high


def test_delta_interval_zero_spread_is_zero_width():
    assert delta_interval([1, 1, 1], [0, 0, 0]) == (1.0, 1.0)
    assert delta_interval([0.5, 0.5], [0.5, 0.5]) == (0.0, 0.0)
    assert delta_interval([0.25, 0.25], [0.75, 0.75]) == (-0.5, -0.5)


def test_delta_interval_needs_two_scores_in_each_arm():
    assert delta_interval([], []) is None
    assert delta_interval([1, 0.5], []) is None
    assert delta_interval([], [1, 0.5]) is None
    assert delta_interval([1], [0]) is None
    assert delta_interval([1, 0.5, 0], [0]) is None
    assert delta_interval([1], [0, 0.5, 1]) is None


def test_delta_interval_is_symmetric_about_delta_and_antisymmetric_in_the_arms():
    with_scores, without_scores = [1, 0.75, 0.5, 1], [0.25, 0.5, 0, 0.5]
    low, high = delta_interval(with_scores, without_scores)
    delta = mean(with_scores) - mean(without_scores)
    assert (low + high) / 2 == pytest.approx(delta)
    back = delta_interval(without_scores, with_scores)
    assert back == pytest.approx((-high, -low))


def test_delta_interval_accepts_any_sequence():
    assert delta_interval((1.0, 0.5), (0.25, 0.25)) == pytest.approx(delta_interval([1.0, 0.5], [0.25, 0.25]))


def test_delta_interval_only_95_percent():
    assert delta_interval([1, 0], [0, 1], level=0.95) is not None
    with pytest.raises(ValueError, match="0.95"):
        delta_interval([1, 0], [0, 1], level=0.9)
