"""Unit tests for scores and aggregates (pytest_plugin_eval.scoring) and results as data (pytest_plugin_eval.results)."""
from __future__ import annotations

import json
import math

import pytest

from pytest_plugin_eval import results, scoring
from pytest_plugin_eval.case import parse_grader
from pytest_plugin_eval.graders import GraderSpec
from pytest_plugin_eval.results import GraderOutcome, RunResult, case_document, suite_document, write_json
from pytest_plugin_eval.scoring import (Scored, arm_stats, case_aggregates, exit_status, graders_for, indicators,
                                        is_indicator, passes_threshold, run_score, suite_aggregates)


def g(name: str, **raw) -> GraderSpec:
    body = raw.pop("body", "")
    return parse_grader(raw, body, name, f"evals/case/graders/{name}.md")


SKILL = dict(type="tool_used", tool="Skill")
GLOB = dict(type="tool_used", tool="Glob")
MOCKS = dict(type="regex", pattern="charge", target="mock_calls")
TEXT = dict(type="regex", pattern="done")


# ---- indicators ----------------------------------------------------------------------------------------------

def test_is_indicator():
    assert is_indicator(g("skill", **SKILL)) is True
    assert is_indicator(g("mocks", **MOCKS)) is True
    assert is_indicator(g("llm-mocks", type="llm", focus="mock_calls", body="Charged once.")) is True
    assert is_indicator(g("text", **TEXT, arm="with-only")) is True
    assert is_indicator(g("skill", **SKILL, arm="both")) is False
    assert is_indicator(g("mocks", **MOCKS, arm="both")) is False
    assert is_indicator(g("glob", **GLOB)) is False
    assert is_indicator(g("text", **TEXT)) is False
    assert is_indicator(g("file", type="file_exists", path="x")) is False


def test_indicators_two_arm():
    graders = (g("skill", **SKILL), g("mocks", **MOCKS), g("text", **TEXT), g("forced", **SKILL, arm="both"),
               g("only", **GLOB, arm="with-only"))
    assert indicators(graders, two_arm=True) == frozenset({"skill", "mocks", "only"})


def test_indicators_single_arm_has_none():
    graders = (g("skill", **SKILL), g("text", **TEXT))
    assert indicators(graders, two_arm=False) == frozenset()


def test_indicators_all_excluded_fallback():
    graders = (g("skill", **SKILL), g("mocks", **MOCKS))
    # Every grader would be an indicator: they all count instead.
    assert indicators(graders, two_arm=True) == frozenset()
    assert indicators((g("skill", **SKILL),), two_arm=True) == frozenset()
    assert indicators((), two_arm=True) == frozenset()


def test_graders_for():
    skill, text, mocks = g("skill", **SKILL), g("text", **TEXT), g("mocks", **MOCKS)
    graders = (skill, text, mocks)
    assert graders_for(graders, "with", two_arm=True) == [(skill, True), (text, False), (mocks, True)]
    assert graders_for(graders, "without", two_arm=True) == [(text, False)]
    assert graders_for(graders, "with", two_arm=False) == [(skill, False), (text, False), (mocks, False)]
    # Fallback: all indicators → all evaluated and scored in both arms.
    only = (skill, mocks)
    assert graders_for(only, "without", two_arm=True) == [(skill, False), (mocks, False)]
    assert graders_for(only, "with", two_arm=True) == [(skill, False), (mocks, False)]


def test_graders_for_keeps_case_order():
    graders = (g("b", **TEXT), g("a", **SKILL), g("c", **GLOB))
    assert [s.name for s, _ in graders_for(graders, "without", True)] == ["b", "c"]
    assert [s.name for s, _ in graders_for(graders, "with", True)] == ["b", "a", "c"]


# ---- run_score -----------------------------------------------------------------------------------------------

def test_run_score_weights():
    assert run_score([Scored(3, True, True), Scored(1, False, True)]) == 0.75
    assert run_score([Scored(3, False, True), Scored(1, True, True)]) == 0.25
    assert run_score([Scored(1, True, True), Scored(1, True, True)]) == 1.0
    assert run_score([Scored(2.5, False, True)]) == 0.0


