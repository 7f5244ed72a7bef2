"""Unit tests for the results folder on disk (pytest_plugin_eval.results.store): its layout, atomic writes, the
document's text, and reading a document back."""

from __future__ import annotations

import json
import os
import stat

import pytest

from pytest_plugin_eval.core.clock import now_iso
from pytest_plugin_eval.results.model import (
    CaseAggregates,
    CaseResult,
    GraderInfo,
    GraderResult,
    RunResult,
    SuiteAggregates,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.store import (
    ResultsFolder,
    document_text,
    read_results,
    timestamp_dirname,
    write_atomic,
    write_json,
)
from pytest_plugin_eval.run.artefacts import RunFolder

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


def test_document_text():
    assert document_text({}) == "{}\n"
    assert document_text({"z": None, "a": [True, 0.5], "é": "→"}) == (
        '{\n "z": null,\n "a": [\n  true,\n  0.5\n ],\n "é": "→"\n}\n'
    )


# ---- write_atomic --------------------------------------------------------------------------------------------


def test_write_atomic_writes_text_as_utf8(tmp_path):
    path = tmp_path / "report.html"
    write_atomic(path, "<p>naïve ✓</p>")
    assert path.read_bytes() == "<p>naïve ✓</p>".encode()
    assert os.listdir(tmp_path) == ["report.html"]


def test_write_atomic_gives_the_usual_permissions(tmp_path):
    # mkstemp alone would make the file owner-only; the result follows the umask like any other file.
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.json", "{}")
        os.umask(0o077)
        write_atomic(tmp_path / "b.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o600


def test_write_atomic_interrupted_rename_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    write_atomic(path, "old")

    def failing_replace(src, dst):
        raise KeyboardInterrupt  # a kill between writing and renaming

    monkeypatch.setattr("pytest_plugin_eval.results.store.os.replace", failing_replace)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "new")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["results.json"]


# ---- timestamps ----------------------------------------------------------------------------------------------


def test_timestamps():
    assert timestamp_dirname("2026-11-29T19:14:00.123Z") == "2026-11-29T19-14-00-123Z"
    stamp = now_iso()
    assert stamp.endswith("Z") and len(stamp) == len("2026-11-29T19:14:00.123Z")
    assert stamp[10] == "T" and stamp[19] == "."
    assert ":" not in timestamp_dirname(stamp) and "." not in timestamp_dirname(stamp)


# ---- ResultsFolder -------------------------------------------------------------------------------------------


def test_results_folder_layout(tmp_path):
    folder = ResultsFolder.for_session(tmp_path / "evals", "2026-11-29T19:14:00.123Z")
    base = tmp_path / "evals" / "results" / "2026-11-29T19-14-00-123Z"
    assert folder.path == base
    assert folder.results_file == base / "aggregate-result.json"
    assert folder.report_file == base / "report.html"
    assert folder.recordings == base / "mock-recordings"
    assert not base.exists()  # naming the files creates nothing


def test_results_folder_run_folder(tmp_path):
    folder = ResultsFolder(tmp_path / "r")
    run = folder.run_folder("group/fix-bug", "without", 2)
    assert isinstance(run, RunFolder)
    assert run.path == tmp_path / "r" / "runs" / "group" / "fix-bug" / "without-2"
    assert run.trace == run.path / "trace.jsonl"
    assert run.stderr == run.path / "stderr.txt"
    assert run.files == run.path / "files"
    assert folder.run_folder("group/fix-bug", "with", 1).path.name == "with-1"


# ---- reading a document --------------------------------------------------------------------------------------


def small_document() -> SuiteResult:
    grader = GraderResult("greeting", True, 1, "matched /Hello/")
    runs = [
        RunResult(
            arm="with",
            index=1,
            score=1.0,
            passed=True,
            turns=2,
            cost_usd=0.01,
            duration_seconds=3.14159,
            started_at="2026-11-29T19:14:00.123Z",
            graders=[grader],
            trace_path="runs/greets/with-1/trace.jsonl",
        )
    ]
    case = CaseResult(
        name="greets",
        dir="evals/greets",
        source="prose",
        prompt="Say hello.",
        runs_per_case=1,
        timeout_seconds=300,
        max_turns=10,
        graders=[GraderInfo("greeting", "regex", 1, {"pattern": "Hello", "target": "last_message"})],
        runs_per_arm=1,
        arms={"with": runs},
        aggregates=CaseAggregates(score=1.0, pass_rate=1.0, stdev_with=None),
    )
    return SuiteResult(
        claude_version="2.1.328",
        started_at="2026-11-29T19:14:00.123Z",
        duration_seconds=4.2,
        suite=SuiteInfo(root="/plugin", ablation="none"),
        cases=[case],
        aggregates=SuiteAggregates(1, 1, 1.0, 1.0),
        cost_usd=0.01,
    )


def test_read_results_of_a_written_document(tmp_path):
    folder = ResultsFolder.for_session(tmp_path / "evals", "2026-11-29T19:14:00.123Z")
    doc = small_document().to_json()
    write_json(folder.results_file, doc)
    for read in (read_results(folder.results_file), folder.read()):
        assert isinstance(read, SuiteResult)
        assert read.to_json() == doc
        (case,) = read.cases
        assert case.name == "greets" and case.runs("with")[0].duration_seconds == 3.142
        assert case.runs()[0].graders[0].explanation == "matched /Hello/"
    assert read_results(str(folder.results_file)).claude_version == "2.1.328"  # a str path works too


def test_read_results_rejects_what_is_not_a_document(tmp_path):
    with pytest.raises(OSError):
        read_results(tmp_path / "missing.json")
    with pytest.raises(OSError):
        ResultsFolder(tmp_path / "nowhere").read()
    broken = tmp_path / "broken.json"
    broken.write_text('{"schemaVersion": 1,')
    with pytest.raises(ValueError):
        read_results(broken)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a results document"):
        read_results(listed)


def test_read_results_of_a_minimal_document(tmp_path):
    path = tmp_path / "aggregate-result.json"
    path.write_text("{}")
    read = read_results(path)
    assert read.cases == [] and read.load_errors == [] and read.schema_version == 1
    assert read.claude_version == "unknown" and read.partial is False


def test_read_results_names_the_file_and_the_bad_fields_path(tmp_path):
    from pytest_plugin_eval.core.errors import InvalidSpec
    from pytest_plugin_eval.results.store import InvalidDocument

    path = tmp_path / "aggregate-result.json"
    path.write_text('{"cases": [{"name": "a", "arms": {"with": [{"score": "0.5"}, {"score": []}]}}]}')
    with pytest.raises(InvalidDocument) as info:
        read_results(path)
    assert str(info.value) == (f"{path}: cases[0].arms.with[0].score: must be a number (got a string) (and 1 more)")
    assert isinstance(info.value, (InvalidSpec, ValueError))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[1]", "not a results document (the JSON is not an object)"),
        ('{"schemaVersion": 2, "cases": []}', "schemaVersion 2: this plugin-eval reads version 1"),
        ('{"suites": []}', "holds several suites"),
        ("{", "not valid JSON"),
    ],
)
def test_what_read_results_refuses(tmp_path, text, words):
    from pytest_plugin_eval.results.store import InvalidDocument

    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(InvalidDocument, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_results(path)
