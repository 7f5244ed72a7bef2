"""The results model pinned against text written by an earlier version of it (`golden/model.json`): a document
with every optional field set at every level, a minimal one, and odd documents as a reader may meet them (nulls,
integer zeros, missing keys, unknown keys, values of the wrong type). Each must write the same JSON text, key
order included, and read into the same values, types included — so the model's code can change while its
schemaVersion 1 documents do not."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_plugin_eval.results.efficiency import Efficiency, Figure, Tokens
from pytest_plugin_eval.results.findings import Finding
from pytest_plugin_eval.results.model import (
    CaseAggregates,
    CaseResult,
    GraderInfo,
    GraderResult,
    LoadErrorEntry,
    Marginal,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteAggregates,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult

GOLDEN = Path(__file__).with_name("golden") / "model.json"


def marginal() -> Marginal:
    return Marginal(0.5, -0.25, delta_ci=(-0.9, 0.4), pairs=2, component="review", cases=1, extra={"futureArm": 1})


def rich_suite() -> SuiteResult:
    """Every optional field set, at every level, and an unknown field on every object."""
    grader = GraderResult(
        "judged",
        False,
        2.5,
        "judge votes: PASS FAIL FAIL",
        with_only=True,
        scored=False,
        judge_model="claude-haiku-5-5",
        judge_votes=[True, False, False],
        evidence="the last message",
        cost_usd=0.0031,
        errored=True,
        skipped=True,
        extra={"futureGrader": [1, 2]},
    )
    run = RunResult(
        "with",
        2,
        score=0.25,
        passed=False,
        turns=7,
        cost_usd=0.5,
        judge_cost_usd=0.0031,
        duration_seconds=12.346,
        started_at="2026-11-30T10:00:00.000Z",
        error="the API answered 529",
        error_kind="api",
        trace_path="/r/trace.jsonl",
        skipped_paid_graders=True,
        graders=[grader, GraderResult("plain", True, 1, "ok")],
        aborted={"server": "stripe", "tool": "charge", "reason": "twice"},
        mocks={"servers": ["stripe"], "calls": {"replay": {"hits": 1}}},
        refused_tools=[{"tool": "Write", "why": "not granted"}],
        conversation={
            "messages": [{"by": "prompt", "text": "Interview me."}, {"by": "simulated", "text": "I am Ada."}],
            "questions": [{"question": "Colour?", "header": "Colour", "answer": "Blue", "by": "answers"}],
            "userCostUsd": 0.0004,
        },
        workspace="/tmp/ws",
        attempts=3,
        reused=True,
        conditions={"prompt": "ab12", "model": "claude-sonnet-5", "claudeCode": "2.1.328", "isolation": 1},
        reused_from={"session": "2026-11-29T09:00:00.000Z", "index": 2, "agentCostUsd": 0.02},
        tool_calls=5,
        tokens=Tokens(120, 80, 3000, 400, extra={"futureTokens": 1}),
        agent_seconds=9.876,
        extra={"futureRun": "x"},
        notes=["not written"],
    )
    without = RunResult("without", 1, score=1.0, passed=True, cost_usd=0.0)
    info = GraderInfo("judged", "llm", 2.5, {"rubric": "r"}, markdown="Is it polite?", extra={"futureGraderInfo": True})
    aggregates = CaseAggregates(
        0.25,
        0.0,
        stdev_with=0.1,
        two_arm=True,
        score_without=1.0,
        pass_rate_without=1.0,
        delta=-0.75,
        stdev_without=0.0,
        delta_ci=(-1.0, -0.5),
        delta_significant=True,
        pass_at_k={1: 0.0, 2: None},
        pass_hat_k={1: 0.0, 2: 0.0},
        efficiency=rich_efficiency(),
        delta_against=marginal(),
        ablations={"review": marginal()},
        extra={"futureAggregate": 7},
    )
    case = CaseResult(
        name="polite",
        dir="evals/polite",
        source="mixed",
        prompt="Be polite.",
        runs_per_case=5,
        timeout_seconds=120,
        max_turns=4,
        graders=[info],
        runs_per_arm=2,
        model="sonnet",
        effective_model="claude-sonnet-5",
        tags=("tone", "slow"),
        description="politeness",
        expected_outcome="a polite reply",
        single_arm_reason="not single",
        auto_runs={"runs": 2, "stopped": "max"},
        warnings=["Write is not granted"],
        arms={"with": [run], "without": [without]},
        aggregates=aggregates,
        hints=["grader judged failed twice"],
        extra={"futureCase": {"since": "v2"}},
    )
    plugin = PluginInfo(
        "greeter",
        "/p",
        version="1.2.3",
        git_commit="a" * 40,
        git_dirty=False,
        skill_descriptions={"greeter:greet": "Greets the user.", "greeter:bare": None},
        content_hash="c" * 64,
        extra={"futurePlugin": 1},
    )
    suite = SuiteInfo(
        "/suite",
        "with-without",
        judge_model_resolved="claude-haiku-5-5",
        threshold=0.8,
        concurrency=4,
        plugins=[plugin],
        model_override="opus",
        judge_model="haiku",
        case_filter=["polite", "greet*"],
        tag_filters=["tone"],
        scripted=True,
        regraded_from="/old/results.json",
        runs_override=2,
        auto_runs={"first": 3, "max": 10, "width": 0.2, "lookLevel": 0.05},
        shard="1/2",
        merged_from=["a.json", "b.json"],
        against="v1.0.0",
        ablated=["review"],
        fail_on_worse=True,
        extra={"futureSuite": None},
    )
    return SuiteResult(
        "2.1.328",
        "2026-11-30T10:00:00.000Z",
        84.0,
        suite,
        [case],
        SuiteAggregates(
            1,
            0,
            0.25,
            0.0,
            two_arm=True,
            mean_delta=-0.75,
            efficiency=rich_efficiency(),
            delta_against=marginal(),
            ablations=[marginal()],
            extra={"futureSuiteAggregate": "y"},
        ),
        cost_usd=0.5031,
        partial=True,
        partial_reason="cost_ceiling",
        load_errors=[
            LoadErrorEntry(
                "broken",
                "evals/broken",
                "evals/broken/case.yaml: runs: must be a number",
                [{"file": "case.yaml", "key": "runs", "message": "must be a number"}],
                extra={"futureLoadError": 1},
            )
        ],
        skipped_runs=[SkippedRun("polite", "evals/polite", "without", 2, "cost_ceiling", extra={"futureSkip": 0})],
        notices=["the cost ceiling was reached"],
        triggers=[rich_trigger_set()],
        findings=[
            Finding(
                "polite",
                grader="judged",
                kind="rubric-without-condition",
                message="the rubric states no condition",
                fix="say what passes",
                extra={"futureFinding": 1},
            )
        ],
        access={"runs": "login", "judges": "claude-code", "label": "Claude Code login (max plan)", "plan": True},
        schema_version=1,
        extra={"futureTop": {"a": [1, 2, 3]}},
    )


def rich_efficiency() -> Efficiency:
    """Every figure set (one with every field), and an unknown field."""
    full = Figure(
        {"with": 7, "without": 3},
        runs={"with": 1, "without": 1},
        cases=1,
        delta=4,
        delta_ci=(1.0, 6.0),
        ci_level=0.9,
        extra={"futureFigure": 1},
    )
    names = [f.name for f in dataclasses.fields(Efficiency) if f.name != "extra"]
    return Efficiency(**{name: full for name in names}, extra={"futureEfficiency": True})


def rich_trigger_set() -> TriggerSetResult:
    run = TriggerRun(
        2,
        True,
        skill="greeter:greet",
        decided_by="Skill call",
        turns=1,
        cost_usd=0.0012,
        duration_seconds=1.235,
        started_at="2026-11-30T10:00:01.000Z",
        attempts=2,
        error="exit 1: overloaded (then retried)",
        error_kind="api",
        trace_path="evals/results/x/runs/triggers/greet/hi/with-2/trace.jsonl",
        extra={"futureTriggerRun": 1},
        notes=["a notice"],
    )
    query = QueryResult("hi", "hello there", True, extra={"futureQuery": True}, runs=[run], against_runs=[run])
    return TriggerSetResult(
        "greeter:greet",
        "greet",
        kind="command",
        description="Greets the user.",
        file="evals/triggers.yaml",
        format="skill-creator",
        threshold=0.6,
        runs_per_query=5,
        max_turns=4,
        model="claude-haiku-4-5",
        scripted_by_description=True,
        extra={"futureTriggerSet": "z"},
        queries=[query],
    )


def minimal_suite() -> SuiteResult:
    """Only what has no default, at every level."""
    run = RunResult("with", 1, score=None, passed=False)
    case = CaseResult("bare", "evals/bare", "prose", "Hi.", 3, 300, 10, [GraderInfo("g", "regex", 1, {})], 3)
    case.arms["with"].append(run)
    return SuiteResult("2.1.328", "", 0.0, SuiteInfo("", "none"), [case], SuiteAggregates(0, 0, 0, 0))


# Documents as a reader may meet them: (type, arguments after the document, the document).
ODD: dict[str, tuple[type, tuple, Any]] = {
    "grader-int-flags-and-defaults": (GraderResult, (), {"name": "g", "passed": 1, "errored": 1, "scored": None}),
    "grader-zero-costs": (GraderResult, (), {"name": "g", "passed": True, "costUsd": 0, "skipped": 0}),
    "grader-null-cost": (GraderResult, (), {"name": "g", "passed": True, "costUsd": None, "judgeVotes": None}),
    "grader-unknown-keys-first": (
        GraderResult,
        (),
        {"zeta": 1, "name": "g", "alpha": 2, "passed": False, "costUsd": 1, "weight": 0, "explanation": None},
    ),
    "grader-no-name": (GraderResult, (), {"passed": True}),
    "grader-no-passed": (GraderResult, (), {"name": "g"}),
    "run-empty": (RunResult, ("without", 4), {}),
    "run-nulls": (
        RunResult,
        ("with",),
        {
            "score": None,
            "passed": None,
            "turns": None,
            "costUsd": None,
            "judgeCostUsd": None,
            "durationSeconds": None,
            "startedAt": None,
            "graders": None,
            "attempts": None,
            "index": None,
            "errorKind": None,
        },
    ),
    "run-int-zeros": (
        RunResult,
        ("with", 2),
        {"costUsd": 0, "judgeCostUsd": 0, "durationSeconds": 0, "turns": 0, "score": 0, "passed": 0, "attempts": 0},
    ),
    "run-falsy-optionals": (
        RunResult,
        ("with",),
        {"errorKind": "", "workspace": "", "aborted": {}, "mocks": {}, "reused": 0, "attempts": 1, "index": 9},
    ),
    "run-unknown-keys": (
        RunResult,
        ("with",),
        {"arm": "without", "score": 1, "passed": "yes", "notes": ["x"], "index": 3, "tail": True},
    ),
    "run-whole-numbers": (RunResult, ("with",), {"costUsd": 2, "durationSeconds": 1.23456789, "attempts": 2}),
    "grader-info-minimal": (GraderInfo, (), {"name": "g"}),
    "grader-info-nulls": (GraderInfo, (), {"name": "g", "type": None, "config": None, "graderMarkdown": None}),
    "grader-info-config-first": (GraderInfo, (), {"config": {"a": 1}, "extraKey": 1, "name": "g", "weight": 2.0}),
    "grader-info-no-name": (GraderInfo, (), {"type": "regex"}),
    "aggregates-empty": (CaseAggregates, (), {}),
    "aggregates-null-delta": (CaseAggregates, (), {"delta": None}),
    "aggregates-odd-ci": (CaseAggregates, (), {"delta": 0.5, "deltaCI": [], "deltaSignificant": 1}),
    "aggregates-long-ci": (CaseAggregates, (), {"delta": 0.5, "deltaCI": [0.1, 0.2, 0.3]}),
    "aggregates-one-arm-with-without-fields": (
        CaseAggregates,
        (),
        {"score": 1, "scoreWithout": 0.5, "stdevWithout": 0.1, "passAtK": {"1": 0.5, "3": None}, "passHatK": None},
    ),
    "case-minimal": (CaseResult, (), {"name": "c"}),
    "case-runs-per-case-only": (CaseResult, (), {"name": "c", "runsPerCase": 5}),
    "case-nulls": (
        CaseResult,
        (),
        {
            "name": "c",
            "arms": None,
            "tags": None,
            "warnings": None,
            "hints": None,
            "graders": None,
            "aggregates": None,
            "model": None,
            "autoRuns": None,
            "dir": None,
        },
    ),
    "case-falsy": (
        CaseResult,
        (),
        {"name": "c", "effectiveModel": "", "tags": [], "warnings": [], "hints": [], "autoRuns": {}, "model": ""},
    ),
    "case-without-arm-only": (
        CaseResult,
        (),
        {"name": "c", "arms": {"without": [{"score": 1}, {"index": 5}], "with": []}, "aggregates": {"delta": 1}},
    ),
    "case-unknown-keys-between": (CaseResult, (), {"a": 1, "name": "c", "arms": {"with": []}, "z": 2, "hints": ["h"]}),
    "case-no-name": (CaseResult, (), {"dir": "evals/x"}),
    "plugin-empty": (PluginInfo, (), {}),
    "plugin-wrong-git-types": (PluginInfo, (), {"gitCommit": 5, "gitDirty": "yes", "version": None}),
    "plugin-git-false": (PluginInfo, (), {"name": "p", "gitCommit": "", "gitDirty": False, "path": "/p"}),
    "plugin-wrong-facts-types": (
        PluginInfo,
        (),
        {"name": "p", "path": "/p", "skillDescriptions": {"p:s": 3, "p:t": "T."}, "contentHash": 5},
    ),
    "plugin-facts-not-a-mapping": (PluginInfo, (), {"name": "p", "path": "/p", "skillDescriptions": ["p:s"]}),
    "suite-info-empty": (SuiteInfo, (), {}),
    "suite-info-falsy": (
        SuiteInfo,
        (),
        {
            "modelOverride": "",
            "judgeModel": "",
            "judgeModelResolved": "",
            "caseFilter": [],
            "tagFilters": [],
            "scripted": 1,
            "runsOverride": 0,
            "threshold": 0,
            "concurrency": None,
            "shard": None,
            "mergedFrom": [],
            "autoRuns": {},
            "regradedFrom": "",
            "plugins": None,
        },
    ),
    "suite-info-case-filter-text": (SuiteInfo, (), {"caseFilter": "polite", "threshold": 1, "scripted": False}),
    "suite-aggregates-empty": (SuiteAggregates, (), {}),
    "suite-aggregates-null-mean-delta": (SuiteAggregates, (), {"meanDelta": None, "overallScore": 0.0}),
    "load-error-empty": (LoadErrorEntry, (), {"problems": None}),
    "skipped-run": (SkippedRun, (), {"case": "c", "dir": "d", "arm": "with", "index": 1, "reason": "r", "x": 1}),
    "skipped-run-incomplete": (SkippedRun, (), {"case": "c", "dir": "d", "arm": "with", "index": 1}),
    "suite-empty": (SuiteResult, (), {}),
    "suite-nulls": (
        SuiteResult,
        (),
        {
            "suite": None,
            "cases": None,
            "aggregates": None,
            "loadErrors": None,
            "skippedRuns": None,
            "notices": None,
            "partialReason": None,
            "costUsd": None,
            "partial": None,
        },
    ),
    "suite-null-duration": (SuiteResult, (), {"durationSeconds": None}),
    "suite-numbers": (SuiteResult, (), {"durationSeconds": 2.6, "costUsd": 0, "schemaVersion": 2, "notices": []}),
}


def typed(value: Any) -> Any:
    """A value as JSON that keeps what JSON loses: each scalar's type, tuples, dict keys' types, dataclasses'
    field names (sorted: the declaration order of fields is free to change)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: typed(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"@" + type(value).__name__: dict(sorted(fields.items()))}
    if isinstance(value, tuple):
        return {"@tuple": [typed(v) for v in value]}
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, dict):
        return {"@dict": [[typed(k), typed(v)] for k, v in value.items()]}
    return [type(value).__name__, value]


