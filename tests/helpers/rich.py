"""A results document with every optional field set at every level, and one with only what has no default: what
the golden tests of the results document write (`tests/unit/results/golden/model.json`, the registry's
`results.json`)."""

from __future__ import annotations

import dataclasses

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