def test_run_score_ignores_uncounted():
    # An indicator/errored/skipped grader does not move the score, passed or not.
    assert run_score([Scored(3, True, True), Scored(1, False, True), Scored(100, False, False)]) == 0.75
    assert run_score([Scored(1, False, True), Scored(5, True, False)]) == 0.0


def test_run_score_none_when_nothing_counts():
    assert run_score([]) is None
    assert run_score([Scored(1, True, False), Scored(2, False, False)]) is None


# ---- case_aggregates -----------------------------------------------------------------------------------------

def run(score, passed):
    return {"score": score, "passed": passed}


def test_case_aggregates_with_arm_only():
    out = case_aggregates({"with": [run(1, True), run(0.5, False), run(0, False)]})
    assert out == {"score": 0.5, "passRate": pytest.approx(1 / 3), "stdevWith": pytest.approx(0.5)}
    assert list(out) == ["score", "passRate", "stdevWith"]


def test_case_aggregates_ignore_runs_without_score():
    out = case_aggregates({"with": [run(1, True), run(None, False), run(0.5, True), run(None, True)]})
    assert out == {"score": 0.75, "passRate": 1.0, "stdevWith": pytest.approx(0.3535533905932738)}


def test_case_aggregates_no_runs():
    assert case_aggregates({}) == {"score": None, "passRate": None, "stdevWith": None}
    assert case_aggregates({"with": [run(None, False)]}) == {"score": None, "passRate": None, "stdevWith": None}
    # An empty without arm adds nothing.
    assert case_aggregates({"with": [run(1, True)], "without": []}) == {"score": 1.0, "passRate": 1.0,
                                                                         "stdevWith": None}


def test_case_aggregates_two_arm_delta():
    out = case_aggregates({"with": [run(1, True), run(0.5, False)], "without": [run(0.25, False), run(0.25, False)]})
    assert {k: out[k] for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta")} == {
        "score": 0.75, "passRate": 0.5, "scoreWithout": 0.25, "passRateWithout": 0.0, "delta": 0.5}
    assert list(out) == ["score", "passRate", "scoreWithout", "passRateWithout", "delta", "stdevWith", "stdevWithout",
                         "deltaCI", "deltaSignificant"]
    # Welch: sd 0.3536 and 0 over 2 runs each, df 1 → 0.5 ± 12.706 × 0.25
    assert out["deltaCI"] == pytest.approx([0.5 - 12.706 * 0.25, 0.5 + 12.706 * 0.25])
    assert out["deltaSignificant"] is False


def test_case_aggregates_delta_none_when_an_arm_has_no_score():
    out = case_aggregates({"with": [run(1, True)], "without": [run(None, False)]})
    assert {k: out[k] for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta", "deltaCI",
                                "deltaSignificant")} == {"score": 1.0, "passRate": 1.0, "scoreWithout": None,
                                                         "passRateWithout": None, "delta": None, "deltaCI": None,
                                                         "deltaSignificant": None}
    out = case_aggregates({"with": [], "without": [run(0.5, False)]})
    assert out["delta"] is None and out["scoreWithout"] == 0.5 and out["score"] is None


def test_arm_stats():
    stats = arm_stats([run(1, True), run(0.5, False), run(0, False), run(None, True)])
    assert stats.score == 0.5 and stats.n == 3
    assert stats.pass_rate == pytest.approx(1 / 3)
    assert stats.stdev == pytest.approx(0.5)   # sample standard deviation of 1, 0.5, 0
    single = arm_stats([run(0.7, True)])
    assert (single.score, single.pass_rate, single.n, single.stdev) == (0.7, 1.0, 1, None)
    empty = arm_stats([])
    assert (empty.score, empty.pass_rate, empty.n, empty.stdev) == (None, None, 0, None)
    assert arm_stats([run(0.2, False), run(0.8, True)]).stdev == pytest.approx(math.sqrt(0.18))


# ---- suite_aggregates ----------------------------------------------------------------------------------------

def case(score, pass_rate, **more):
    return {"aggregates": {"score": score, "passRate": pass_rate, **more}}