def outcome(call) -> Any:
    """What a call gives: its value, or the exception it raised."""
    try:
        return {"value": call()}
    except Exception as exc:  # the exception is what is pinned
        return {"raises": f"{type(exc).__name__}: {exc}"}


def observed() -> dict:
    """Everything this test pins, as the model gives it now."""
    read: dict[str, Any] = {}
    for name, (cls, args, data) in ODD.items():
        result = outcome(lambda cls=cls, args=args, data=data: cls.from_json(copy.deepcopy(data), *args))
        entry: dict[str, Any] = {"read": typed(result["value"]) if "value" in result else result}
        if "value" in result:
            entry["written"] = outcome(lambda obj=result["value"]: obj.to_json())
        read[name] = entry
    return {"rich": rich_suite().to_json(), "minimal": minimal_suite().to_json(), "read": read}


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now() -> dict:
    return json.loads(json.dumps(observed()))


def text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("which", ["rich", "minimal"])
def test_documents_write_the_pinned_text(golden, now, which):
    assert text(now[which]) == text(golden[which])


@pytest.mark.parametrize("which", [rich_suite, minimal_suite])
def test_documents_read_back_equal(which):
    suite = which()
    again = SuiteResult.from_json(json.loads(json.dumps(suite.to_json())))
    for case in suite.cases:
        for run in case.runs():
            run.notes = []  # notices for the session, not part of the document
    for trigger_run in (r for t in suite.triggers for r in t.runs):
        trigger_run.notes = []
    assert again == suite
    assert text(again.to_json()) == text(suite.to_json())


def unset_fields(obj: Any, path: str) -> list[str]:
    """The fields at their default in `obj` and in the first item of each of its lists and dicts, deep."""
    found = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if value == default:
            found.append(f"{path}.{f.name}")
        first = next(iter(value.values())) if isinstance(value, dict) and value else value
        first = first[0] if isinstance(first, list) and first else first
        if dataclasses.is_dataclass(first):
            found += unset_fields(first, f"{path}.{f.name}")
    return found


def test_rich_document_sets_every_field():
    # Nothing is left at its default, so a field the writer forgets to write cannot hide.
    assert unset_fields(rich_suite(), "suite") == ["suite.schema_version"]


@pytest.mark.parametrize("name", list(ODD))
def test_odd_documents_read_and_write_as_pinned(golden, now, name):
    assert text(now["read"][name]) == text(golden["read"][name])


def test_every_odd_document_is_pinned(golden):
    assert sorted(golden["read"]) == sorted(ODD)
