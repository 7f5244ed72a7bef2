"""Shards' documents into one: results.merge and the exit status a document stands for."""

from __future__ import annotations

import pytest
from helpers.documents import case_of

from pytest_plugin_eval.analysis.merge import MergeError, merge, merge_shards
from pytest_plugin_eval.results.findings import Finding
from pytest_plugin_eval.results.model import (
    CaseResult,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteAggregates,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.scoring import aggregate, document_exit_status, suite_aggregates
from pytest_plugin_eval.results.store import RESULTS_FILE, write_json
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult


def case(name: str, *scores: float) -> CaseResult:
    runs = [RunResult("with", i, score=s, passed=s == 1.0, cost_usd=0.5) for i, s in enumerate(scores, 1)]
    return case_of(*runs, name=name, graders=(), prompt="p")


def document(*cases: CaseResult, shard: str = "1/2", threshold: float = 0.5, **more) -> SuiteResult:
    suite = SuiteInfo(
        root="/p", ablation="none", threshold=threshold, shard=shard, plugins=[PluginInfo("greeter", "/p")]
    )
    return SuiteResult(
        claude_version="2.1.327",
        started_at=more.pop("started_at", "2026-11-30T10:00:00.000Z"),
        duration_seconds=more.pop("duration", 10),
        suite=suite,
        cases=list(cases),
        aggregates=suite_aggregates(cases, threshold),
        cost_usd=sum(c.cost_usd for c in cases),
        **more,
    )


def test_the_shares_become_one_suite():
    one = document(
        case("b", 1.0, 0.0),
        started_at="2026-11-30T10:00:05.000Z",
        duration=30,
        notices=["--shard 1/2: 1 of 2 case(s)", "a notice"],
    )
    two = document(
        case("a", 1.0, 1.0),
        shard="2/2",
        duration=20,
        notices=["a notice"],
        skipped_runs=[SkippedRun("a", "evals/a", "with", 3, "cost_ceiling")],
    )
    merged = merge([one, two], ["s1", "s2"])
    assert [c.name for c in merged.cases] == ["a", "b"]
    assert merged.suite.shard is None and merged.suite.merged_from == ["s1", "s2"]
    assert merged.started_at == "2026-11-30T10:00:00.000Z" and merged.duration_seconds == 30
    assert merged.cost_usd == 2.0
    assert merged.aggregates == SuiteAggregates(
        cases_total=2, cases_passed=2, overall_score=0.75, overall_pass_rate=0.75
    )
    assert merged.notices == ["a notice"] and len(merged.skipped_runs) == 1


def test_a_partial_shard_makes_the_whole_partial_and_load_errors_count_once():
    error = LoadErrorEntry("x", "evals/x", "bad")
    one = document(case("a", 1.0), load_errors=[error])
    two = document(case("b", 1.0), shard="2/2", load_errors=[error], partial=True, partial_reason="api_error")
    merged = merge([one, two])
    assert merged.partial and merged.partial_reason == "api_error" and merged.load_errors == [error]
    assert document_exit_status(merged) == 2


def test_every_shards_findings_are_kept():
    mine = Finding("a", kind="no-delta-possible", message="m", fix="f")
    theirs = Finding("b", grader="g", kind="grader-always-fails", message="m", fix="f")
    merged = merge(
        [document(case("a", 1.0), findings=[mine]), document(case("b", 1.0), shard="2/2", findings=[theirs])]
    )
    assert merged.findings == [mine, theirs]


def test_a_case_in_two_shards_is_refused():
    with pytest.raises(MergeError, match="is in both s1 and s2"):
        merge([document(case("a", 1.0)), document(case("a", 1.0))], ["s1", "s2"])


def test_other_plugins_are_refused_and_nothing_is_nothing():
    other = document(case("b", 1.0))
    other.suite.plugins = [PluginInfo("other", "/o")]
    with pytest.raises(MergeError, match="different plugins"):
        merge([document(case("a", 1.0)), other])
    with pytest.raises(MergeError, match="nothing to merge"):
        merge([])


@pytest.mark.parametrize(("scores", "status"), [((1.0,), 0), ((0.0,), 1)])
def test_the_exit_status_of_a_document(scores, status):
    assert document_exit_status(document(case("a", *scores))) == status
    assert document_exit_status(document()) == 1  # no case at all
    assert document_exit_status(document(case("a", 1.0), partial=True, partial_reason="interrupted")) == 130


def test_a_case_with_no_with_plugin_run_selected_fails_nothing():
    baseline_only = case("a")  # `-k no-plugin`: the case ran its without arm only
    baseline_only.arms = {"with": [], "without": [RunResult("without", 1, score=0.0, passed=False)]}
    assert document_exit_status(document(aggregate(baseline_only))) == 0
    errored = case("b")
    errored.arms = {"with": [RunResult("with", 1, score=None, passed=False, error_kind="start")]}
    assert document_exit_status(document(aggregate(errored))) == 1  # a with-plugin run that could not start


def test_a_trigger_set_whose_queries_the_shards_split_is_one_set_again():
    def trigger_set(*ids: str) -> TriggerSetResult:
        queries = [QueryResult(i, f"query {i}", True, runs=[TriggerRun(1, True, "greeter:greet")]) for i in ids]
        return TriggerSetResult("greeter:greet", "greet", file="evals/triggers.yaml", queries=queries)

    merged = merge(
        [document(triggers=[trigger_set("a", "c")]), document(shard="2/2", triggers=[trigger_set("b")])], ["1", "2"]
    )
    [only] = merged.triggers
    assert [q.id for q in only.queries] == ["a", "c", "b"]
    assert merge([document(case("x", 1.0))], ["1"]).triggers == []


def test_shards_are_read_from_their_folders_or_files_then_merged(tmp_path):
    one, two = tmp_path / "shard-1", tmp_path / "shard-2"
    one.mkdir()
    write_json(one / RESULTS_FILE, document(case("a", 1.0)).to_json())
    write_json(tmp_path / "two.json", document(case("b", 0.0), shard="2/2").to_json())
    merged = merge_shards([str(one), str(tmp_path / "two.json")])
    assert [c.name for c in merged.cases] == ["a", "b"]
    with pytest.raises(MergeError, match=r"shard-2: not a readable results document \(.*No such file"):
        merge_shards([str(one), str(two)])
