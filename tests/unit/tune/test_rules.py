"""The tuning loop's numbers: the split, the paired margin, the choice of a winner, the refusal of small sets."""

from __future__ import annotations

import pytest

from pytest_plugin_eval import stats
from pytest_plugin_eval.tune.rules import Labelled, SetTooSmall, choose, is_flat, paired, split


def labelled(fire: int, miss: int) -> list[Labelled]:
    return [Labelled(f"f{i}", True) for i in range(fire)] + [Labelled(f"m{i}", False) for i in range(miss)]


def test_split_is_stratified_disjoint_and_complete():
    s = split(labelled(12, 8), seed=3)
    parts = [s.train, s.validation, s.test]
    assert sorted(sum(map(list, parts), [])) == sorted(q.id for q in labelled(12, 8))
    for part in parts:
        assert any(q.startswith("f") for q in part) and any(q.startswith("m") for q in part)
    assert [sum(q.startswith("f") for q in p) for p in parts] == [6, 3, 3]
    assert [sum(q.startswith("m") for q in p) for p in parts] == [4, 2, 2]
    assert s.part_of(s.test[0]) == "test"


def test_split_is_seeded():
    assert split(labelled(10, 10), seed=1) == split(labelled(10, 10), seed=1)
    assert split(labelled(10, 10), seed=1) != split(labelled(10, 10), seed=2)


def test_too_small_set_is_refused_with_what_is_needed():
    with pytest.raises(SetTooSmall) as e:
        split(labelled(8, 1), skill="commit", file="evals/triggers.yaml")
    message = str(e.value)
    assert "commit's trigger set in evals/triggers.yaml" in message
    assert "1 should_not_fire (add 5)" in message and "should_fire (add" not in message
    assert "at least 6 queries of each label" in message


def test_smallest_honest_set_splits():
    s = split(labelled(6, 6))
    assert [len(s.train), len(s.validation), len(s.test)] == [4, 4, 4]


LABELS = {"a": True, "b": True, "c": False, "d": False}


def test_paired_margin_counts_near_misses_the_other_way():
    p = paired({"a": 1, "b": 1, "c": 0, "d": 0}, {"a": 0, "b": 0, "c": 1, "d": 1}, LABELS)
    assert p.margin == 1.0 and p.queries == 4


def test_uniform_gain_on_few_queries_is_not_certain():
    # a +0.2 on each of 4 queries: the pseudo-pairs keep the interval from being zero wide
    p = paired({q: 0.6 for q in "ab"} | {q: 0.4 for q in "cd"}, {q: 0.4 for q in "ab"} | {q: 0.6 for q in "cd"}, LABELS)
    assert p.margin == pytest.approx(0.2)
    assert p.interval[0] < 0 < p.interval[1] and not p.better


def test_large_gain_is_better():
    labels = {f"q{i}": i % 2 == 0 for i in range(8)}
    original = {q: (0.0 if labels[q] else 1.0) for q in labels}
    candidate = {q: (1.0 if labels[q] else 0.0) for q in labels}
    assert paired(candidate, original, labels).better


def test_choose_picks_the_largest_significant_margin():
    labels = {f"q{i}": i % 2 == 0 for i in range(8)}
    original = {q: (0.0 if labels[q] else 1.0) for q in labels}  # wrong on every query
    half = original | {"q0": 1.0, "q2": 1.0}
    full = {q: (1.0 if labels[q] else 0.0) for q in labels}
    choice = choose(original, [half, full, dict(full)], labels)
    assert choice.winner == 1 and choice.reason == "improved"
    assert not choice.comparisons[0].better


def test_choose_keeps_the_original_when_nothing_is_better():
    labels = {f"q{i}": i % 2 == 0 for i in range(8)}
    original = {q: 0.5 for q in labels}
    worse = {q: (0.0 if labels[q] else 1.0) for q in labels}
    choice = choose(original, [worse, dict(original)], labels)
    assert choice.winner is None and choice.reason == "nothing_better"
    assert "original stays" in choice.explanation


def test_choose_says_when_the_signal_is_flat():
    labels = {f"q{i}": i % 2 == 0 for i in range(8)}
    never = {q: 0.0 for q in labels}
    choice = choose(never, [dict(never), dict(never)], labels)
    assert choice.winner is None and choice.reason == "flat"
    assert is_flat([{q: 1.0 for q in labels}]) and not is_flat([never, {"q0": 1.0}])


def test_paired_needs_shared_queries():
    with pytest.raises(ValueError):
        paired({"a": 1.0}, {"b": 1.0}, LABELS)


def test_the_margin_interval_is_the_arms_paired_interval():
    # one paired interval in the package: tune's margins and --against/--ablate's Δs read the same differences alike
    p = paired({"a": 1, "b": 0.5, "c": 0, "d": 0.5}, {"a": 0, "b": 0.5, "c": 0, "d": 1}, LABELS)
    pairs = [(1.0, 0.0), (0.5, 0.5), (1.0, 1.0), (0.5, 0.0)]  # correctness: c and d are near-misses
    assert p.interval == stats.paired_interval(pairs)
