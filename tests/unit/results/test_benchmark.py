"""The session in skill-creator's benchmark.json schema (pytest_plugin_eval.results.benchmark): configurations by
role, pass rates over the graded expectations, mean / sample stddev / min / max, delta as with − without strings
in skill-creator's formats, eval ids, and our hints as notes."""

from __future__ import annotations

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.load.skill_evals import criteria
from pytest_plugin_eval.results.benchmark import benchmark, run_usage, spread
from pytest_plugin_eval.results.efficiency import Tokens
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult

ADA = GraderInfo("names-ada", "llm", 1, {}, markdown=criteria("It names Ada", "Hello Ada."))
TONE = GraderInfo("tone", "regex", 1, {"pattern": "!"})


def run(arm: str, index: int, *passed: bool, seconds: float = 10.0, error: str | None = None) -> RunResult:
    graders = [
        GraderResult(g.name, p, 1, "judge votes: PASS PASS" if p else "judge votes: FAIL FAIL")
        for g, p in zip((ADA, TONE), passed, strict=False)
    ]
    score = sum(passed) / len(passed) if passed else None
    return RunResult(
        arm, index, score=score, passed=all(passed), graders=graders, duration_seconds=seconds, error=error
    )


def test_runs_are_entries_by_configuration_with_their_expectations():
    case = case_result(
        "greet/3",
        [run("with", 1, True, True, seconds=4), run("with", 2, True, False, seconds=6)],
        [run("without", 1, False, False, seconds=2), run("without", 2, True, False, seconds=2)],
        graders=(ADA, TONE),
    )
    case.source = "skill_creator"
    data = benchmark(suite_result(case)).to_json()
    assert [(r["configuration"], r["run_number"]) for r in data["runs"]] == [
        ("with_skill", 1),
        ("with_skill", 2),
        ("without_skill", 1),
        ("without_skill", 2),
    ]
    first = data["runs"][0]
    assert first["eval_id"] == 3 and first["eval_name"] == "greet/3"
    assert first["result"] == {
        "pass_rate": 1.0,
        "passed": 2,
        "failed": 0,
        "total": 2,
        "time_seconds": 4.0,
        "tokens": 0,
        "tool_calls": 0,
        "errors": 0,
    }
    assert first["expectations"] == [
        {"text": "It names Ada", "passed": True, "evidence": "judge votes: PASS PASS"},
        {"text": "tone", "passed": True, "evidence": "judge votes: PASS PASS"},  # not from evals.json: its name
    ]
    summary = data["run_summary"]
    assert summary["with_skill"]["pass_rate"] == {"mean": 0.75, "stddev": 0.3536, "min": 0.5, "max": 1.0}
    assert summary["without_skill"]["pass_rate"] == {"mean": 0.25, "stddev": 0.3536, "min": 0.0, "max": 0.5}
    assert summary["delta"] == {"pass_rate": "+0.50", "time_seconds": "+3.0", "tokens": "+0"}
    meta = data["metadata"]
    assert meta["skill_name"] == "greet" and meta["evals_run"] == [3] and meta["runs_per_configuration"] == 2
    assert meta["skill_path"] == "/p" and meta["analyzer_model"] == "claude-haiku-4-5"
    assert meta["timestamp"] == "2026-11-30T10:00:00.000Z" and meta["executor_model"] == "default"


def test_delta_is_with_minus_without_even_when_the_skill_hurts():
    case = case_result("c", [run("with", 1, False, False)], [run("without", 1, True, True)], graders=(ADA, TONE))
    assert benchmark(suite_result(case)).to_json()["run_summary"]["delta"]["pass_rate"] == "-1.00"


def test_a_case_folder_gets_its_place_as_eval_id_and_a_single_arm_no_delta():
    cases = [
        case_result("first", [run("with", 1, True)], graders=(ADA,)),
        case_result("second", [run("with", 1, True)], graders=(ADA,)),
    ]
    data = benchmark(suite_result(*cases, model_override="claude-sonnet-5")).to_json()
    assert [r["eval_id"] for r in data["runs"]] == [1, 2]
    assert set(data["run_summary"]) == {"with_skill"}
    assert data["metadata"]["skill_name"] == "greeter" and data["metadata"]["executor_model"] == "claude-sonnet-5"


def test_an_errored_run_counts_as_an_error_with_its_message_as_a_note():
    case = case_result("c", [run("with", 1, error="API error 529: overloaded")], graders=(ADA,))
    [entry] = benchmark(suite_result(case)).to_json()["runs"]
    assert (
        entry["result"]["errors"] == 1
        and entry["result"]["total"] == 0
        and entry["notes"] == ["API error 529: overloaded"]
    )


def test_hints_become_notes_named_by_case():
    case = case_result("c", [run("with", 1, True)], graders=(ADA,))
    case.hints = ["Δ is flat and the skill never fired"]
    assert benchmark(suite_result(case)).to_json()["notes"] == ["c: Δ is flat and the skill never fired"]


def test_spread_uses_the_sample_stddev_and_zero_for_one_value():
    assert spread([2.0]).to_json() == {"mean": 2.0, "stddev": 0.0, "min": 2.0, "max": 2.0}
    assert spread([1.0, 3.0]).stddev == 1.4142


def test_a_runs_tokens_and_tool_calls_are_what_it_recorded():
    recorded = RunResult("with", 1, score=1.0, passed=True, tool_calls=3, tokens=Tokens(100, 20, 300, 5))
    assert run_usage(recorded) == (425, 3)  # the same figures as aggregates.efficiency
    assert run_usage(RunResult("with", 1, score=1.0, passed=True)) == (0, 0)  # neither recorded nor a trace
