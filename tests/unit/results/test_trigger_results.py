"""Trigger results (pytest_plugin_eval.results.triggers): a query's verdict from the Wilson interval of its fire rate,
errored runs left out, a skill's recall, false-fire rate and precision, and the document round trip."""

from __future__ import annotations

import pytest
from helpers.documents import suite_result

from pytest_plugin_eval.results.model import SuiteResult
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult


def runs(fired: int, not_fired: int = 0, errored: int = 0, other: str | None = None) -> list[TriggerRun]:
    out = [TriggerRun(i, True, "greeter:greet", "Skill call") for i in range(fired)]
    out += [TriggerRun(len(out) + i, False, other, "finished") for i in range(not_fired)]
    out += [TriggerRun(len(out) + i, None, error="HTTP 500", error_kind="api") for i in range(errored)]
    return out


def query(fired: int, not_fired: int = 0, errored: int = 0, should_fire: bool = True, **kw) -> QueryResult:
    return QueryResult(f"q{fired}-{not_fired}", "say hi", should_fire, runs(fired, not_fired, errored, **kw))


def trigger_set(*queries: QueryResult, threshold: float = 0.5) -> TriggerSetResult:
    return TriggerSetResult(
        "greeter:greet",
        "greet",
        "skill",
        "Greet people.",
        "evals/triggers.yaml",
        "yaml",
        threshold,
        5,
        5,
        queries=list(queries),
    )


@pytest.mark.parametrize(
    ("fired", "not_fired", "verdict"),
    [
        (5, 0, "fires"),
        (4, 0, "fires"),
        (0, 5, "does_not_fire"),
        (4, 1, "undecided"),
        (3, 0, "undecided"),
        (0, 0, "no_runs"),
    ],
)
def test_the_verdict_is_which_side_of_the_threshold_the_interval_lies(fired, not_fired, verdict):
    assert query(fired, not_fired).verdict(0.5) == verdict


def test_a_higher_threshold_needs_more_evidence():
    assert query(5).verdict(0.5) == "fires"
    assert query(5).verdict(0.6) == "undecided"  # 5/5 → [0.57, 1]


def test_correct_is_the_verdict_on_the_side_the_label_asks_for():
    assert query(5).correct(0.5) is True
    assert query(0, 5).correct(0.5) is False
    assert query(0, 5, should_fire=False).correct(0.5) is True
    assert query(5, should_fire=False).correct(0.5) is False
    assert query(2, 2).correct(0.5) is None
    assert query(0, 0).correct(0.5) is None


def test_errored_runs_are_left_out_of_the_rate():
    q = query(4, 0, errored=3)
    assert (q.fires, len(q.decided), q.rate, len(q.errors)) == (4, 4, 1.0, 3)
    assert q.verdict(0.5) == "fires"
    assert query(0, 0, errored=5).verdict(0.5) == "no_runs"


def test_consulted_counts_what_each_decided_run_consulted():
    q = QueryResult("q", "bye", False, runs(2, 1, 1) + runs(0, 2, other="greeter:farewell"))
    assert q.consulted == {"greeter:greet": 2, "none": 1, "greeter:farewell": 2}


def test_recall_false_fire_rate_and_precision_count_queries_at_the_threshold():
    s = trigger_set(
        query(5),
        query(3, 2),
        query(1, 4),  # should fire: two of three at or above 0.5
        query(0, 5, should_fire=False),
        query(5, should_fire=False),  # should not: one fires
        query(0, 0, errored=2, should_fire=False),  # nothing measured: counted in neither
    )
    assert (s.recall.count, s.recall.of) == (2, 3)
    assert (s.false_fire_rate.count, s.false_fire_rate.of) == (1, 2)
    assert (s.precision.count, s.precision.of) == (2, 3)
    assert s.recall.value == pytest.approx(2 / 3)
    assert s.recall.interval == pytest.approx((0.2077, 0.9385), abs=5e-5)
    assert s.recall.to_json() == {"value": pytest.approx(2 / 3), "ci": list(s.recall.interval), "count": 2, "of": 3}


def test_a_rate_of_nothing_has_no_value_and_no_interval():
    s = trigger_set(query(0, 5))
    assert s.precision.to_json() == {"value": None, "ci": None, "count": 0, "of": 0}


def test_wrong_and_undecided_list_their_queries():
    right, wrong, undecided = query(5), query(0, 5), query(2, 2)
    s = trigger_set(right, wrong, undecided, query(0, 0))
    assert (s.wrong, s.undecided) == ([wrong], [undecided])


def test_a_set_result_survives_the_document_round_trip():
    run = TriggerRun(
        0,
        True,
        "greeter:greet",
        "Skill call",
        turns=2,
        cost_usd=0.01,
        duration_seconds=1.5,
        started_at="t0",
        attempts=2,
        trace_path="runs/0/trace.jsonl",
    )
    errored = TriggerRun(1, None, error="HTTP 500", error_kind="api")
    s = TriggerSetResult(
        "greeter:greet",
        "greet",
        "command",
        "Greet people.",
        "evals/x.triggers.yaml",
        "skill-creator",
        0.6,
        3,
        4,
        model="haiku",
        queries=[QueryResult("hi", "say hi", True, runs=[run, errored])],
    )
    data = s.to_json()
    assert TriggerSetResult.from_json(data) == s
    assert data["summary"]["erroredRuns"] == 1 and data["summary"]["costUsd"] == 0.01
    assert data["queries"][0]["verdict"] == "undecided" and data["queries"][0]["rateCI"] is not None


def test_a_document_carries_its_trigger_sets_and_leaves_the_key_out_without_any():
    s = trigger_set(query(5))
    document = suite_result()
    assert "triggers" not in document.to_json()
    document.triggers = [s]
    again = SuiteResult.from_json(document.to_json())
    assert again.triggers == [s]
    assert SuiteResult.from_json({**document.to_json(), "triggers": None}).triggers == []
