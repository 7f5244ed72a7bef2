"""The arms beyond with and without, read against the with arm run by run: per case and for the suite."""

from __future__ import annotations

import pytest

from pytest_plugin_eval import stats
from pytest_plugin_eval.core.kinds import ablated
from pytest_plugin_eval.results.arms import ranking, scored_pairs, suite_marginal
from pytest_plugin_eval.results.model import CaseResult, RunResult, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.scoring import aggregate, suite_aggregates


def runs(arm, *scores):
    return [RunResult(arm, i, score=s, passed=s == 1.0) for i, s in enumerate(scores, 1)]


def case(name="c", **arms) -> CaseResult:
    found = CaseResult(name, name, "prose", "p", 3, 60, 5, graders=[], runs_per_arm=3)
    found.arms = {arm.replace("_", ":"): list(r) for arm, r in arms.items()}  # type: ignore[misc]
    return aggregate(found)


def test_an_unchanged_version_gives_delta_zero_with_an_interval_around_it():
    c = case(
        **{"with": runs("with", 1, 1, 1), "without": runs("without", 0, 0, 0), "against": runs("against", 1, 1, 1)}
    )
    against = c.aggregates.delta_against
    assert (against.score, against.delta, against.pairs) == (1.0, 0.0, 3)
    low, high = against.delta_ci
    assert low < 0 < high and low == pytest.approx(-high)
    assert not against.worse and not against.better


def test_pairs_are_runs_of_one_index_both_arms_scored():
    with_runs = runs("with", 1, None, 0.5)
    other = [RunResult("against", 3, score=0.0, passed=False), RunResult("against", 2, score=1.0, passed=True)]
    assert scored_pairs(with_runs, other) == [(0.5, 0.0)]


def test_a_worse_edit_has_an_interval_below_zero():
    c = case(**{"with": runs("with", *[0] * 8), "against": runs("against", *[1] * 8)})
    assert c.aggregates.delta_against.delta == -1.0 and c.aggregates.delta_against.worse


def test_arms_are_written_with_without_against_then_ablations():
    c = case(**{"ablate_b": runs("x", 1), "against": runs("x", 1), "with": runs("with", 1), "ablate_a": runs("x", 1)})
    assert list(c.arms) == ["with", "against", "ablate:a", "ablate:b"]


def test_ablations_rank_the_component_whose_removal_cost_most_first():
    one = case("one", **{"with": runs("with", 1, 1), "ablate_hooks": runs("x", 1, 1), "ablate_review": runs("x", 0, 0)})
    two = case("two", **{"with": runs("with", 1, 1), "ablate_review": runs("x", 1, 0)})
    assert set(one.aggregates.ablations) == {"hooks", "review"}
    assert one.aggregates.ablations["review"].delta == 1.0
    ranked = ranking([one, two])
    assert [(m.component, m.cases, m.pairs) for m in ranked] == [("review", 2, 4), ("hooks", 1, 2)]
    assert ranked[0].delta == pytest.approx((1.0 + 0.5) / 2)
    assert ranked[0].delta_ci == stats.paired_interval([(1, 0), (1, 0), (1, 1), (1, 0)])
    suite = suite_aggregates([one, two], 1.0)
    assert [m.component for m in suite.ablations] == ["review", "hooks"] and suite.delta_against is None
    assert suite_marginal([one], ablated("none")) is None


def test_the_new_keys_read_back():
    c = case(**{"with": runs("with", 1, 0), "against": runs("against", 0, 0), "ablate_s": runs("x", 1, 1)})
    document = SuiteResult("v", "", 0, SuiteInfo("", "with-without"), [c], suite_aggregates([c], 1.0))
    data = document.to_json()
    assert set(data["cases"][0]["arms"]) == {"with", "against", "ablate:s"}
    assert data["cases"][0]["aggregates"]["deltaAgainst"]["delta"] == 0.5
    assert data["aggregates"]["ablations"][0]["component"] == "s"
    again = CaseResult.from_json(data["cases"][0])
    assert again.aggregates.ablations["s"].delta == -0.5 and again.runs("ablate:s")[1].index == 2


def test_paired_interval_needs_two_pairs():
    assert stats.paired_interval([(1, 0)]) is None
    low, high = stats.paired_interval([(1, 1)] * 3)
    assert high == pytest.approx(0.62, abs=0.01) and low == -high


def test_a_trigger_sets_cost_holds_the_other_versions_runs():
    from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult

    runs = [TriggerRun(1, True, cost_usd=0.25)]
    query = QueryResult("q", "hi", True, runs=runs, against_runs=[TriggerRun(1, False, cost_usd=0.5)])
    trigger_set = TriggerSetResult("p:s", "s", queries=[query])
    assert trigger_set.cost_usd == 0.75 and len(trigger_set.runs) == 1
    assert query.then is not None and (query.then.fires, query.fires) == (0, 1)
