"""Which stored without-plugin runs stand for this session's (analysis/baseline.py): by index, newest first, only
finished ones under the same conditions, and the reason when none are taken."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.baseline import (
    PLUGIN_ARM,
    Baselines,
    Reuse,
    as_reused,
    baseline_origins,
    differences,
    shared_baseline,
)
from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.results.model import RunResult

TODAY = {"prompt": "p1", "context": "c1", "model": "claude-sonnet-5", "claudeCode": "2.1.328", "isolation": 1}


def runs(conditions: dict | None, count: int = 2, **fields) -> list[RunResult]:
    return [
        RunResult("without", i, score=0.0, passed=False, cost_usd=0.01, conditions=conditions, **fields)
        for i in range(1, count + 1)
    ]


def stored(folder: Path, started_at: str, without: list[RunResult], regraded: bool = False):
    """A results folder holding one case whose without runs are `without` (each with a trace on disk)."""
    case = case_result("greets", [1.0] * len(without), without)
    document = suite_result(case, started_at=started_at, regraded_from="/old" if regraded else None)
    for run in without:
        trace = folder / "runs" / "greets" / f"without-{run.index}" / "trace.jsonl"
        trace.parent.mkdir(parents=True)
        trace.write_text('{"type": "result"}\n')
    return folder, document


def test_runs_are_taken_by_index_newest_first_and_the_missing_ones_are_left_to_run(tmp_path):
    old = stored(tmp_path / "old", "2026-12-01T10:00:00.000Z", runs(TODAY, 3))
    new = stored(tmp_path / "new", "2026-12-01T11:00:00.000Z", runs(TODAY, 2))
    decision = Baselines([new, old]).decide("evals/greets", TODAY, range(1, 5))
    assert {i: r.origin["session"] for i, r in decision.runs.items()} == {
        1: "2026-12-01T11:00:00.000Z",
        2: "2026-12-01T11:00:00.000Z",
        3: "2026-12-01T10:00:00.000Z",
    }
    assert decision.runs[1].origin["agentCostUsd"] == 0.01 and decision.refused is None


def test_unfinished_reused_by_lf_or_regraded_runs_are_passed_over(tmp_path):
    unfinished = runs(TODAY, 1, error="the API answered 529", error_kind="api")
    lf = [RunResult("without", 2, score=0.0, passed=False, conditions=TODAY, reused=True)]
    newest = stored(tmp_path / "a", "2026-12-01T12:00:00.000Z", [*unfinished, *lf])
    regraded = stored(tmp_path / "b", "2026-12-01T11:00:00.000Z", runs(TODAY), regraded=True)
    oldest = stored(tmp_path / "c", "2026-12-01T10:00:00.000Z", runs(TODAY))
    decision = Baselines([newest, regraded, oldest]).decide("evals/greets", TODAY, [1, 2])
    assert {r.origin["session"] for r in decision.runs.values()} == {"2026-12-01T10:00:00.000Z"}


def test_a_reused_run_keeps_the_session_where_the_agent_made_it(tmp_path):
    origin = {"session": "2026-11-30T09:00:00.000Z", "index": 1, "agentCostUsd": 0.02}
    chain = stored(tmp_path / "b", "2026-12-01T11:00:00.000Z", runs(TODAY, 1, reused_from=origin))
    assert Baselines([chain]).decide("evals/greets", TODAY, [1]).runs[1].origin == origin


def test_the_refusal_says_what_changed_in_the_newest_session(tmp_path):
    before = {**TODAY, "prompt": "p0", "claudeCode": "2.1.327"}
    session = stored(tmp_path / "a", "2026-12-01T10:00:00.000Z", runs(before))
    decision = Baselines([session]).decide("evals/greets", TODAY, [1, 2])
    assert decision.runs == {} and decision.refused == "prompt changed; Claude Code 2.1.327 → 2.1.328"
    old = stored(tmp_path / "b", "2026-12-01T09:00:00.000Z", runs(None))
    assert Baselines([old]).decide("evals/greets", TODAY, [1]).refused == (
        "its runs were made before conditions were recorded"
    )
    unknown = {**TODAY, "claudeCode": "unknown"}
    assert Baselines([stored(tmp_path / "c", "x", runs(unknown))]).decide("evals/greets", unknown, [1]).refused == (
        "the version of Claude Code is unknown"
    )


def test_on_a_matrix_the_refusal_is_said_of_the_runs_on_the_same_model(tmp_path):
    """A matrix's folder holds a document per model, all of one session: the refusal for haiku says what changed
    since haiku's runs, not that sonnet's were on sonnet."""
    haiku, sonnet = {**TODAY, "model": "haiku"}, {**TODAY, "model": "sonnet"}
    made = "2026-12-01T10:00:00.000Z"
    on_haiku = stored(tmp_path / "haiku", made, runs({**haiku, "prompt": "p0"}))
    on_sonnet = stored(tmp_path / "sonnet", made, runs({**sonnet, "prompt": "p0"}))
    assert Baselines([on_sonnet, on_haiku]).decide("evals/greets", haiku, [1]).refused == "prompt changed"
    # no runs on the model at all: what differs from the newest of another model is said
    assert Baselines([on_sonnet]).decide("evals/greets", haiku, [1]).refused == "prompt changed; model sonnet → haiku"


def test_a_missing_trace_is_not_reused(tmp_path):
    folder, document = stored(tmp_path / "a", "2026-12-01T10:00:00.000Z", runs(TODAY, 1))
    (folder / "runs" / "greets" / "without-1" / "trace.jsonl").unlink()
    decision = Baselines([(folder, document)]).decide("evals/greets", TODAY, [1])
    assert decision.runs == {} and "did not finish, or their files are missing" in (decision.refused or "")


def test_differences_name_values_for_model_claude_code_and_isolation():
    assert differences({**TODAY, "model": "a", "isolation": 0}, TODAY) == [
        "model a → claude-sonnet-5",
        "harness isolation version 0 → 1",
    ]
    assert differences(TODAY, TODAY) == []


def test_compare_counts_the_runs_two_sessions_share():
    first = suite_result(case_result("greets", [1.0], runs(TODAY, 1)), started_at="2026-12-01T10:00:00.000Z")
    origin = {"session": "2026-12-01T10:00:00.000Z", "index": 1}
    second = suite_result(
        case_result("greets", [1.0], runs(TODAY, 1, reused_from=origin)), started_at="2026-12-01T11:00:00.000Z"
    )
    fresh = suite_result(case_result("greets", [1.0], runs(TODAY, 1)), started_at="2026-12-01T12:00:00.000Z")
    assert shared_baseline(first, second) == 1
    assert shared_baseline(second, fresh) == 0 and shared_baseline(first, fresh) == 0


def test_each_without_plugin_run_is_named_by_its_run_id_with_the_session_its_agent_ran_in():
    origin = {"session": "2026-12-01T10:00:00.000Z", "index": 1}
    reused, fresh = runs(TODAY, 1, reused_from=origin)[0], runs(TODAY, 2)[1]
    document = suite_result(case_result("greets", [1.0], [reused, fresh]), started_at="2026-12-01T11:00:00.000Z")
    case_dir = document.cases[0].dir
    assert baseline_origins(document) == {
        RunId(case_dir, "without", 1): "2026-12-01T10:00:00.000Z",
        RunId(case_dir, "without", 2): "2026-12-01T11:00:00.000Z",
    }


# --against's arm: stored with-plugin runs made on that very version stand for its runs
OLD_VERSION = {**TODAY, "mocks": "m1", "script": "s1", "plugin": "v1"}


def with_runs(conditions: dict | None, count: int = 2, **fields) -> list[RunResult]:
    return [
        RunResult("with", i, score=1.0, passed=True, cost_usd=0.02, conditions=conditions, **fields)
        for i in range(1, count + 1)
    ]


def stored_with(folder: Path, started_at: str, runs_with: list[RunResult]):
    """A results folder holding one case whose with runs are `runs_with` (each with a trace on disk)."""
    document = suite_result(case_result("greets", runs_with, [0.0] * len(runs_with)), started_at=started_at)
    for run in runs_with:
        trace = folder / "runs" / "greets" / f"with-{run.index}" / "trace.jsonl"
        trace.parent.mkdir(parents=True)
        trace.write_text('{"type": "result"}\n')
    return folder, document


def against(tmp_path: Path, stored_conditions: dict | None, today: dict = OLD_VERSION, **fields):
    session = stored_with(tmp_path / "s", "2026-12-01T10:00:00.000Z", with_runs(stored_conditions, **fields))
    return Baselines([session]).decide("evals/greets", today, [1, 2], PLUGIN_ARM)


def test_with_runs_made_on_the_against_version_stand_for_its_runs(tmp_path):
    decision = against(tmp_path, OLD_VERSION)
    assert sorted(decision.runs) == [1, 2] and decision.refused is None
    assert decision.runs[1].stored.run.arm == "with"
    assert decision.runs[2].origin == {"session": "2026-12-01T10:00:00.000Z", "index": 2, "agentCostUsd": 0.02}


def test_the_without_arm_is_never_taken_for_the_against_arm(tmp_path):
    session = stored(tmp_path / "s", "2026-12-01T10:00:00.000Z", runs(OLD_VERSION))
    assert Baselines([session]).decide("evals/greets", OLD_VERSION, [1], PLUGIN_ARM).runs == {}


@pytest.mark.parametrize(
    ("stored_conditions", "why"),
    [
        ({**OLD_VERSION, "plugin": "v2"}, "made on another version of the plugin"),
        ({**OLD_VERSION, "script": "s0"}, "scripted.yaml's arm for --against changed"),
        ({**OLD_VERSION, "mocks": "m0"}, "mocks served with the plugin changed"),
        ({**OLD_VERSION, "prompt": "p0"}, "prompt changed"),
        ({**OLD_VERSION, "claudeCode": "2.1.327"}, "Claude Code 2.1.327 → 2.1.328"),
        ({**OLD_VERSION, "model": "claude-opus-4-5"}, "model claude-opus-4-5 → claude-sonnet-5"),
        ({k: v for k, v in OLD_VERSION.items() if k != "plugin"}, "made on another version of the plugin"),
        (None, "its runs were made before conditions were recorded"),
    ],
)
def test_each_changed_condition_refuses_the_with_runs_and_says_it(tmp_path, stored_conditions, why):
    decision = against(tmp_path, stored_conditions)
    assert decision.runs == {} and decision.refused == why


def test_unfinished_with_runs_and_an_unknown_claude_code_are_refused(tmp_path):
    unfinished = against(tmp_path / "a", OLD_VERSION, error="the API answered 529", error_kind="api")
    assert unfinished.runs == {} and unfinished.refused == "its stored runs did not finish, or their files are missing"
    unknown = {**OLD_VERSION, "claudeCode": "unknown"}
    assert against(tmp_path / "b", unknown, unknown).refused == "the version of Claude Code is unknown"


def test_a_reused_with_run_becomes_a_run_of_the_against_arm(tmp_path):
    reuse: Reuse = against(tmp_path, OLD_VERSION).runs[1]
    graded = RunResult("with", 1, score=1.0, passed=True, cost_usd=0.025, judge_cost_usd=0.005)
    result = as_reused(graded, reuse, OLD_VERSION, "against")
    assert (result.arm, result.cost_usd, result.reused_from) == ("against", 0.005, reuse.origin)
