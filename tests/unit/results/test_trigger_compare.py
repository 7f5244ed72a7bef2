"""Two sessions' trigger sets matched and compared (pytest_plugin_eval.results.trigger_compare)."""

from __future__ import annotations

from pytest_plugin_eval.results.trigger_compare import compare_triggers, matched_sets
from pytest_plugin_eval.results.triggers import (
    QueryResult,
    TriggerRun,
    TriggerSetResult,
    runs_to_decide,
    undecidable_notice,
)


def a_set(file: str, fired: int, skill: str = "p:greet") -> TriggerSetResult:
    runs = [TriggerRun(index=i + 1, fired=i < fired) for i in range(5)]
    return TriggerSetResult(
        skill=skill, name=skill.split(":")[1], file=file, queries=[QueryResult("q", "hi", True, runs)]
    )


def test_two_sets_of_one_skill_are_matched_by_file_and_each_compared():
    old = [a_set("evals/triggers.yaml", 5), a_set("skills/greet/trigger-eval.json", 5)]
    new = [a_set("evals/triggers.yaml", 5), a_set("skills/greet/trigger-eval.json", 0)]
    changes = compare_triggers(old, new)
    assert [(c.file, [q.verdict for q in c.queries]) for c in changes] == [
        ("evals/triggers.yaml", ["no_detectable_change"]),
        ("skills/greet/trigger-eval.json", ["worse"]),
    ]


def test_a_skills_only_set_moved_to_another_file_is_the_same_set():
    old, new = [a_set("evals/triggers.yaml", 5)], [a_set("evals/greet.triggers.yaml", 0)]
    assert matched_sets(old, new) == [(old[0], new[0])]
    two_new = [a_set("evals/greet.triggers.yaml", 0), a_set("skills/greet/trigger-eval.json", 0)]
    assert [(a is not None, b is not None) for a, b in matched_sets(old, two_new)] == [
        (False, True),
        (False, True),
        (True, False),
    ]


def test_the_fewest_runs_that_can_decide_a_query():
    assert runs_to_decide(0.5) == 4
    assert undecidable_notice("greet", 4, 0.5) is None
    assert "use runs: 4 or more" in (undecidable_notice("greet", 3, 0.5) or "")
