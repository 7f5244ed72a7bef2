"""Unit tests for what the plugin costs per task (results/efficiency.py): which runs count, each arm's medians,
with − without and its interval per case and for the suite; and the budget graders settled on all of a case's runs
(results/budget.py) when the case is aggregated (results/scoring.py)."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.results.efficiency import Efficiency, Tokens, case_efficiency, suite_efficiency
from pytest_plugin_eval.results.model import CaseResult, GraderInfo, GraderResult, RunResult
from pytest_plugin_eval.results.scoring import aggregate, suite_aggregates


def measured(arm: str, index: int, turns: int, *, calls: int = 0, cost: float = 0.01, **kw) -> RunResult:
    return RunResult(
        arm,
        index,
        score=1.0,
        passed=True,
        turns=turns,
        cost_usd=cost,
        tool_calls=calls,
        tokens=Tokens(100 * turns, 10 * turns, 0, 0),
        agent_seconds=2.0 * turns,
        **kw,
    )


# ---- which runs count ------------------------------------------------------------------------------------


def test_a_run_gives_its_figures():
    run = measured("with", 1, 4, calls=3, cost=0.05, judge_cost_usd=0.01)
    assert run.figures == {
        "turns": 4,
        "toolCalls": 3,
        "tokens": 440,
        "inputTokens": 400,
        "outputTokens": 40,
        "cacheReadTokens": 0,
        "cacheCreationTokens": 0,
        "costUsd": pytest.approx(0.04),  # the agent's: the judges' cost is not what the plugin costs per task
        "seconds": 8.0,
    }


def test_runs_that_say_nothing_of_the_cost_are_not_counted():
    assert RunResult("with", 1, score=1.0, passed=True, turns=3).figures is None  # recorded before figures were
    for kind in ("api", "auth", "start", "interrupted", "worker_lost", "scaffold", "tool_refused"):
        assert measured("with", 1, 3, error_kind=kind).figures is None
    assert measured("with", 1, 3, error_kind="timeout").figures is not None  # what a timed-out run spent counts


def test_a_reused_without_run_cost_what_its_agent_cost_where_it_was_made():
    run = measured("without", 1, 2, cost=0.003, judge_cost_usd=0.003, reused_from={"agentCostUsd": 0.02})
    assert run.figures["costUsd"] == 0.02


# ---- a case ------------------------------------------------------------------------------------------------


def test_a_case_has_each_arms_median_and_the_shift_with_its_interval():
    efficiency = case_efficiency(
        {
            "with": [measured("with", i, t).figures for i, t in enumerate([4, 5, 40], 1)],
            "without": [measured("without", i, t).figures for i, t in enumerate([1, 2, 1], 1)],
        }
    )
    assert efficiency is not None
    turns = efficiency.turns.to_json()
    # the run that looped for 40 turns moves no median
    assert turns == {
        "medians": {"with": 5, "without": 1},
        "runs": {"with": 3, "without": 3},
        "delta": 4,
        "deltaCI": [2, 39],
        "ciLevel": pytest.approx(0.9),
    }
    assert list(efficiency.to_json())[:3] == ["turns", "toolCalls", "tokens"]


def test_one_arm_has_medians_only_and_no_runs_no_efficiency():
    efficiency = case_efficiency({"with": [measured("with", 1, 3).figures]})
    assert efficiency.turns.to_json() == {"medians": {"with": 3}, "runs": {"with": 1}}
    assert case_efficiency({"with": [], "without": []}) is None


def test_a_figure_no_run_measured_is_left_out():
    figures = measured("with", 1, 3).figures
    del figures["seconds"]
    assert case_efficiency({"with": [figures]}).seconds is None


# ---- the suite ------------------------------------------------------------------------------------------------


def figures(arm: str, turns: list[int]) -> list[dict[str, float]]:
    return [f for i, t in enumerate(turns, 1) if (f := measured(arm, i, t).figures) is not None]


def case_of(with_turns: list[int], without_turns: list[int]) -> Efficiency:
    made = case_efficiency({"with": figures("with", with_turns), "without": figures("without", without_turns)})
    assert made is not None
    return made


def test_the_suite_takes_the_median_case_and_the_median_of_the_cases_deltas():
    cases = [case_of([4], [1]), case_of([6], [2]), case_of([3], [3]), case_of([10], [5]), case_of([2], [1])]
    turns = suite_efficiency(cases).turns.to_json()
    # Δs 3, 4, 0, 5, 1 → median 3; 5 cases give the sign test's 94% interval from the smallest to the largest
    assert turns == {
        "medians": {"with": 4, "without": 2},
        "cases": 5,
        "delta": 3,
        "deltaCI": [0, 5],
        "ciLevel": pytest.approx(0.9375),
    }
    assert suite_efficiency([None, None]) is None


def test_suite_aggregates_carry_the_efficiency():
    one = aggregate(CaseResult("a", "a", "", "p", 1, 60, 5, [], 1, arms={"with": [measured("with", 1, 3)]}))
    assert suite_aggregates([one], 1.0).efficiency.turns.medians == {"with": 3}
    assert "efficiency" not in suite_aggregates([], 1.0).to_json()


# ---- budget graders, settled on all of a case's runs ---------------------------------------------------------


def budget_case(limit: dict, with_turns: list[int], without_turns: list[int] | None) -> CaseResult:
    def run(arm: str, index: int, turns: int) -> RunResult:
        graders = [
            GraderResult("ok", True, 1, "fine"),
            GraderResult("lean", False, 1, "pending", errored=True, extra={"pending": True}),
        ]
        return measured(arm, index, turns, graders=graders)

    arms = {"with": [run("with", i, t) for i, t in enumerate(with_turns, 1)]}
    if without_turns is not None:
        arms["without"] = [run("without", i, t) for i, t in enumerate(without_turns, 1)]
    info = [GraderInfo("ok", "regex", 1, {}), GraderInfo("lean", "budget", 1, limit)]
    return CaseResult("c", "c", "", "p", 3, 60, 10, info, 3, arms=arms)


RELATIVE = {"max_turns": {"ratio": 2, "relative_to": "without"}}


def test_a_relative_budget_is_decided_on_the_without_arm_and_the_runs_rescored():
    case = aggregate(budget_case(RELATIVE, [4, 5, 2], [2, 1, 2]))
    lean = [next(g for g in r.graders if g.name == "lean") for r in case.runs("with")]
    assert [g.passed for g in lean] == [True, False, True]
    assert {(g.scored, g.errored) for g in lean} == {(True, False)}
    assert "pending" not in lean[0].to_json()  # the run's line said it waited; the document has the verdict
    assert lean[0].explanation == "turns 4 ≤ 4 (2 × 2, the without-plugin median of 3 runs)"
    assert lean[1].explanation == "turns 5 > 4 (2 × 2, the without-plugin median of 3 runs)"
    assert [r.score for r in case.runs("with")] == [1.0, 0.5, 1.0]
    assert [r.passed for r in case.runs("with")] == [True, False, True]
    assert case.aggregates.score == pytest.approx(2.5 / 3)
    assert case.aggregates.score_without == 1.0  # every without run is within twice its arm's median


def test_settling_again_changes_nothing():
    case = aggregate(budget_case(RELATIVE, [4, 5, 2], [2, 1, 2]))
    again = aggregate(CaseResult.from_json(case.to_json()))
    assert again.to_json() == case.to_json()


def test_a_relative_budget_without_a_without_arm_is_reported_and_not_scored():
    case = aggregate(budget_case(RELATIVE, [4], None))
    [run] = case.runs("with")
    lean = next(g for g in run.graders if g.name == "lean")
    assert (lean.passed, lean.scored, lean.errored) == (False, False, False)
    assert lean.explanation == "not decided: no without-plugin run recorded its turns to compare with"
    assert run.score == 1.0  # only "ok" counts


def test_an_absolute_budget_is_settled_from_the_record_too():
    case = aggregate(budget_case({"max_tool_calls": 0, "max_seconds": 5}, [3], [1]))
    lean = next(g for g in case.runs("with")[0].graders if g.name == "lean")
    assert lean.explanation == "tool calls 0 ≤ 0 (max_tool_calls); time 6.0 s > 5.0 s (max_seconds)"
    assert case.runs("without")[0].score == 1.0  # 2 s


def test_an_ungraded_run_is_not_rescored():
    case = budget_case(RELATIVE, [4], [1])
    case.arms["with"][0].score = None
    case.arms["with"][0].error_kind = "tool_refused"
    assert aggregate(case).runs("with")[0].score is None
