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
from helpers.rich import minimal_suite, rich_suite

from pytest_plugin_eval.results.model import (
    CaseAggregates,
    CaseResult,
    GraderInfo,
    GraderResult,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteAggregates,
    SuiteInfo,
    SuiteResult,
)

GOLDEN = Path(__file__).with_name("golden") / "model.json"


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
