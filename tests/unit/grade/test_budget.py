"""Unit tests for the `budget` grader (grade/types/budget.py): its keys and their errors, what it reads of a run,
and its decision against absolute limits and limits relative to the without-plugin median."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.grade.base import registry
from pytest_plugin_eval.grade.types.budget import PENDING, BudgetGrader, decide, run_figures
from pytest_plugin_eval.load.graders import parse_grader
from pytest_plugin_eval.run.execute import AgentRun
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript


def parse(raw: dict):
    return BudgetGrader().parse(raw, "")


def error(raw: dict) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse(raw)
    return info.value


def trace(turns: int, calls: int) -> Transcript:
    events: list[dict[str, Any]] = [{"type": "system", "subtype": "init"}]
    for i in range(calls):
        events.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"m{i}",
                    "content": [{"type": "tool_use", "id": f"t{i}", "name": "Glob", "input": {}}],
                },
            }
        )
    usage = {"inputTokens": 100, "outputTokens": 20, "cacheReadInputTokens": 300, "cacheCreationInputTokens": 5}
    events.append({"type": "result", "num_turns": turns, "modelUsage": {"claude-sonnet-5": usage}})
    return Transcript("\n".join(json.dumps(e) for e in events))


def test_is_registered_and_free():
    kind = registry()["budget"]
    assert isinstance(kind, BudgetGrader) and kind.paid is False
    assert kind.keys == ("max_turns", "max_tool_calls", "max_tokens", "max_cost_usd", "max_seconds")


def test_parses_absolute_and_relative_limits_and_records_them_as_written():
    raw = {"max_turns": 8, "max_cost_usd": 0.25, "max_tool_calls": {"ratio": 1.5, "relative_to": "without"}}
    config = parse(raw)
    assert [(lim.key, lim.bound, lim.relative) for lim in config.limits] == [
        ("max_turns", 8, False),
        ("max_tool_calls", 1.5, True),
        ("max_cost_usd", 0.25, False),
    ]
    assert config.relative
    assert BudgetGrader().config_json(config) == raw


@pytest.mark.parametrize(
    ("raw", "key", "message"),
    [
        ({}, "max_turns", "a budget grader needs at least one limit: max_turns, max_tool_calls, max_tokens"),
        ({"max_turns": "8"}, "max_turns", "must be a number ≥ 0, or {ratio: 1.5, relative_to: without}"),
        ({"max_turns": -1}, "max_turns", "(got -1)"),
        ({"max_seconds": True}, "max_seconds", "(got a boolean)"),
        ({"max_turns": {"ratio": 2}}, "max_turns.relative_to", "must be `without`"),
        ({"max_turns": {"ratio": 2, "relative_to": "with"}}, "max_turns.relative_to", "got 'with'"),
        ({"max_turns": {"relative_to": "without"}}, "max_turns.ratio", "is required"),
        ({"max_turns": {"ratio": 0, "relative_to": "without"}}, "max_turns.ratio", "no run could pass"),
        ({"max_turns": {"ratio": 2, "relative_to": "without", "of": 1}}, "max_turns.of", ""),
    ],
)
def test_says_which_key_is_wrong_and_how_to_write_it(raw, key, message):
    e = error(raw)
    assert e.key == key and message in str(e)


def test_an_unknown_key_is_refused_by_the_case_loader():
    with pytest.raises(SpecError) as info:
        parse_grader({"type": "budget", "max_turn": 3}, "", "lean", "graders/lean.md", registry())
    assert info.value.key == "max_turn" and "max_turns" in str(info.value)  # did you mean


def test_reads_what_the_run_spent_from_its_trace(tmp_path: Path):
    figures = run_figures(RunOutput(trace(turns=4, calls=3), tmp_path))
    assert figures == {"turns": 4, "toolCalls": 3, "tokens": 425}  # a rebuilt run has no cost or time
    agent = AgentRun(trace(turns=4, calls=3), tmp_path, cost_usd=0.02, duration_seconds=7.5)
    assert run_figures(agent) == {"turns": 4, "toolCalls": 3, "tokens": 425, "costUsd": 0.02, "seconds": 7.5}


def test_absolute_limits_are_decided_at_once(tmp_path: Path):
    kind = BudgetGrader()
    run = AgentRun(trace(turns=4, calls=3), tmp_path, cost_usd=0.02, duration_seconds=7.5)
    verdict = kind.grade(parse({"max_turns": 5, "max_cost_usd": 0.01}), run)
    assert (verdict.passed, verdict.errored) == (False, False)
    assert verdict.explanation == "turns 4 ≤ 5 (max_turns); cost $0.0200 > $0.0100 (max_cost_usd)"
    assert kind.grade(parse({"max_seconds": 10}), run).explanation == "time 7.5 s ≤ 10.0 s (max_seconds)"


def test_relative_limits_wait_for_the_case_and_are_not_scored_meanwhile(tmp_path: Path):
    run = AgentRun(trace(turns=4, calls=3), tmp_path, cost_usd=0.02, duration_seconds=7.5)
    verdict = BudgetGrader().grade(parse({"max_turns": {"ratio": 2, "relative_to": "without"}}), run)
    assert verdict.errored and verdict.details == {PENDING: True}
    assert "decided once the case has them all" in verdict.explanation
    # an absolute limit already exceeded fails at once, whatever the relative ones will say
    failed = BudgetGrader().grade(
        parse({"max_turns": {"ratio": 2, "relative_to": "without"}, "max_tool_calls": 1}), run
    )
    assert (failed.passed, failed.errored) == (False, False)


def test_decides_a_relative_limit_on_the_without_median_and_says_what_it_compared():
    config = parse({"max_turns": {"ratio": 1.5, "relative_to": "without"}, "max_tokens": 1000})
    over = decide(config, {"turns": 10, "tokens": 500}, {"turns": 6}, 3)
    assert (over.passed, over.decided) == (False, True)
    assert over.explanation == (
        "turns 10 > 9 (1.5 × 6, the without-plugin median of 3 runs); tokens 500 ≤ 1,000 (max_tokens)"
    )
    within = decide(config, {"turns": 9, "tokens": 500}, {"turns": 6}, 1)
    assert within.passed and "the without-plugin median of 1 run)" in within.explanation
    big = decide(
        parse({"max_tokens": {"ratio": 1.5, "relative_to": "without"}}), {"tokens": 2_500_000}, {"tokens": 1_500_001}, 3
    )
    assert big.explanation == "tokens 2,500,000 > 2,250,001.5 (1.5 × 1,500,001, the without-plugin median of 3 runs)"


def test_cannot_decide_without_a_without_plugin_median():
    config = parse({"max_turns": {"ratio": 1.5, "relative_to": "without"}})
    alone = decide(config, {"turns": 3}, {}, 0)
    assert (alone.passed, alone.decided) == (False, False)
    assert alone.explanation == "not decided: no without-plugin run recorded its turns to compare with"
    unrecorded = decide(parse({"max_seconds": 5}), {"turns": 3}, {}, 0)
    assert unrecorded.explanation == "not decided: the run did not record its time"
