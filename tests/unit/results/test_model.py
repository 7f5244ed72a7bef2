"""Unit tests for the results document as types (pytest_plugin_eval.results.model): each type's `to_json()` —
field names, their order, what is left out — and `from_json()`, and that reading and writing a whole document
changes nothing, unknown fields included."""

from __future__ import annotations

import copy
import json

import pytest

from pytest_plugin_eval.results.model import (
    SCHEMA_VERSION,
    CaseAggregates,
    CaseResult,
    GraderInfo,
    GraderResult,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.scoring import aggregate, suite_aggregates

RUN_KEYS = [
    "score",
    "passed",
    "turns",
    "costUsd",
    "judgeCostUsd",
    "durationSeconds",
    "startedAt",
    "error",
    "tracePath",
    "skippedPaidGraders",
    "graders",
    "errorKind",
    "aborted",
    "mocks",
    "workspace",
    "index",
]


def same_text(a: dict, b: dict) -> bool:
    """Equal as JSON text: the same keys in the same order, the same values."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


# ---- GraderResult --------------------------------------------------------------------------------------------


def test_grader_result_to_json_minimal():
    out = GraderResult("has-fix", True, 3, "matched fix").to_json()
    assert out == {
        "name": "has-fix",
        "passed": True,
        "weight": 3,
        "explanation": "matched fix",
        "withOnly": False,
        "scored": True,
    }
    assert list(out) == ["name", "passed", "weight", "explanation", "withOnly", "scored"]


def test_grader_result_judge_fields_only_when_set():
    judged = GraderResult(
        "judge",
        False,
        1.0,
        "judge votes: FAIL FAIL",
        judge_model="claude-haiku-5-5",
        judge_votes=[False, False],
        evidence="the reply",
        cost_usd=0.002,
    )
    out = judged.to_json()
    assert out == {
        "name": "judge",
        "passed": False,
        "weight": 1.0,
        "explanation": "judge votes: FAIL FAIL",
        "withOnly": False,
        "scored": True,
        "judgeModel": "claude-haiku-5-5",
        "judgeVotes": [False, False],
        "evidence": "the reply",
        "costUsd": 0.002,
    }
    assert list(out)[-4:] == ["judgeModel", "judgeVotes", "evidence", "costUsd"]
    # An empty list of votes is still a value (not the same as "no votes").
    assert GraderResult("j", False, 1, "x", judge_votes=[]).to_json()["judgeVotes"] == []
    assert "judgeVotes" not in GraderResult("j", False, 1, "x", judge_model="m").to_json()
    assert "judgeModel" not in GraderResult("j", False, 1, "x", judge_votes=[True]).to_json()


def test_grader_result_flags_only_when_truthy():
    plain = GraderResult("g", False, 1, "x", cost_usd=0.0, errored=False, skipped=False).to_json()
    assert not {"costUsd", "errored", "skipped", "judgeModel", "judgeVotes", "evidence"} & set(plain)
    errored = GraderResult("g", False, 1, "judge unavailable: 529", scored=False, errored=True).to_json()
    assert errored["errored"] is True and errored["scored"] is False and "skipped" not in errored
    skipped = GraderResult("g", False, 1, "skipped: cost ceiling", scored=False, skipped=True).to_json()
    assert skipped["skipped"] is True and "errored" not in skipped
    both = GraderResult("g", False, 1, "x", cost_usd=0.5, errored=True, skipped=True).to_json()
    assert list(both)[-3:] == ["costUsd", "errored", "skipped"]


def test_grader_result_unknown_fields_are_kept():
    data = {
        "name": "custom",
        "passed": True,
        "weight": 2,
        "explanation": "ok",
        "withOnly": True,
        "scored": False,
        "judgeModel": "m",
        "judgeVotes": [True, True, False],
        "evidence": "e",
        "matches": ["a", "b"],
        "futureField": {"x": 1},
        "costUsd": 0.25,
        "errored": True,
        "skipped": True,
    }
    result = GraderResult.from_json(copy.deepcopy(data))
    assert result.extra == {"matches": ["a", "b"], "futureField": {"x": 1}}
    assert (result.with_only, result.scored, result.cost_usd, result.errored, result.skipped) == (
        True,
        False,
        0.25,
        True,
        True,
    )
    assert result.judge_votes == [True, True, False] and result.evidence == "e" and result.judge_model == "m"
    assert result.to_json() == data and same_text(result.to_json(), data)


def test_grader_result_from_json_defaults():
    result = GraderResult.from_json({"name": "g", "passed": 1})
    assert result == GraderResult("g", True, 1, "", with_only=False, scored=True)


# ---- RunResult -----------------------------------------------------------------------------------------------


def full_result() -> RunResult:
    return RunResult(
        arm="without",
        index=2,
        score=0.75,
        passed=True,
        turns=4,
        cost_usd=0.125,
        judge_cost_usd=0.002,
        duration_seconds=12.34567,
        started_at="2026-11-29T19:14:00.123Z",
        error="boom",
        error_kind="timeout",
        trace_path="runs/fix-bug/without-2/trace.jsonl",
        skipped_paid_graders=True,
        graders=[
            GraderResult("has-fix", True, 3, "matched fix", with_only=False, scored=True),
            GraderResult(
                "judge",
                False,
                1.0,
                "judge votes: FAIL FAIL",
                with_only=False,
                scored=True,
                judge_model="claude-haiku-5-5",
                judge_votes=[False, False],
            ),
            GraderResult("skill", True, 1, "Skill called 1x (expected 1..∞)", with_only=True, scored=False),
        ],
        aborted={"reason": "max turns"},
        mocks={"calls": 2},
        workspace="/tmp/ws",
    )


def test_run_result_to_json_field_names():
    out = full_result().to_json()
    assert list(out) == RUN_KEYS
    assert out["durationSeconds"] == 12.346
    assert out["costUsd"] == 0.125 and out["judgeCostUsd"] == 0.002
    assert out["startedAt"] == "2026-11-29T19:14:00.123Z"
    assert out["errorKind"] == "timeout"
    assert out["tracePath"] == "runs/fix-bug/without-2/trace.jsonl"
    assert out["skippedPaidGraders"] is True
    assert out["graders"][0] == {
        "name": "has-fix",
        "passed": True,
        "weight": 3,
        "explanation": "matched fix",
        "withOnly": False,
        "scored": True,
    }
    assert out["graders"][1] == {
        "name": "judge",
        "passed": False,
        "weight": 1.0,
        "explanation": "judge votes: FAIL FAIL",
        "withOnly": False,
        "scored": True,
        "judgeModel": "claude-haiku-5-5",
        "judgeVotes": [False, False],
    }
    assert out["graders"][2]["withOnly"] is True and out["graders"][2]["scored"] is False
    assert out["aborted"] == {"reason": "max turns"} and out["mocks"] == {"calls": 2} and out["workspace"] == "/tmp/ws"
    assert out["index"] == 2  # the run's number in its arm (an added field: --lf merges by it)
    # No internal names leak into the document.
    assert not {
        "case",
        "case_dir",
        "arm",
        "cost_usd",
        "error_kind",
        "trace_path",
        "notes",
        "attempts",
        "reused",
        "extra",
    } & set(out)


def test_run_result_to_json_omits_optional_fields():
    out = RunResult(arm="with", index=1, score=None, passed=False).to_json()
    assert out == {
        "score": None,
        "passed": False,
        "turns": 0,
        "costUsd": 0.0,
        "judgeCostUsd": 0.0,
        "durationSeconds": 0.0,
        "startedAt": "",
        "error": None,
        "tracePath": None,
        "skippedPaidGraders": False,
        "graders": [],
        "index": 1,
    }
    # Falsy values of the optional fields are left out too.
    assert (
        out
        == RunResult(
            arm="with", index=1, score=None, passed=False, error_kind="", workspace="", attempts=1, reused=False
        ).to_json()
    )


def test_run_result_duration_rounding():
    assert (
        RunResult(arm="with", index=1, score=1, passed=True, duration_seconds=0.0004).to_json()["durationSeconds"]
        == 0.0
    )
    assert (
        RunResult(arm="with", index=1, score=1, passed=True, duration_seconds=61.9996).to_json()["durationSeconds"]
        == 62.0
    )


def test_run_result_attempts_reused_and_unknown_fields():
    run = full_result()
    run.attempts, run.reused, run.extra = 3, True, {"futureField": [1, 2]}
    run.duration_seconds = 12.346
    out = run.to_json()
    assert list(out) == [*RUN_KEYS[:-1], "attempts", "index", "reused", "futureField"]
    assert out["attempts"] == 3 and out["reused"] is True and out["futureField"] == [1, 2]
    again = RunResult.from_json(json.loads(json.dumps(out)), "without")
    assert again == run
    assert same_text(again.to_json(), out)


def test_run_result_round_trip():
    original = full_result()
    original.duration_seconds = 12.346  # as the document keeps it
    data = original.to_json()
    assert json.loads(json.dumps(data)) == data  # plain data: travels as JSON (xdist)
    again = RunResult.from_json(json.loads(json.dumps(data)), "without")
    assert again == original
    assert isinstance(again.graders[0], GraderResult)
    assert again.graders[1].judge_votes == [False, False]
    assert again.to_json() == original.to_json()


def test_run_result_round_trip_minimal():
    original = RunResult(arm="with", index=1, score=None, passed=False)
    assert RunResult.from_json(original.to_json(), "with") == original


def test_run_result_notes_are_not_part_of_the_document():
    run = RunResult(arm="with", index=1, score=1.0, passed=True, notes=["a notice"])
    assert "a notice" not in json.dumps(run.to_json())
    assert RunResult.from_json(run.to_json(), "with").notes == []


def test_run_result_from_json_missing_index_uses_position():
    run = RunResult.from_json({"score": 0.5, "passed": True}, "without", 3)
    assert (run.arm, run.index, run.score, run.passed) == ("without", 3, 0.5, True)
    assert RunResult.from_json({"score": 0.5, "passed": True, "index": 7}, "with", 3).index == 7
    assert RunResult.from_json({}, "with").index == 1
    # null costs read as 0.
    nulls = RunResult.from_json({"costUsd": None, "judgeCostUsd": None, "durationSeconds": None}, "with")
    assert (nulls.cost_usd, nulls.judge_cost_usd, nulls.duration_seconds, nulls.score) == (0.0, 0.0, 0.0, None)


def test_run_result_failing():
    result = full_result()
    assert [g.name for g in result.failing] == ["judge"]
    result.graders.append(GraderResult("ind", False, 1, "x", with_only=True, scored=False))
    result.graders.append(GraderResult("err", False, 1, "judge unavailable", scored=False, errored=True))
    assert [g.name for g in result.failing] == ["judge"]
    assert RunResult(arm="with", index=1, score=None, passed=False).failing == []


@pytest.mark.parametrize(
    "kind, infrastructure",
    [("api", True), ("auth", True), ("timeout", False), ("max_turns", False), ("start", False), (None, False)],
)
def test_run_result_infrastructure_error(kind, infrastructure):
    assert RunResult(arm="with", index=1, score=None, passed=False, error_kind=kind).infrastructure_error is (
        infrastructure
    )


# ---- CaseResult ----------------------------------------------------------------------------------------------

HEADER_KEYS = [
    "name",
    "dir",
    "source",
    "promptMarkdown",
    "runsPerCase",
    "timeoutSeconds",
    "maxTurns",
    "model",
    "graders",
    "runsPerArm",
    "effectiveModel",
    "tags",
    "description",
    "expectedOutcome",
    "singleArmReason",
]


def full_case() -> CaseResult:
    return CaseResult(
        name="fix-bug",
        dir="evals/fix-bug",
        source="mixed",
        prompt="Fix the bug.",
        runs_per_case=2,
        timeout_seconds=120,
        max_turns=8,
        graders=[
            GraderInfo("has-fix", "regex", 3, {"pattern": "fix", "target": "last_message"}),
            GraderInfo("judge", "llm", 1, {"focus": "last_message"}, markdown="The fix is explained."),
        ],
        runs_per_arm=1,
        model="sonnet",
        effective_model="claude-sonnet-5",
        tags=("bugs", "python"),
        description="Fixes an off-by-one",
        expected_outcome="A passing test",
        single_arm_reason="no skill",
        arms={"with": [RunResult(arm="with", index=1, score=1.0, passed=True, cost_usd=0.5)]},
        aggregates=CaseAggregates(score=1.0, pass_rate=1.0),
        hints=["look here"],
        extra={"futureField": 1},
    )


def test_case_result_header_json():
    case = full_case()
    header = case.header_json()
    assert list(header) == [*HEADER_KEYS, "futureField"]
    assert header["promptMarkdown"] == "Fix the bug." and header["tags"] == ["bugs", "python"]
    assert header["graders"] == [
        {"name": "has-fix", "type": "regex", "weight": 3, "config": {"pattern": "fix", "target": "last_message"}},
        {
            "name": "judge",
            "type": "llm",
            "weight": 1,
            "graderMarkdown": "The fix is explained.",
            "config": {"focus": "last_message"},
        },
    ]
    doc = case.to_json()
    assert list(doc) == [*HEADER_KEYS, "futureField", "arms", "aggregates", "hints"]
    # The header is the document up to `arms`.
    assert same_text(header, {k: doc[k] for k in list(doc)[: list(doc).index("arms")]})


def test_case_result_header_omits_optional_fields():
    case = CaseResult(
        name="c",
        dir="c",
        source="prose",
        prompt="p",
        runs_per_case=3,
        timeout_seconds=300,
        max_turns=10,
        graders=[],
        runs_per_arm=3,
    )
    assert list(case.header_json()) == [
        "name",
        "dir",
        "source",
        "promptMarkdown",
        "runsPerCase",
        "timeoutSeconds",
        "maxTurns",
        "graders",
        "runsPerArm",
    ]
    assert list(case.to_json()) == [*case.header_json(), "arms", "aggregates"]
    assert case.to_json()["arms"] == {"with": []}
    assert case.to_json()["aggregates"] == {"score": None, "passRate": None, "stdevWith": None}


def test_case_result_header_from_json():
    case = full_case()
    header = json.loads(json.dumps(case.header_json()))
    fresh = CaseResult.header_from_json(header)
    assert fresh.arms == {"with": []} and fresh.runs() == [] and fresh.hints == []
    assert fresh.aggregates == CaseAggregates(None, None)
    assert same_text(fresh.header_json(), header)
    assert (fresh.name, fresh.tags, fresh.effective_model, fresh.extra) == (
        "fix-bug",
        ("bugs", "python"),
        "claude-sonnet-5",
        {"futureField": 1},
    )
    assert fresh.graders[1].markdown == "The fix is explained."
    # The header does not change the mapping it was read from.
    assert header == json.loads(json.dumps(case.header_json()))


def test_case_result_runs_and_cost():
    case = full_case()
    case.arms["without"] = [RunResult(arm="without", index=1, score=0.0, passed=False, cost_usd=0.25)]
    assert [r.arm for r in case.runs()] == ["with", "without"]
    assert [r.score for r in case.runs("without")] == [0.0]
    assert case.runs("nowhere") == []
    assert case.cost_usd == 0.75


def test_case_result_from_json_defaults():
    case = CaseResult.from_json({"name": "c"})
    assert (
        case.dir,
        case.source,
        case.prompt,
        case.runs_per_case,
        case.timeout_seconds,
        case.max_turns,
        case.runs_per_arm,
        case.tags,
        case.arms,
    ) == ("c", "", "", 3, 300, 10, 3, (), {"with": []})
    assert CaseResult.from_json({"name": "c", "runsPerCase": 5}).runs_per_arm == 5
    runs = CaseResult.from_json(
        {"name": "c", "arms": {"with": [{"score": 1, "passed": True}] * 2, "without": [{"score": 0, "passed": False}]}}
    )
    assert [(r.arm, r.index) for r in runs.runs()] == [("with", 1), ("with", 2), ("without", 1)]


def test_case_aggregates_two_arm_follows_delta():
    assert CaseAggregates.from_json({"score": 1, "passRate": 1, "stdevWith": None}).two_arm is False
    two = CaseAggregates.from_json(
        {
            "score": 1,
            "passRate": 1,
            "scoreWithout": None,
            "passRateWithout": None,
            "delta": None,
            "stdevWith": None,
            "stdevWithout": None,
            "deltaCI": None,
            "deltaSignificant": None,
        }
    )
    assert two.two_arm is True and two.delta_ci is None
    ci = CaseAggregates.from_json({"delta": 0.5, "deltaCI": [0.25, 0.75]})
    assert ci.delta_ci == (0.25, 0.75) and ci.to_json()["deltaCI"] == [0.25, 0.75]


def test_case_aggregates_pass_at_k_round_trip():
    doc = {
        "score": 0.8333333333333334,
        "passRate": 0.6666666666666666,
        "scoreWithout": 0.5,
        "passRateWithout": 0.3333333333333333,
        "delta": 0.33333333333333337,
        "stdevWith": 0.28867513459481287,
        "stdevWithout": 0.5,
        "deltaCI": [-0.33, 0.73],
        "deltaSignificant": False,
        "passAtK": {"1": 0.6666666666666666, "2": 1.0, "3": 1.0},
        "passHatK": {"1": 0.6666666666666666, "2": 0.3333333333333333, "3": 0.0},
        "futureAggregate": [1],
    }
    agg = CaseAggregates.from_json(copy.deepcopy(doc))
    # Keyed by k in the model, by its decimal text in the JSON.
    assert agg.pass_at_k == {1: 0.6666666666666666, 2: 1.0, 3: 1.0}
    assert agg.pass_hat_k == {1: 0.6666666666666666, 2: 0.3333333333333333, 3: 0.0}
    assert agg.extra == {"futureAggregate": [1]}
    assert same_text(agg.to_json(), doc)
    assert CaseAggregates.from_json(json.loads(json.dumps(agg.to_json()))) == agg
    # No scored run: empty objects, kept as such.
    empty = {"score": None, "passRate": None, "stdevWith": None, "passAtK": {}, "passHatK": {}}
    assert same_text(CaseAggregates.from_json(copy.deepcopy(empty)).to_json(), empty)
    # A document written before the fields existed stays without them.
    old = {"score": 1.0, "passRate": 1.0, "stdevWith": None}
    read = CaseAggregates.from_json(copy.deepcopy(old))
    assert (read.pass_at_k, read.pass_hat_k) == (None, None) and same_text(read.to_json(), old)


# ---- SuiteResult ---------------------------------------------------------------------------------------------


def small_case(name: str, *runs: tuple[str, int, float, bool, float]) -> CaseResult:
    case = CaseResult(
        name=name,
        dir=name,
        source="prose",
        prompt="p",
        runs_per_case=2,
        timeout_seconds=300,
        max_turns=10,
        graders=[],
        runs_per_arm=2,
        arms={},
    )
    for arm, index, score, passed, cost in runs:
        case.arms.setdefault(arm, []).append(RunResult(arm=arm, index=index, score=score, passed=passed, cost_usd=cost))
    return aggregate(case)


def suite(cases: list[CaseResult], **more) -> SuiteResult:
    return SuiteResult(
        claude_version="2.1.328",
        started_at="2026-01-01T00:00:00.000Z",
        duration_seconds=61.6,
        suite=SuiteInfo(root="/p", ablation="none"),
        cases=cases,
        aggregates=suite_aggregates(cases, 0.7),
        cost_usd=sum(c.cost_usd for c in cases),
        **more,
    )


def test_suite_result_to_json():
    cases = [
        small_case("a", ("with", 1, 1.0, True, 0.5), ("with", 2, 0.5, False, 0.25)),
        small_case("b", ("with", 1, 0.0, False, 0.125)),
    ]
    doc = suite(cases).to_json()
    assert list(doc) == [
        "schemaVersion",
        "claudeVersion",
        "startedAt",
        "durationSeconds",
        "costUsd",
        "partial",
        "suite",
        "cases",
        "aggregates",
        "loadErrors",
    ]
    assert doc["schemaVersion"] == SCHEMA_VERSION == 1 and doc["durationSeconds"] == 62
    assert doc["costUsd"] == 0.875
    assert doc["partial"] is False
    assert doc["aggregates"] == {"casesTotal": 2, "casesPassed": 1, "overallScore": 0.375, "overallPassRate": 0.25}
    assert doc["suite"] == {"root": "/p", "ablation": "none", "threshold": 1.0, "concurrency": 1, "plugins": []}
    assert doc["loadErrors"] == []
    assert suite(cases).two_arm is False


def test_suite_result_partial_load_errors_skipped_runs_notices():
    doc = SuiteResult(
        claude_version="x",
        started_at="",
        duration_seconds=0,
        suite=SuiteInfo("", "none"),
        cases=[],
        aggregates=suite_aggregates([], 0.5),
        partial=True,
        partial_reason="interrupted",
        load_errors=[LoadErrorEntry("z", "evals/z", "broken")],
        skipped_runs=[SkippedRun("c", "evals/c", "without", 2, "cost_ceiling")],
        notices=["n"],
    ).to_json()
    assert doc["partial"] is True and doc["partialReason"] == "interrupted"
    assert doc["notices"] == ["n"]
    assert doc["loadErrors"] == [{"case": "z", "dir": "evals/z", "message": "broken", "problems": []}]
    assert doc["skippedRuns"] == [
        {"case": "c", "dir": "evals/c", "arm": "without", "index": 2, "reason": "cost_ceiling"}
    ]
    assert list(doc).index("partialReason") == list(doc).index("partial") + 1
    assert list(doc)[-3:] == ["loadErrors", "skippedRuns", "notices"]


def test_suite_result_two_arm():
    single = small_case("a", ("with", 1, 1.0, True, 0.0))
    two = small_case("b", ("with", 1, 1.0, True, 0.0), ("without", 1, 0.0, False, 0.0))
    assert suite([single]).two_arm is False
    assert suite([single, two]).two_arm is True
    assert suite([single, two]).to_json()["aggregates"]["meanDelta"] == 1.0


def test_suite_info_to_json_order_and_omissions():
    full = SuiteInfo(
        root="/p",
        ablation="with-without",
        judge_model_resolved="claude-haiku-5-5",
        threshold=0.7,
        concurrency=4,
        plugins=[PluginInfo("greeter", "/p", version="1.2.3"), PluginInfo("other", "/o")],
        model_override="opus",
        judge_model="haiku",
        case_filter=["a", "b"],
        tag_filters=["x"],
        scripted=True,
        regraded_from="/old.json",
        runs_override=5,
        extra={"futureField": True},
    )
    out = full.to_json()
    assert list(out) == [
        "root",
        "ablation",
        "modelOverride",
        "judgeModel",
        "judgeModelResolved",
        "caseFilter",
        "tagFilters",
        "scripted",
        "regradedFrom",
        "threshold",
        "concurrency",
        "runsOverride",
        "plugins",
        "futureField",
    ]
    assert out["plugins"] == [{"name": "greeter", "version": "1.2.3", "path": "/p"}, {"name": "other", "path": "/o"}]
    assert SuiteInfo.from_json(json.loads(json.dumps(out))) == full
    assert SuiteInfo.from_json({}).to_json() == {
        "root": "",
        "ablation": "none",
        "threshold": 1.0,
        "concurrency": 1,
        "plugins": [],
    }


# ---- round trip of whole documents ---------------------------------------------------------------------------


def judged_grader(passed: bool, votes: list[bool], cost: float) -> dict:
    return {
        "name": "reads-well",
        "passed": passed,
        "weight": 2,
        "explanation": "judge votes: " + " ".join("PASS" if v else "FAIL" for v in votes),
        "withOnly": False,
        "scored": True,
        "judgeModel": "claude-haiku-4-5",
        "judgeVotes": votes,
        "evidence": "feat(users): rename getUser to fetchUser",
        "costUsd": cost,
    }


def two_arm_case() -> dict:
    """A two-arm case: a judged grader, an indicator, a custom grader's extra detail, an aborted run with mocks,
    a reused run, a retried run, unknown fields on every object."""
    regex = {
        "name": "names-the-rename",
        "passed": True,
        "weight": 1,
        "explanation": "matched /fetchUser/",
        "withOnly": False,
        "scored": True,
    }
    skill = {
        "name": "skill-fired",
        "passed": True,
        "weight": 1,
        "explanation": "Skill called 1x (expected 1..∞)",
        "withOnly": True,
        "scored": False,
    }
    custom = {
        "name": "custom",
        "passed": False,
        "weight": 0.5,
        "explanation": "2 of 3 files",
        "withOnly": False,
        "scored": True,
        "matches": ["a.py", "b.py"],
        "futureGraderField": {"nested": [1, None]},
    }
    mocks = {
        "servers": [
            {
                "server": "stripe",
                "kind": "agent",
                "replayPinned": 2,
                "tools": [{"tool": "charge", "responder": "agent"}],
            },
            {"server": "github", "kind": "static", "withheld": True, "tools": []},
        ],
        "warnings": ["github: tool list withheld"],
        "calls": {
            "total": 3,
            "errors": 1,
            "unmocked": [{"tool": "mcp__github__search", "count": 1}],
            "costUsd": 0.0042,
            "replay": {"hits": 1, "misses": 1, "stale": 0},
        },
    }
    return {
        "name": "drafts-commit-message",
        "dir": "evals/drafts-commit-message",
        "source": "mixed",
        "promptMarkdown": "Rename getUser to fetchUser and write a commit message.\n",
        "runsPerCase": 3,
        "timeoutSeconds": 240,
        "maxTurns": 12,
        "model": "sonnet",
        "graders": [
            {
                "name": "names-the-rename",
                "type": "regex",
                "weight": 1,
                "config": {"pattern": "fetchUser", "target": "last_message", "match": "contains"},
            },
            {
                "name": "reads-well",
                "type": "llm",
                "weight": 2,
                "graderMarkdown": "The reply is a single conventional-commit message.",
                "config": {"focus": "last_message"},
            },
            {
                "name": "skill-fired",
                "type": "tool_used",
                "weight": 1,
                "config": {"tool": "Skill", "min": 1, "max": None, "input_match": "commit-message"},
            },
            {"name": "custom", "type": "python", "weight": 0.5, "config": {"file": "graders/custom.py", "arm": "both"}},
        ],
        "runsPerArm": 2,
        "effectiveModel": "claude-sonnet-4-5",
        "tags": ["git", "smoke"],
        "description": "Drafts a commit message",
        "expectedOutcome": "feat(users): rename getUser",
        "futureCaseField": {"since": "v2"},
        "arms": {
            "with": [
                {
                    "score": 0.8571428571428571,
                    "passed": False,
                    "turns": 3,
                    "costUsd": 0.01893,
                    "judgeCostUsd": 0.00121,
                    "durationSeconds": 8.417,
                    "startedAt": "2026-11-29T19:14:00.123Z",
                    "error": None,
                    "tracePath": "evals/results/2026-11-29T19-14-00-123Z/runs/drafts/with-1/trace.jsonl",
                    "skippedPaidGraders": False,
                    "graders": [regex, judged_grader(True, [True, True, False], 0.00121), skill, custom],
                    "index": 1,
                    "futureRunField": "x",
                },
                {
                    "score": 1.0,
                    "passed": True,
                    "turns": 4,
                    "costUsd": 0.02,
                    "judgeCostUsd": 0.0,
                    "durationSeconds": 9.0,
                    "startedAt": "2026-11-28T10:00:00.000Z",
                    "error": None,
                    "tracePath": "evals/results/2026-11-28T10-00-00-000Z/runs/drafts/with-2/trace.jsonl",
                    "skippedPaidGraders": True,
                    "graders": [
                        regex,
                        {
                            "name": "reads-well",
                            "passed": False,
                            "weight": 2,
                            "explanation": "skipped: cost ceiling",
                            "withOnly": False,
                            "scored": False,
                            "skipped": True,
                        },
                        skill,
                    ],
                    "attempts": 2,
                    "index": 2,
                    "reused": True,
                },
            ],
            "without": [
                {
                    "score": 0.0,
                    "passed": False,
                    "turns": 2,
                    "costUsd": 0.0112,
                    "judgeCostUsd": 0.0,
                    "durationSeconds": 31.25,
                    "startedAt": "2026-11-29T19:14:05.001Z",
                    "error": "a mock stopped the run: stripe charge (refund requested twice)",
                    "tracePath": None,
                    "skippedPaidGraders": False,
                    "graders": [
                        {**regex, "passed": False, "explanation": "no match for /fetchUser/"},
                        {
                            "name": "reads-well",
                            "passed": False,
                            "weight": 2,
                            "explanation": "judge unavailable: overloaded",
                            "withOnly": False,
                            "scored": False,
                            "judgeModel": "claude-haiku-4-5",
                            "errored": True,
                        },
                    ],
                    "errorKind": "agent",
                    "aborted": {"server": "stripe", "tool": "charge", "reason": "refund requested twice"},
                    "mocks": mocks,
                    "workspace": "/tmp/pytest-plugin-eval-abc/ws",
                    "index": 1,
                },
                {
                    "score": None,
                    "passed": False,
                    "turns": 0,
                    "costUsd": 0.0,
                    "judgeCostUsd": 0.0,
                    "durationSeconds": 0.512,
                    "startedAt": "2026-11-29T19:14:06.000Z",
                    "error": "API error: 529 overloaded",
                    "tracePath": None,
                    "skippedPaidGraders": False,
                    "graders": [],
                    "errorKind": "api",
                    "attempts": 3,
                    "index": 2,
                },
            ],
        },
        "aggregates": {
            "score": 0.9285714285714286,
            "passRate": 0.5,
            "scoreWithout": 0.0,
            "passRateWithout": 0.0,
            "delta": 0.9285714285714286,
            "stdevWith": 0.10101525445522107,
            "stdevWithout": None,
            "deltaCI": None,
            "deltaSignificant": None,
            "passAtK": {"1": 0.5, "2": 1.0},
            "passHatK": {"1": 0.5, "2": 0.0},
            "futureAggregate": 7,
        },
        "hints": ["Δ is large but noisy: run more runs (--runs 5)"],
    }


def single_arm_case() -> dict:
    return {
        "name": "writes-changelog",
        "dir": "evals/writes-changelog",
        "source": "prose",
        "promptMarkdown": "Add a changelog entry.\n",
        "runsPerCase": 1,
        "timeoutSeconds": 300,
        "maxTurns": 10,
        "graders": [
            {
                "name": "changelog-created",
                "type": "file_exists",
                "weight": 1,
                "config": {"path": "CHANGELOG.md", "exists": True},
            }
        ],
        "runsPerArm": 1,
        "singleArmReason": "ablation none",
        "arms": {
            "with": [
                {
                    "score": 1.0,
                    "passed": True,
                    "turns": 2,
                    "costUsd": 0.0,
                    "judgeCostUsd": 0.0,
                    "durationSeconds": 1.5,
                    "startedAt": "2026-11-29T19:14:10.000Z",
                    "error": None,
                    "tracePath": "runs/w/with-1/trace.jsonl",
                    "skippedPaidGraders": False,
                    "graders": [
                        {
                            "name": "changelog-created",
                            "passed": True,
                            "weight": 1,
                            "explanation": "CHANGELOG.md exists as expected",
                            "withOnly": False,
                            "scored": True,
                        }
                    ],
                    "index": 1,
                }
            ]
        },
        "aggregates": {"score": 1.0, "passRate": 1.0, "stdevWith": None, "passAtK": {"1": 1.0}, "passHatK": {"1": 1.0}},
    }


def full_document() -> dict:
    return {
        "schemaVersion": 1,
        "claudeVersion": "2.1.328",
        "startedAt": "2026-11-29T19:14:00.123Z",
        "durationSeconds": 47,
        "costUsd": 0.05034,
        "partial": True,
        "partialReason": "cost_ceiling",
        "suite": {
            "root": "/home/me/commit-craft",
            "ablation": "with-without",
            "modelOverride": "sonnet",
            "judgeModel": "haiku",
            "judgeModelResolved": "claude-haiku-4-5",
            "caseFilter": "drafts",
            "tagFilters": ["git"],
            "scripted": True,
            "regradedFrom": "/old/aggregate-result.json",
            "threshold": 0.7,
            "concurrency": 2,
            "runsOverride": 2,
            "plugins": [
                {"name": "commit-craft", "version": "0.3.0", "path": "/home/me/commit-craft"},
                {"name": "helper", "path": "/home/me/helper"},
            ],
            "futureSuiteField": None,
        },
        "cases": [two_arm_case(), single_arm_case()],
        "aggregates": {
            "casesTotal": 2,
            "casesPassed": 1,
            "overallScore": 0.9642857142857143,
            "overallPassRate": 0.75,
            "meanDelta": 0.9285714285714286,
            "futureSuiteAggregate": "y",
        },
        "loadErrors": [
            {
                "case": "broken",
                "dir": "evals/broken",
                "message": "evals/broken/case.yaml: runs: must be "
                "an integer ≥ 1 (got 'three'); evals/broken/graders/x.md: type is required",
                "problems": [
                    {
                        "file": "evals/broken/case.yaml",
                        "key": "runs",
                        "message": "must be an integer ≥ 1 (got 'three')",
                    },
                    {"file": "evals/broken/graders/x.md", "key": "type", "message": "is required"},
                ],
                "futureLoadErrorField": 1,
            }
        ],
        "skippedRuns": [
            {
                "case": "drafts-commit-message",
                "dir": "evals/drafts-commit-message",
                "arm": "without",
                "index": 3,
                "reason": "cost_ceiling",
            }
        ],
        "notices": ["💡 1 case is below the threshold", "--lf: 1 run(s) of unchanged cases reused from x.json"],
        "futureTopLevelField": {"a": [1, 2, 3]},
    }


def test_round_trip_full_document():
    doc = full_document()
    read = SuiteResult.from_json(copy.deepcopy(doc))
    assert read.to_json() == doc
    assert same_text(read.to_json(), doc)
    # Read again from its own JSON text: still the same.
    again = SuiteResult.from_json(json.loads(json.dumps(read.to_json())))
    assert same_text(again.to_json(), doc)
    assert again == read


def test_round_trip_reads_every_level():
    read = SuiteResult.from_json(full_document())
    assert read.extra == {"futureTopLevelField": {"a": [1, 2, 3]}}
    assert read.suite.extra == {"futureSuiteField": None}
    assert read.aggregates.extra == {"futureSuiteAggregate": "y"} and read.aggregates.two_arm
    assert read.load_errors[0].extra == {"futureLoadErrorField": 1}
    assert len(read.load_errors[0].problems) == 2
    assert read.skipped_runs == [
        SkippedRun("drafts-commit-message", "evals/drafts-commit-message", "without", 3, "cost_ceiling")
    ]
    assert (read.partial, read.partial_reason) == (True, "cost_ceiling")
    two, single = read.cases
    assert two.two_arm and not single.two_arm and read.two_arm
    assert two.extra == {"futureCaseField": {"since": "v2"}}
    assert two.aggregates.extra == {"futureAggregate": 7}
    first, reused = two.runs("with")
    assert first.extra == {"futureRunField": "x"} and first.error_kind is None
    assert first.graders[1].judge_votes == [True, True, False] and first.graders[1].cost_usd == 0.00121
    assert first.graders[3].extra == {"matches": ["a.py", "b.py"], "futureGraderField": {"nested": [1, None]}}
    assert [g.name for g in first.failing] == ["custom"]
    assert reused.reused and reused.attempts == 2 and reused.graders[1].skipped
    aborted, api = two.runs("without")
    assert aborted.aborted == {"server": "stripe", "tool": "charge", "reason": "refund requested twice"}
    assert aborted.mocks["calls"]["replay"] == {"hits": 1, "misses": 1, "stale": 0}
    assert aborted.graders[1].errored and not aborted.graders[1].scored
    assert api.infrastructure_error and api.attempts == 3 and api.score is None
    assert single.single_arm_reason == "ablation none" and single.model is None
    assert single.graders[0] == GraderInfo(
        "changelog-created", "file_exists", 1, {"path": "CHANGELOG.md", "exists": True}
    )


def test_round_trip_single_arm_complete_document():
    doc = {
        "schemaVersion": 1,
        "claudeVersion": "2.1.328",
        "startedAt": "2026-11-29T19:14:00.123Z",
        "durationSeconds": 3,
        "costUsd": 0.0,
        "partial": False,
        "suite": {
            "root": "/p",
            "ablation": "none",
            "threshold": 1.0,
            "concurrency": 1,
            "plugins": [{"name": "p", "path": "/p"}],
        },
        "cases": [single_arm_case()],
        "aggregates": {"casesTotal": 1, "casesPassed": 1, "overallScore": 1.0, "overallPassRate": 1.0},
        "loadErrors": [],
    }
    assert same_text(SuiteResult.from_json(copy.deepcopy(doc)).to_json(), doc)


def test_round_trip_of_an_empty_session():
    doc = {
        "schemaVersion": 1,
        "claudeVersion": "unknown",
        "startedAt": "",
        "durationSeconds": 0,
        "costUsd": 0.0,
        "partial": True,
        "partialReason": "interrupted",
        "suite": {"root": "", "ablation": "none", "threshold": 1.0, "concurrency": 1, "plugins": []},
        "cases": [],
        "aggregates": {"casesTotal": 0, "casesPassed": 0, "overallScore": 0, "overallPassRate": 0},
        "loadErrors": [],
    }
    assert same_text(SuiteResult.from_json(copy.deepcopy(doc)).to_json(), doc)


def test_round_trip_keeps_unknown_fields_of_definitions_and_skipped_runs():
    doc = full_document()
    doc["suite"]["plugins"][0]["futurePluginField"] = "marketplace"
    doc["cases"][0]["graders"][0]["futureGraderInfoField"] = [1]
    doc["skippedRuns"][0]["futureSkippedField"] = True
    assert same_text(SuiteResult.from_json(copy.deepcopy(doc)).to_json(), doc)


def test_round_trip_header():
    for case_doc in full_document()["cases"]:
        header = {k: v for k, v in case_doc.items() if k not in ("arms", "aggregates", "hints")}
        case = CaseResult.from_json(copy.deepcopy(case_doc))
        assert same_text(case.header_json(), header)
        assert same_text(CaseResult.header_from_json(copy.deepcopy(header)).header_json(), header)
        assert same_text(case.to_json(), case_doc)


def test_unknown_fields_elsewhere_are_kept_but_written_in_their_place():
    # An unknown field is written back where this version writes unknown fields of that object: the document
    # is equal, though its key order may differ.
    doc = full_document()
    case_doc = doc["cases"][1]
    doc["cases"][1] = {**case_doc, "trailingField": 1}
    read = SuiteResult.from_json(copy.deepcopy(doc)).to_json()
    assert read == doc
    assert list(read["cases"][1]).index("trailingField") < list(read["cases"][1]).index("arms")
