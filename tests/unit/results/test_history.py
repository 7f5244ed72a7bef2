"""A suite's past sessions (results.history): scanning results folders — good, partial, corrupt and foreign —,
the row each session becomes, and which earlier sessions a report's trend may draw; plus the plugin's version
and git commit in the document, through to_json/from_json and merge."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.merge import merge
from pytest_plugin_eval.results import history
from pytest_plugin_eval.results.history import Scan, scan, summarize, trend
from pytest_plugin_eval.results.model import (
    CaseResult,
    GraderInfo,
    PluginInfo,
    RunResult,
    SuiteResult,
)

SHA = "0123456789abcdef0123456789abcdef01234567"
REGEX = GraderInfo("greeting", "regex", 1, {"pattern": "^Hello"})


def case(
    name: str, with_scores=(1.0,), without_scores=(0.0,), graders=(REGEX,), model: str | None = None
) -> CaseResult:
    return case_result(name, with_scores, without_scores or None, graders, effective_model=model)


def document(
    started_at: str, *cases: CaseResult, commit: str | None = SHA, dirty: bool | None = False, **suite
) -> SuiteResult:
    suite.setdefault("ablation", "with-without")
    suite["judge_model_resolved"] = suite.pop("judge", "claude-haiku-4-5")
    plugin = PluginInfo("greeter", "/p", version="1.2.3", git_commit=commit, git_dirty=dirty)
    return suite_result(*(cases or (case("greet"),)), started_at=started_at, plugin=plugin, **suite)


def write(results: Path, name: str, content: SuiteResult | str | dict, mtime: float | None = None) -> Path:
    folder = results / name
    folder.mkdir(parents=True)
    file = folder / "aggregate-result.json"
    if isinstance(content, SuiteResult):
        content = content.to_json()
    file.write_text(content if isinstance(content, str) else json.dumps(content))
    if mtime is not None:
        os.utime(file, (mtime, mtime))
    return folder


def T(day: int) -> str:
    return f"2026-03-{day:02d}T10:00:00.000Z"


# ---- the document ------------------------------------------------------------------------------------------


def test_the_plugins_git_state_round_trips():
    info = PluginInfo("greeter", "/p", version="1.2.3", git_commit=SHA, git_dirty=True, extra={"x": 1})
    out = info.to_json()
    assert list(out) == ["name", "version", "path", "gitCommit", "gitDirty", "x"]
    assert PluginInfo.from_json(out) == info
    bare = PluginInfo("greeter", "/p")
    assert bare.to_json() == {"name": "greeter", "path": "/p"}
    assert PluginInfo.from_json(bare.to_json()) == bare
    doc = document(T(1))
    assert SuiteResult.from_json(json.loads(json.dumps(doc.to_json()))).to_json() == doc.to_json()


def test_merge_carries_the_git_state_and_says_when_shards_differ():
    a = document(T(1), case("a"), shard="1/2")
    b = document(T(1), case("b"), shard="2/2")
    merged = merge([a, b], ["s1", "s2"])
    assert merged.suite.plugins[0].git_commit == SHA and merged.suite.plugins[0].git_dirty is False
    assert not any("different states" in n for n in merged.notices)
    c = document(T(1), case("b"), shard="2/2", dirty=True)
    assert any("different states of the plugin" in n for n in merge([a, c], ["s1", "s2"]).notices)


# ---- scan ----------------------------------------------------------------------------------------------------


def test_scan_reads_good_and_partial_sessions_and_skips_the_rest(tmp_path):
    results = tmp_path / "evals" / "results"
    write(results, "2026-03-01T10-00-00-000Z", document(T(1)), mtime=1000)
    partial = dataclasses.replace(document(T(2)), partial=True, partial_reason="cost_ceiling")
    write(results, "2026-03-02T10-00-00-000Z", partial, mtime=2000)
    write(results, "corrupt", '{"schemaVersion": 1, "cases": [', mtime=3000)
    write(results, "array", "[1, 2]", mtime=3001)
    write(results, "future", {"schemaVersion": 2, "suite": {}, "cases": []}, mtime=3002)
    write(results, "several", {"schemaVersion": 1, "suites": []}, mtime=3003)
    write(results, "bad-case", {"schemaVersion": 1, "suite": {}, "cases": [{"no": "name"}]}, mtime=3004)
    (results / "init").mkdir()  # plugin-eval init's transcripts
    (results / "pilot.json").write_text("{}")  # a file, not a session
    found = scan([results])
    assert [s.folder.name for s in found.sessions] == ["2026-03-02T10-00-00-000Z", "2026-03-01T10-00-00-000Z"]
    assert found.sessions[0].document.partial
    reasons = {s.folder.name: s.reason for s in found.skipped}
    assert set(reasons) == {"corrupt", "array", "future", "several", "bad-case", "init"}
    assert "not JSON" in reasons["corrupt"]
    assert "the JSON is not an object" in reasons["array"]
    assert "schemaVersion 2" in reasons["future"]
    assert "several suites" in reasons["several"]
    assert "cases[0].name: missing" in reasons["bad-case"]
    assert "no aggregate-result.json" in reasons["init"]
    assert found.not_read == 0


def test_scan_reads_only_the_most_recent_and_leaves_out_the_current_folder(tmp_path):
    results = tmp_path / "results"
    for day in range(1, 7):
        write(results, f"s{day}", document(T(day)), mtime=day * 100)
    found = scan([results], limit=3, exclude=[results / "s6"])
    assert [s.folder.name for s in found.sessions] == ["s5", "s4", "s3"]
    assert found.not_read == 2
    assert len(scan([results], limit=None).sessions) == 6
    assert scan([tmp_path / "missing"]) == Scan([], [])


def test_a_model_matrix_folder_is_skipped_or_with_matrices_read_as_a_session_per_model(tmp_path):
    results = tmp_path / "results"
    write(results, "solo", document(T(1)), mtime=1000)
    top = results / "matrix"
    for model in ("haiku", "sonnet"):
        write(top, model, document(T(2), model_override=model), mtime=2000)
    models = [{"model": m, "document": f"{m}/aggregate-result.json"} for m in ("haiku", "sonnet", "gone")]
    (top / "matrix.json").write_text(json.dumps({"kind": "plugin-eval/model-matrix", "models": models}))
    plain = scan([results])
    assert [s.folder.name for s in plain.sessions] == ["solo"]
    assert "a model matrix" in plain.skipped[0].reason
    found = scan([results], matrices=True)
    assert sorted(s.folder.name for s in found.sessions[:2]) == ["haiku", "sonnet"]
    assert found.sessions[2].folder.name == "solo"
    assert [(s.folder.name, "cannot be read" in s.reason) for s in found.skipped] == [("gone", True)]
    assert scan([results], matrices=True, exclude=[top]).sessions[0].folder.name == "solo"


def test_sessions_are_listed_by_their_start_newest_first(tmp_path):
    results = tmp_path / "results"
    write(results, "b", document(T(1)), mtime=2000)  # written later (a merge of old shards, say)
    write(results, "a", document(T(2)), mtime=1000)
    assert [s.folder.name for s in scan([results]).sessions] == ["a", "b"]


# ---- rows ----------------------------------------------------------------------------------------------------


def test_a_session_becomes_a_row(tmp_path):
    doc = document(T(1), case("a", (1.0, 0.5)), case("b", (1.0,) * 3, (0.0,) * 3), dirty=True, model_override="opus")
    row = summarize(history.PastSession(tmp_path, doc))
    assert (row.version, row.git_commit, row.git_dirty) == ("1.2.3", SHA, True)
    assert (row.model, row.judge_model, row.cases) == ("opus", "claude-haiku-4-5", 2)
    assert row.overall_score == pytest.approx(0.875) and row.mean_delta == pytest.approx(0.875)
    assert row.runs_per_arm == (2, 3) and row.note is None and not row.partial
    assert row.cost_usd == pytest.approx(0.05)
    out = row.to_json()
    assert out["gitCommit"] == SHA and out["runsPerArm"] == [2, 3] and out["startedAt"] == T(1)


@pytest.mark.parametrize(
    ("suite", "note", "model"),
    [
        ({"regraded_from": "/r/x"}, "regraded", "default"),
        ({"merged_from": ["a", "b"]}, "merged", "default"),
        ({"shard": "1/2"}, "shard", "default"),
        ({"scripted": True}, None, "scripted"),
    ],
)
def test_the_note_and_model_of_a_row(tmp_path, suite, note, model):
    row = summarize(history.PastSession(tmp_path, document(T(1), **suite)))
    assert (row.note, row.model) == (note, model)


def test_a_session_that_reused_runs_is_noted_lf(tmp_path):
    rerun = case("a")
    rerun.arms["with"][0] = dataclasses.replace(rerun.arms["with"][0], reused=True)
    assert summarize(history.PastSession(tmp_path, document(T(1), rerun))).note == "lf"


def test_a_single_arm_session_has_no_mean_delta_and_no_git(tmp_path):
    doc = document(T(1), case("a", without_scores=()), commit=None, dirty=None)
    row = summarize(history.PastSession(tmp_path, doc))
    assert row.mean_delta is None and row.git_commit is None and row.git_dirty is None
    assert "gitCommit" not in doc.to_json()["suite"]["plugins"][0]


def test_the_json_list(tmp_path):
    results = tmp_path / "results"
    write(results, "a", document(T(1)))
    write(results, "junk", "nope")
    out = history.history_json(scan([results]))
    assert [s["startedAt"] for s in out["sessions"]] == [T(1)]
    assert out["skipped"][0]["folder"].endswith("junk") and "not JSON" in out["skipped"][0]["reason"]


# ---- the trend -----------------------------------------------------------------------------------------------


def scores(points) -> list:
    return [(p.started_at, p.score, p.delta, p.current) for p in points]


def test_a_case_line_runs_over_the_comparable_sessions_oldest_first():
    past = [document(T(1), case("greet", (0.0,), (0.0,))), document(T(2), case("greet", (0.5,), (0.0,)))]
    now = document(T(3), case("greet", (1.0,), (0.0,)))
    t = trend(now, past)
    assert scores(t.cases[0].points) == [(T(1), 0.0, 0.0, False), (T(2), 0.5, 0.5, False), (T(3), 1.0, 1.0, True)]
    assert t.cases[0].points[0].git_commit == SHA and t.has_history
    assert [p.score for p in t.suite] == [0.0, 0.5, 1.0]


@pytest.mark.parametrize(
    "other",
    [
        {"judge": "claude-sonnet-4-6"},
        {"ablation": "none"},
        {"scripted": True},
        {"model_override": "opus"},
        {"regraded_from": "/r/x"},
        {"shard": "1/2"},
    ],
)
def test_sessions_with_other_settings_are_passed_over(other):
    model = "opus" if "model_override" in other else None
    past = [
        document(T(1), case("greet", (0.5,))),
        document(T(2), case("greet", (0.0,), model=model), **other),
    ]
    t = trend(document(T(3), case("greet")), past)
    assert [p.started_at for p in t.cases[0].points] == [T(1), T(3)]
    assert [p.started_at for p in t.suite] == [T(1), T(3)]


def test_a_changed_grader_starts_the_case_over():
    stricter = dataclasses.replace(REGEX, config={"pattern": "^Hello from"})
    past = [
        document(T(1), case("greet", (0.0,), graders=(REGEX,)), case("other")),
        document(T(2), case("greet", (0.5,), graders=(stricter,)), case("other")),
        document(T(3), case("greet", (0.7,), graders=(stricter,)), case("other")),
    ]
    t = trend(document(T(4), case("greet", graders=(stricter,)), case("other")), past)
    assert [p.started_at for p in t.cases[0].points] == [T(2), T(3), T(4)]
    assert [p.started_at for p in t.cases[1].points] == [T(1), T(2), T(3), T(4)]
    assert [p.started_at for p in t.suite] == [T(2), T(3), T(4)]  # the suite starts over with it


def test_a_session_without_the_case_or_with_other_cases_is_a_gap_not_a_break():
    past = [
        document(T(1), case("greet", (0.5,)), case("other")),
        document(T(2), case("other")),  # --case other
        document(T(3), case("greet", (0.0,))),  # --case greet
    ]
    t = trend(document(T(4), case("greet"), case("other")), past)
    assert [p.started_at for p in t.cases[0].points] == [T(1), T(3), T(4)]
    assert [p.started_at for p in t.suite] == [T(1), T(4)]


def test_only_earlier_sessions_count_and_no_history_is_said():
    now = document(T(2), case("greet"))
    t = trend(now, [now, document(T(3), case("greet"))])
    assert [p.current for p in t.cases[0].points] == [True]
    assert not t.has_history
    assert trend(now, []).suite == [t.suite[0]]


def test_a_case_without_a_score_is_no_point():
    errored = case_result("greet", [RunResult("with", 1, score=None, passed=False, error="api")], [0.0])
    t = trend(document(T(3), case("greet")), [document(T(1), errored), document(T(2), case("greet", (0.5,)))])
    assert [p.started_at for p in t.cases[0].points] == [T(2), T(3)]


def test_odd_values_in_an_old_document_neither_break_the_row_nor_the_trend(tmp_path):
    results = tmp_path / "results"
    odd = document(T(1)).to_json()
    odd["startedAt"] = 5
    odd["suite"]["plugins"][0].update(version=2, gitCommit=123, gitDirty="yes")
    odd["cases"][0]["effectiveModel"] = 7
    write(results, "odd", odd)
    found = scan([results])
    row = summarize(found.sessions[0])
    assert (row.started_at, row.version, row.git_commit, row.git_dirty, row.model) == ("5", "2", None, None, "7")
    assert not trend(document(T(2)), [s.document for s in found.sessions]).has_history
