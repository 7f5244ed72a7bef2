"""A results document written by a real session (the example plugin's suite, through the real Claude Code binary
and the scripted endpoint) reads into the results model and writes back unchanged, key order included."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from helpers.e2e import run_example_suite

from pytest_plugin_eval.results.model import CaseResult, SuiteResult
from pytest_plugin_eval.results.store import RESULTS_FILE, document_text, read_results


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> tuple[dict, str, Path]:
    """The example suite's document (as parsed JSON and as written text) and its results folder."""
    out = tmp_path_factory.mktemp("roundtrip")
    target, results = out / "example.json", out / "results"
    run_example_suite(out)
    text = target.read_text(encoding="utf-8")
    return json.loads(text), text, results


def test_real_document_round_trips(session):
    doc, _, _ = session
    read = SuiteResult.from_json(copy.deepcopy(doc))
    assert read.to_json() == doc
    assert json.dumps(read.to_json(), ensure_ascii=False) == json.dumps(doc, ensure_ascii=False)
    # Nothing in it is unknown to this version.
    assert read.extra == {} and read.suite.extra == {} and read.aggregates.extra == {}
    for case in read.cases:
        assert case.extra == {} and case.aggregates.extra == {}
        for run in case.runs():
            assert run.extra == {}
            # Verdict details all have typed fields (judgeModel, judgeVotes, evidence).
            assert all(g.extra == {} for g in run.graders)


def test_real_document_text_is_what_the_store_writes(session):
    doc, text, _ = session
    assert document_text(SuiteResult.from_json(doc).to_json()) == text


def test_real_document_in_the_results_folder_round_trips(session):
    doc, _, results = session
    (path,) = results.rglob(RESULTS_FILE)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == doc
    assert json.dumps(read_results(path).to_json()) == json.dumps(written)


def test_real_document_has_what_the_model_reads(session):
    doc, _, _ = session
    read = SuiteResult.from_json(doc)
    assert read.cases and not read.load_errors and not read.partial
    assert read.suite.scripted is True
    runs = [run for case in read.cases for run in case.runs()]
    assert runs and all(run.trace_path and Path(run.trace_path).is_file() for run in runs)
    assert any(g.judge_model and g.judge_votes for run in runs for g in run.graders)  # a judged grader ran


def test_real_case_headers_round_trip(session):
    doc, _, _ = session
    for case_doc in doc["cases"]:
        fields = list(case_doc)
        header = {k: case_doc[k] for k in fields[: fields.index("arms")]}
        case = CaseResult.from_json(copy.deepcopy(case_doc))
        assert json.dumps(case.header_json()) == json.dumps(header)
        fresh = CaseResult.header_from_json(json.loads(json.dumps(header)))
        assert json.dumps(fresh.header_json()) == json.dumps(header)
        assert fresh.runs() == []


def test_the_example_suites_scripted_session_has_no_findings(session):
    """The suite users copy from measures what it claims: no finding before the runs nor from them (its guards —
    a file written, the rename named — stand beside graders that tell the arms apart)."""
    doc, _, _ = session
    assert doc.get("findings", []) == []  # an empty list is left out of the document
    assert all(case["aggregates"]["delta"] > 0 for case in doc["cases"] if case["name"] != "leaves-code-review-alone")
