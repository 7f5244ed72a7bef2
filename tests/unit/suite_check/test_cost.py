"""The cost of a suite before and after its pilot (pytest_plugin_eval.suite_check.cost): pure arithmetic on list
prices."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.core.prices import Usage, price
from pytest_plugin_eval.results.store import parse_suites
from pytest_plugin_eval.suite_check.cost import (
    CaseShape,
    agent_run_cost,
    estimate,
    judge_call_cost,
    predict_from_pilot,
    round_up,
    user_call_cost,
)

SONNET = "claude-sonnet-4-6"  # $3 in, $15 out, $0.3 cache read, $3.75 cache write per million tokens
HAIKU = "claude-haiku-4-5"  # $1 in, $5 out


def test_one_run_is_max_turns_requests_the_first_writing_the_cache():
    # first: 2k fresh in, 20k cache write, 800 out; later ones read the 20k from the cache
    first = (2_000 * 3 + 20_000 * 3.75 + 800 * 15) / 1e6
    later = (2_000 * 3 + 20_000 * 0.3 + 800 * 15) / 1e6
    assert agent_run_cost(SONNET, 1) == pytest.approx(first)
    assert agent_run_cost(SONNET, 5) == pytest.approx(first + 4 * later)
    assert agent_run_cost(SONNET, 0) == agent_run_cost(SONNET, 1)


def test_a_judge_vote_and_an_unknown_model_priced_as_the_default():
    assert judge_call_cost(HAIKU) == pytest.approx((4_000 * 1 + 300 * 5) / 1e6)
    assert agent_run_cost("claude-unknown-9", 3) == agent_run_cost(None, 3)


def test_the_pilot_runs_each_case_once_per_arm_and_the_full_suite_runs_times():
    cases = [
        CaseShape("a", runs=3, max_turns=5, judged_graders=2, model=SONNET),
        CaseShape("b", runs=5, max_turns=10, judged_graders=0, arms=1, model=SONNET),
    ]
    run_a = agent_run_cost(SONNET, 5) + 2 * 3 * judge_call_cost(HAIKU)
    run_b = agent_run_cost(SONNET, 10)
    e = estimate(cases, HAIKU)
    assert e.pilot_bound == round_up(2 * run_a + run_b)
    assert e.full_bound == round_up(2 * 3 * run_a + 5 * run_b)
    assert (e.runs_in_pilot, e.judge_calls_in_pilot) == (3, 12)


def test_bounds_round_up_to_the_cent_and_never_to_zero():
    assert round_up(0.0) == 0.01
    assert round_up(0.0001) == 0.01
    assert round_up(1.231) == 1.24
    assert round_up(1.23) == 1.23  # not 1.24 from floating-point noise
    assert estimate([], HAIKU).pilot_bound == 0.01


def test_the_bound_is_above_what_a_typical_run_costs():
    """A two-request run (a skill call and the answer) on the bound's model stays well under it."""
    typical = price(SONNET, Usage(input_tokens=30_000, output_tokens=600))
    assert estimate([CaseShape("a", 3, 10, 0, arms=1, model=SONNET)], HAIKU).pilot_bound > typical


def test_the_full_suite_from_a_pilot_is_each_cases_cost_per_run_times_its_runs():
    pilot = {
        "cases": [
            {"name": "a", "runsPerCase": 3, "arms": {"with": [{"costUsd": 0.10}], "without": [{"costUsd": 0.04}]}},
            {"name": "b", "runsPerCase": 5, "arms": {"with": [{"costUsd": 0.02}, {"costUsd": 0.04}]}},
            {"name": "c", "arms": {"with": [{}], "without": []}},
        ]
    }
    p = predict_from_pilot(parse_suites(pilot, "pilot.json"))
    assert p.per_case == {"a": pytest.approx(0.42), "b": pytest.approx(0.15), "c": 0.0}
    assert p.total == pytest.approx(0.57) and p.pilot_cost == pytest.approx(0.20)
    # the suite's own runs win over the document's; cases the pilot did not run are named
    again = predict_from_pilot(parse_suites(pilot, "pilot.json"), {"a": 10, "b": 5, "d": 3})
    assert again.per_case["a"] == pytest.approx(1.4) and again.missing == ("d",)


def test_a_model_matrixs_pilot_adds_up_its_models():
    one = {"cases": [{"name": "a", "runsPerCase": 3, "arms": {"with": [{"costUsd": 0.10}]}}]}
    other = {"cases": [{"name": "a", "runsPerCase": 3, "arms": {"with": [{"costUsd": 0.30}]}}]}
    p = predict_from_pilot(parse_suites({"suites": [one, other]}, "pilot.json"))
    assert p.per_case == {"a": pytest.approx(1.2)} and p.pilot_cost == pytest.approx(0.4)


def test_a_simulated_user_costs_up_to_max_user_turns_calls_at_its_models_price():
    talks = CaseShape("talks", runs=3, max_turns=5, judged_graders=1, model=SONNET, user_turns=4, user_model=SONNET)
    silent = CaseShape("talks", runs=3, max_turns=5, judged_graders=1, model=SONNET)
    reply = (8_000 * 3 + 300 * 15) / 1e6  # one user reply on sonnet
    assert user_call_cost(SONNET) == pytest.approx(reply)
    e, plain = estimate([talks], HAIKU), estimate([silent], HAIKU)
    assert e.pilot_bound == round_up(2 * (agent_run_cost(SONNET, 5) + 3 * judge_call_cost(HAIKU) + 4 * reply))
    assert e.full_bound > plain.full_bound
    assert (e.user_calls_in_pilot, plain.user_calls_in_pilot) == (8, 0)
    # no `user.model`: the judge model writes the replies, at its price
    by_judge = estimate([CaseShape("t", 3, 5, 0, arms=1, model=SONNET, user_turns=2)], HAIKU)
    assert by_judge.pilot_bound == round_up(agent_run_cost(SONNET, 5) + 2 * user_call_cost(HAIKU))
