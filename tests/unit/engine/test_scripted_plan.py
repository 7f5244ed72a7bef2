"""What a scripted trigger session says of its time before it starts (pytest_plugin_eval.engine.scripted_plan)."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_plugin_eval.engine.scripted_plan import scripted_trigger_lines


def runs(queries: int, per_query: int) -> list[SimpleNamespace]:
    trigger_set = SimpleNamespace(file="evals/triggers.yaml", name="greet")
    return [
        SimpleNamespace(trigger_set=trigger_set, query=SimpleNamespace(id=f"q{q}"), model=None)
        for q in range(queries)
        for _ in range(per_query)
    ]


def test_the_time_is_said_with_its_arithmetic_and_the_faster_check():
    [line] = scripted_trigger_lines(runs(20, 5), at_once=2, runs_given=False)
    assert line == (
        "plugin-eval: --scripted: 100 trigger runs (20 queries × 5 runs) ≈ 100 ÷ 2 at once × ~2.75 s a run ≈ 2 min; "
        "a query's scripted answer repeats run after run, so `--runs 1` checks the plumbing in 1/5 of the time "
        "(a real model needs the runs to decide)"
    )


def test_runs_asked_for_are_not_second_guessed_and_a_short_session_says_nothing():
    [line] = scripted_trigger_lines(runs(20, 5), at_once=1, runs_given=True)
    assert line.endswith("≈ 5 min")
    assert scripted_trigger_lines(runs(4, 5), at_once=1, runs_given=False) == []  # 55 s
    assert scripted_trigger_lines([SimpleNamespace(case="not a trigger run")] * 99, 1, False) == []
