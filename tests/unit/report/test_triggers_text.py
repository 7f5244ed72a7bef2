"""Trigger results as text (pytest_plugin_eval.report.triggers): each query's verdict test, the table and the
summary line."""

from __future__ import annotations

from pytest_plugin_eval.report.triggers import summary_line, table, verdict_text
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult


def query(qid: str, should_fire: bool, *consulted: str | None, errored: int = 0) -> QueryResult:
    runs = [TriggerRun(i, name == "greeter:greet", name, "event", cost_usd=0.001) for i, name in enumerate(consulted)]
    runs += [TriggerRun(len(runs) + i, None, error="HTTP 500", error_kind="api") for i in range(errored)]
    return QueryResult(qid, f"the {qid} query", should_fire, runs)


def trigger_set(*queries: QueryResult) -> TriggerSetResult:
    return TriggerSetResult(
        "greeter:greet", "greet", "skill", "Greet.", "evals/triggers.yaml", "yaml", 0.5, 5, 5, queries=list(queries)
    )


GREET = "greeter:greet"


def test_a_query_decided_on_its_side_passes():
    q = query("hi", True, *[GREET] * 5)
    assert verdict_text(q, trigger_set(q)) == (
        "passed",
        "should fire: fires (5/5 runs fired greeter:greet, 95% CI [0.57, 1.00])",
    )


def test_a_should_fire_query_that_does_not_fire_fails_with_what_was_consulted():
    q = query("hi", True, *["greeter:farewell"] * 3, None, None)
    outcome, text = verdict_text(q, trigger_set(q))
    assert outcome == "failed"
    assert text.startswith("✗ should fire, but does not fire: 0/5 runs fired greeter:greet, 95% CI [0.00, 0.43]")
    assert "\n  the agent consulted: 3× greeter:farewell, 2× no skill\n" in text
    assert "description" in text


def test_a_should_fire_query_that_consulted_nothing_says_no_skill():
    q = query("hi", True, *[None] * 5)
    assert "the agent consulted: 5× no skill\n" in verdict_text(q, trigger_set(q))[1]


def test_a_sibling_whose_name_holds_none_is_named_as_it_is():
    q = query("hi", True, *["greeter:nonempty"] * 5)
    assert "5× greeter:nonempty" in verdict_text(q, trigger_set(q))[1]


def test_a_should_not_fire_query_that_fires_fails_with_the_fix():
    q = query("bye", False, *[GREET] * 5)
    outcome, text = verdict_text(q, trigger_set(q))
    assert outcome == "failed"
    assert text.startswith("✗ should not fire, but fires: 5/5 runs fired greeter:greet")
    assert "narrow it, or say when not to use the skill" in text


def test_an_undecided_query_is_skipped_with_a_hint_to_add_runs():
    q = query("hi", True, GREET, GREET, None)
    assert verdict_text(q, trigger_set(q)) == (
        "skipped",
        "undecided: 2/3 runs fired greeter:greet, 95% CI [0.21, 0.94] straddles 0.5 — add runs (--runs N) to decide it",
    )


def test_a_query_without_a_decided_run_is_skipped():
    q = query("hi", True, errored=3)
    assert verdict_text(q, trigger_set(q)) == ("skipped", "no run decided anything (3 errored)")


def test_the_table_marks_each_query_and_notes_what_else_took_it():
    fired, missed, near_miss, open_ = (
        query("hi", True, *[GREET] * 5),
        query("wave", True, *["greeter:farewell"] * 4, None),
        query("bye", False, *["greeter:farewell"] * 2, *[None] * 3),
        query("maybe", True, GREET, None, errored=1),
    )
    header, skill, *rows = table([trigger_set(fired, missed, near_miss, open_)])
    assert header.split() == ["LABEL", "QUERY", "FIRES", "95%", "CI", "VERDICT", "NOTES"]
    assert skill.startswith("greet (greeter:greet) · recall 2/3 ")
    assert [row.split()[0] for row in rows] == ["✓", "✗", "✓", "?"]
    assert rows[0].endswith("fires")
    assert rows[1].endswith("does not fire  took: 4× greeter:farewell, 1× none")
    assert rows[2].endswith("took: 2× greeter:farewell")  # runs that consulted nothing are right for should-not
    assert "straddles 0.5: add runs; took: 1× none; 1 errored (api)" in rows[3]


def test_no_sets_no_table():
    assert table([]) == []


def test_the_summary_line_counts_sets_queries_wrong_undecided_runs_and_cost():
    s = trigger_set(query("hi", True, *[GREET] * 5), query("bye", False, *[GREET] * 5), query("x", True, GREET))
    assert summary_line([s]) == "1 trigger set(s) · 3 queries · 1 wrong · 1 undecided · 11 run(s) · $0.0110"
    assert summary_line([trigger_set(query("hi", True))]).startswith("1 trigger set(s) · 1 query · 0 wrong")