def test_suite_aggregates_single_arm():
    cases = [case(0.8, 1.0), case(0.5, 0.0), case(0.7, 0.5)]
    out = suite_aggregates(cases, threshold=0.7)
    assert out == {"casesTotal": 3, "casesPassed": 2, "overallScore": pytest.approx(2.0 / 3),
                   "overallPassRate": 0.5}
    assert "meanDelta" not in out


def test_suite_threshold_equality_passes():
    assert passes_threshold(case(0.7, 1.0), 0.7) is True
    assert passes_threshold(case(0.69999, 1.0), 0.7) is False
    assert passes_threshold(case(None, None), 0.0) is False
    assert suite_aggregates([case(1.0, 1.0)], threshold=1.0)["casesPassed"] == 1


def test_suite_overall_pass_rate_is_the_mean_of_case_rates():
    # Not the pooled rate over runs: case rates 1/3 and 1 average to 2/3.
    cases = [case(0.5, 1 / 3), case(1.0, 1.0), case(None, None)]
    out = suite_aggregates(cases, threshold=0.5)
    assert out["overallPassRate"] == pytest.approx(2 / 3)
    assert out["overallScore"] == 0.75
    assert out["casesTotal"] == 3
    assert out["casesPassed"] == 2


def test_suite_aggregates_without_scores():
    assert suite_aggregates([], 0.5) == {"casesTotal": 0, "casesPassed": 0, "overallScore": 0, "overallPassRate": 0}
    assert suite_aggregates([case(None, None)], 0.5) == {"casesTotal": 1, "casesPassed": 0, "overallScore": 0,
                                                         "overallPassRate": 0}


def test_suite_mean_delta_only_for_two_arm():
    two = [case(1.0, 1.0, scoreWithout=0.5, passRateWithout=0.0, delta=0.5),
           case(0.5, 0.0, scoreWithout=0.75, passRateWithout=1.0, delta=-0.25),
           case(0.5, 0.0, scoreWithout=None, passRateWithout=None, delta=None)]
    assert suite_aggregates(two, 0.5)["meanDelta"] == pytest.approx(0.125)
    none = [case(None, None, scoreWithout=None, passRateWithout=None, delta=None)]
    out = suite_aggregates(none, 0.5)
    assert "meanDelta" in out and out["meanDelta"] is None
    assert "meanDelta" not in suite_aggregates([case(1.0, 1.0)], 0.5)


# ---- exit_status ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("interrupted, partial, failed, status", [
    (None, False, False, 0),
    (None, False, True, 1),
    (None, True, False, 2),
    (None, True, True, 2),
    ("SIGINT", False, False, 130),
    ("SIGINT", True, True, 130),
    ("SIGTERM", False, False, 143),
    ("SIGTERM", True, True, 143),
])
def test_exit_status(interrupted, partial, failed, status):
    assert exit_status(interrupted=interrupted, partial=partial, failed=failed) == status


def test_exit_status_constants():
    assert (scoring.EXIT_OK, scoring.EXIT_FAILED, scoring.EXIT_PARTIAL, scoring.EXIT_INTERRUPTED,
            scoring.EXIT_TERMINATED) == (0, 1, 2, 130, 143)


# ---- write_json ----------------------------------------------------------------------------------------------

def test_write_json_writes_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "deep" / "er" / "results.json"
    write_json(path, {"b": 1, "a": "naïve/é", "list": [1, 2]})
    assert sorted(p.name for p in path.parent.iterdir()) == ["results.json"]
    text = path.read_text(encoding="utf-8")
    assert text == '{\n "b": 1,\n "a": "naïve/é",\n "list": [\n  1,\n  2\n ]\n}\n'
    assert json.loads(text) == {"b": 1, "a": "naïve/é", "list": [1, 2]}


