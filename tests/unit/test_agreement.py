"""Unit tests for the judge-against-labels statistics (pytest_plugin_eval.agreement), each against a table worked
out by hand: TPR/TNR with Wilson intervals, Cohen's κ, Rogan–Gladen's corrected rate and Δ with their
adjusted-Wald intervals — including no labels of a kind, all agreeing and all disagreeing."""

from __future__ import annotations

import math

import pytest

from pytest_plugin_eval.agreement import (
    Table,
    agreement,
    cohen_kappa,
    corrected_delta,
    corrected_rate,
    tnr,
    tnr_interval,
    tpr,
    tpr_interval,
    youden,
)

Z = 1.959963984540054


def test_a_table_counts_judge_against_person():
    table = Table()
    for person, judge in [(True, True), (True, False), (False, True), (False, False), (True, True)]:
        table = table.add(person, judge)
    assert table == Table(tp=2, fn=1, fp=1, tn=1)
    assert (table.n, table.positives, table.negatives) == (5, 3, 2)


def test_a_mixed_table():
    # person passed 10 (judge passed 8 of them), failed 10 (judge failed 7 of them)
    table = Table(tp=8, fn=2, fp=3, tn=7)
    assert tpr(table) == 0.8
    assert tnr(table) == 0.7
    assert agreement(table) == 0.75
    # p_o = 15/20; judge passes 11/20, person 10/20: p_e = .55 × .5 + .45 × .5 = .5; κ = (.75 − .5) / .5
    assert cohen_kappa(table) == pytest.approx(0.5)
    assert youden(table) == pytest.approx(0.5)
    low, high = tpr_interval(table)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)  # Wilson, 8 of 10
    low, high = tnr_interval(table)
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)  # Wilson, 7 of 10


def adjusted(x, n):
    """Agresti & Coull's adjusted proportion, and its variance."""
    p = (x + Z * Z / 2) / (n + Z * Z)
    return p, p * (1 - p) / (n + Z * Z)


def test_the_corrected_rate_by_hand():
    table = Table(tp=8, fn=2, fp=3, tn=7)
    # raw 14 of 20 = .7; θ = (.7 + .7 − 1) / .5 = .8
    found = corrected_rate(14, 20, table)
    assert found.value == pytest.approx(0.8)
    # centred on the adjusted raw rate, (p̃ + .7 − 1) / .5, with the adjusted variances of 14/20, 8/10 and 7/10
    p, var_p = adjusted(14, 20)
    half = Z * math.sqrt((var_p + 0.8**2 * adjusted(8, 10)[1] + 0.2**2 * adjusted(7, 10)[1]) / 0.25)
    centre = (p + 0.7 - 1) / 0.5
    assert found.low == pytest.approx(centre - half)
    assert round(found.low, 4) == 0.1902
    assert found.high == 1.0  # clipped


def test_a_lenient_judge_is_corrected_downwards():
    # the judge passes every run the person passed, and half of those the person failed: TPR 1, TNR .5
    table = Table(tp=10, fn=0, fp=5, tn=5)
    found = corrected_rate(15, 20, table)  # raw .75
    assert found.value == pytest.approx(0.5)  # (.75 + .5 − 1) / .5
    assert found.low < found.value < found.high


def test_the_corrected_delta_by_hand():
    table = Table(tp=8, fn=2, fp=3, tn=7)
    # raw with 14/20, without 6/20: Δ = (.7 − .3) / .5 = .8
    found = corrected_delta((14, 20), (6, 20), table)
    assert found.value == pytest.approx(0.8)
    (pw, vw), (po, vo) = adjusted(14, 20), adjusted(6, 20)
    half = Z * math.sqrt((vw + vo + 0.8**2 * (adjusted(8, 10)[1] + adjusted(7, 10)[1])) / 0.25)
    assert found.low == pytest.approx((pw - po) / 0.5 - half)
    assert round(found.low, 4) == -0.099
    assert found.high == 1.0


def test_an_interval_always_holds_its_estimate():
    table = Table(tp=20, fp=0, fn=0, tn=20)
    found = corrected_rate(20, 20, table)  # the adjusted centre is below 1; the estimate is 1
    assert found.value == 1.0 and found.high == 1.0 and found.low < 1.0


def test_a_lenient_judge_shrinks_delta_less_than_it_inflates_without():
    table = Table(tp=10, fn=0, fp=5, tn=5)
    raw_without = 12 / 20
    without = corrected_rate(12, 20, table)
    assert without.value < raw_without
    delta = corrected_delta((20, 20), (12, 20), table)
    assert delta.value == pytest.approx((1 - 0.6) / 0.5)


def test_all_agree():
    table = Table(tp=6, fn=0, fp=0, tn=4)
    assert (tpr(table), tnr(table), agreement(table), cohen_kappa(table)) == (1.0, 1.0, 1.0, 1.0)
    assert tpr_interval(table)[1] == 1.0 and tpr_interval(table)[0] < 1  # 6 of 6 is not known to be exactly 1
    found = corrected_rate(3, 10, table)
    assert found.value == pytest.approx(0.3)  # a perfect judge changes nothing…
    assert found.high - found.low > 0.3  # …but the interval still carries what ten labels cannot rule out


def test_all_disagree():
    table = Table(tp=0, fn=5, fp=5, tn=0)
    assert (tpr(table), tnr(table), agreement(table)) == (0.0, 0.0, 0.0)
    # p_e = .5 × .5 + .5 × .5 = .5; κ = (0 − .5) / .5
    assert cohen_kappa(table) == pytest.approx(-1.0)
    assert youden(table) == -1.0
    assert corrected_rate(5, 10, table) is None  # a judge worse than chance cannot be corrected for
    assert corrected_delta((5, 10), (2, 10), table) is None


def test_no_labels_of_a_kind():
    only_passes = Table(tp=4, fn=1)
    assert tpr(only_passes) == 0.8
    assert tnr(only_passes) is None and tnr_interval(only_passes) is None
    # judge passes .8, person 1: p_e = .8, p_o = .8: κ = 0
    assert cohen_kappa(only_passes) == pytest.approx(0.0)
    assert corrected_rate(4, 5, only_passes) is None  # TNR unknown: nothing to correct with
    only_failures = Table(fp=2, tn=2)
    assert tpr(only_failures) is None and tnr(only_failures) == 0.5


def test_no_labels_at_all():
    empty = Table()
    assert (tpr(empty), tnr(empty), agreement(empty), cohen_kappa(empty), youden(empty)) == (None,) * 5
    assert corrected_rate(3, 5, empty) is None


def test_one_verdict_from_both_raters_has_no_kappa():
    assert cohen_kappa(Table(tp=7)) is None  # p_e = 1: agreeing on one class tells no classes apart


def test_no_runs_have_no_rate():
    table = Table(tp=8, fn=2, fp=3, tn=7)
    assert corrected_rate(0, 0, table) is None
    assert corrected_delta((0, 0), (3, 10), table) is None
