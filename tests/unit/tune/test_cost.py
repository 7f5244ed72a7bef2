"""The tuning loop's estimate: runs counted from the split, the rounds and the candidates; priced per run."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.suite_check.cost import agent_run_cost
from pytest_plugin_eval.tune.cost import PROPOSER_TRIES, TuneShape, estimate


def test_runs_and_calls():
    shape = TuneShape(train=10, validation=5, test=5, runs=3, max_turns=5, rounds=2, candidates=3, sibling_queries=4)
    e = estimate(shape)
    # (original + 6 candidates) × 15 queries + original and winner on 5 test queries + 4 sibling queries
    assert e.agent_runs == (7 * 15 + 10 + 4) * 3
    assert e.proposer_calls == 6 * PROPOSER_TRIES
    assert e.cost_usd > e.agent_runs * agent_run_cost(None, 5)


def test_cost_grows_with_rounds():
    small = estimate(TuneShape(4, 4, 4, 5, 5, rounds=1, candidates=2))
    large = estimate(TuneShape(4, 4, 4, 5, 5, rounds=3, candidates=2))
    assert large.cost_usd > small.cost_usd
    assert large.agent_runs - small.agent_runs == 2 * 2 * 8 * 5
    assert small.cost_usd == pytest.approx(estimate(TuneShape(4, 4, 4, 5, 5, rounds=1, candidates=2)).cost_usd)


def test_the_estimate_shows_its_arithmetic():
    """Issue 34 item 21: "$91 for one skill" needs the arithmetic shown, so it can be checked and scaled."""
    shape = TuneShape(train=10, validation=5, test=5, runs=3, max_turns=5, rounds=2, candidates=3, sibling_queries=4)
    e = estimate(shape)
    per_run, calls = agent_run_cost(None, 5), 6 * PROPOSER_TRIES
    per_call = (e.cost_usd - e.agent_runs * per_run) / calls
    assert e.arithmetic == (
        f"runs = (7 descriptions × 15 train+validation queries + 2 × 5 test + 4 sibling) × 3 runs = 357; "
        f"cost = 357 runs × ${per_run:.4f} + {calls} proposer calls × ${per_call:.4f} = ${e.cost_usd:.2f} — a "
        "ceiling: each run priced at 5 requests (max_turns), where a trigger run stops at the call that decides it"
    )