def test_write_json_replaces_an_existing_file(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("old content that is longer than the new one " * 10)
    write_json(path, {"v": 2})
    assert json.loads(path.read_text()) == {"v": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_write_json_failure_keeps_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / "results.json"
    write_json(path, {"v": 1})
    with pytest.raises(TypeError):
        write_json(path, {"v": object()})
    assert json.loads(path.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


# ---- RunResult -----------------------------------------------------------------------------------------------

def full_result() -> RunResult:
    return RunResult(
        case="fix-bug", case_dir="evals/fix-bug", arm="without", index=2, score=0.75, passed=True, turns=4,
        cost_usd=0.125, judge_cost_usd=0.002, duration_seconds=12.34567, started_at="2026-11-29T19:14:00.123Z",
        error="boom", error_kind="timeout", trace_path="runs/fix-bug/without-2/trace.jsonl",
        skipped_paid_graders=True,
        graders=[GraderOutcome("has-fix", True, 3, "matched fix", with_only=False, scored=True),
                 GraderOutcome("judge", False, 1.0, "judge votes: FAIL FAIL", with_only=False, scored=True,
                               details={"judgeModel": "claude-haiku-5-5", "judgeVotes": [False, False]}),
                 GraderOutcome("skill", True, 1, "Skill called 1x (expected 1..∞)", with_only=True, scored=False)],
        aborted={"reason": "max turns"}, mocks={"calls": 2}, workspace="/tmp/ws")


def test_run_result_round_trip():
    original = full_result()
    data = original.to_data()
    assert json.loads(json.dumps(data)) == data          # plain data: travels as JSON (xdist)
    assert data["graders"][1]["details"] == {"judgeModel": "claude-haiku-5-5", "judgeVotes": [False, False]}
    again = RunResult.from_data(json.loads(json.dumps(data)))
    assert again == original
    assert isinstance(again.graders[0], GraderOutcome)
    assert again.to_json() == original.to_json()


def test_run_result_round_trip_minimal():
    original = RunResult(case="c", case_dir="c", arm="with", index=1, score=None, passed=False)
    assert RunResult.from_data(original.to_data()) == original


def test_run_result_to_json_field_names():
    out = full_result().to_json()
    assert list(out) == ["score", "passed", "turns", "costUsd", "judgeCostUsd", "durationSeconds", "startedAt",
                         "error", "tracePath", "skippedPaidGraders", "graders", "errorKind", "aborted", "mocks",
                         "workspace", "index"]
    assert out["durationSeconds"] == 12.346
    assert out["costUsd"] == 0.125 and out["judgeCostUsd"] == 0.002
    assert out["startedAt"] == "2026-11-29T19:14:00.123Z"
    assert out["errorKind"] == "timeout"
    assert out["tracePath"] == "runs/fix-bug/without-2/trace.jsonl"
    assert out["skippedPaidGraders"] is True
    assert out["graders"][0] == {"name": "has-fix", "passed": True, "weight": 3, "explanation": "matched fix",
                                 "withOnly": False, "scored": True}
    assert out["graders"][1] == {"name": "judge", "passed": False, "weight": 1.0,
                                 "explanation": "judge votes: FAIL FAIL", "withOnly": False, "scored": True,
                                 "judgeModel": "claude-haiku-5-5", "judgeVotes": [False, False]}
    assert out["graders"][2]["withOnly"] is True and out["graders"][2]["scored"] is False
    assert out["index"] == 2  # the run's number in its arm (an added field: --lf merges by it)
    # No internal names leak into the document.
    assert not {"case", "case_dir", "arm", "cost_usd", "error_kind", "trace_path", "notes", "attempts"} & set(out)


def test_run_result_to_json_omits_optional_fields():
    out = RunResult(case="c", case_dir="c", arm="with", index=1, score=None, passed=False).to_json()
    assert out == {"score": None, "passed": False, "turns": 0, "costUsd": 0.0, "judgeCostUsd": 0.0,
                   "durationSeconds": 0.0, "startedAt": "", "error": None, "tracePath": None,
                   "skippedPaidGraders": False, "graders": [], "index": 1}


def test_run_result_failing():
    result = full_result()
    assert [g.name for g in result.failing] == ["judge"]
    result.graders.append(GraderOutcome("ind", False, 1, "x", with_only=True, scored=False))
    assert [g.name for g in result.failing] == ["judge"]


# ---- documents -----------------------------------------------------------------------------------------------

def rr(arm, index, score, passed, cost=0.0):
    return RunResult(case="c", case_dir="c", arm=arm, index=index, score=score, passed=passed, cost_usd=cost)


def test_case_document():
    runs = [rr("with", 2, 0.0, False, 0.5), rr("without", 1, 0.5, False, 0.25), rr("with", 1, 1.0, True, 1.0)]
    doc = case_document({"name": "c", "dir": "c"}, runs)
    assert list(doc) == ["name", "dir", "arms", "aggregates"]
    assert list(doc["arms"]) == ["with", "without"]
    assert [r["score"] for r in doc["arms"]["with"]] == [1.0, 0.0]     # index order
    assert {k: doc["aggregates"][k] for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta")} == {
        "score": 0.5, "passRate": 0.5, "scoreWithout": 0.5, "passRateWithout": 0.0, "delta": 0.0}


def test_case_document_always_has_a_with_arm():
    doc = case_document({}, [])
    assert doc["arms"] == {"with": []}
    assert doc["aggregates"] == {"score": None, "passRate": None, "stdevWith": None}
    doc = case_document({}, [rr("without", 1, 1.0, True)])
    assert list(doc["arms"]) == ["with", "without"]


def test_suite_document():
    cases = [case_document({"name": "a"}, [rr("with", 1, 1.0, True, 0.5), rr("with", 2, 0.5, False, 0.25)]),
             case_document({"name": "b"}, [rr("with", 1, 0.0, False, 0.125)])]
    doc = suite_document(claude_version="2.1.328", started_at="2026-01-01T00:00:00.000Z", duration=61.6,
                         suite={"name": "s"}, cases=cases, threshold=0.7, partial_reason=None, load_errors=[],
                         notices=[])
    assert list(doc) == ["schemaVersion", "claudeVersion", "startedAt", "durationSeconds", "costUsd", "partial",
                         "suite", "cases", "aggregates", "loadErrors"]
    assert doc["schemaVersion"] == 1 and doc["durationSeconds"] == 62
    assert doc["costUsd"] == 0.875
    assert doc["partial"] is False
    assert doc["aggregates"] == {"casesTotal": 2, "casesPassed": 1, "overallScore": 0.375, "overallPassRate": 0.25}
    partial = suite_document(claude_version="x", started_at="", duration=0, suite={}, cases=[], threshold=0.5,
                             partial_reason="interrupted", load_errors=[{"case": "z"}], notices=["n"])
    assert partial["partial"] is True and partial["partialReason"] == "interrupted"
    assert partial["notices"] == ["n"] and partial["loadErrors"] == [{"case": "z"}]
    assert list(partial).index("partialReason") == list(partial).index("partial") + 1


def test_timestamps():
    assert results.timestamp_dirname("2026-11-29T19:14:00.123Z") == "2026-11-29T19-14-00-123Z"
    stamp = results.now_iso()
    assert stamp.endswith("Z") and len(stamp) == len("2026-11-29T19:14:00.123Z")


def test_delta_interval_is_significant_only_when_it_excludes_zero():
    # +0.33 on three runs (1, 0, 0 against 0, 0, 0) is not a result: the interval spans 0.
    noisy = case_aggregates({"with": [run(1, True), run(0, False), run(0, False)], "without": [run(0, False)] * 3})
    assert noisy["delta"] == pytest.approx(1 / 3)
    assert noisy["deltaCI"][0] < 0 < noisy["deltaCI"][1] and noisy["deltaSignificant"] is False
    steady = case_aggregates({"with": [run(1, True)] * 3, "without": [run(0, False)] * 3})
    assert steady["deltaCI"] == [1.0, 1.0] and steady["deltaSignificant"] is True
    one_run = case_aggregates({"with": [run(1, True)], "without": [run(0, False)]})
    assert one_run["deltaCI"] is None and one_run["deltaSignificant"] is None


def test_t_quantiles():
    from pytest_plugin_eval.scoring import t95
    assert t95(1) == 12.706 and t95(2) == 4.303 and t95(11) == 2.228 and t95(35) == 2.042 and t95(5000) == 1.96
