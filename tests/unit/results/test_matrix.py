"""The model matrix's pure parts (results/matrix.py): folder names, the models a case runs on, the exit status
over the models, the matrix document, the case × model table, and two models of one matrix found by path."""

from __future__ import annotations

import json

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.compare import compare
from pytest_plugin_eval.results.matrix import (
    MATRIX_FILE,
    Matrix,
    MatrixError,
    MatrixModel,
    case_models,
    combined_status,
    is_matrix,
    matrix_rows,
    model_dirname,
    model_exit_status,
    of_two_models,
    read_matrix,
    restriction_notice,
    same_matrix,
)
from pytest_plugin_eval.results.store import write_json


def test_a_models_folder_is_its_name_made_safe():
    assert model_dirname("claude-haiku-4-5") == "claude-haiku-4-5"
    assert model_dirname("anthropic.claude-3:0/eu") == "anthropic.claude-3-0-eu"
    assert model_dirname("///") == "model"


def test_models_restricts_a_case_in_a_matrix_only():
    assert case_models((), ("a", "b")) == ("a", "b")
    assert case_models(("b", "z"), ("a", "b")) == ("b",)
    assert case_models(("z",), (None,)) == (None,)  # outside a matrix: the session's one model runs it
    assert (
        restriction_notice("c", ("b", "z"), ("a", "b")) == "c: models: names z, not in --model a,b; it runs on b only"
    )
    assert restriction_notice("c", ("z",), ("a", "b")).endswith("it runs on none of them")
    assert restriction_notice("c", ("a",), ("a", "b")) is None


def test_the_invocation_fails_if_any_model_fails_and_is_partial_if_any_is():
    assert combined_status([0, 0]) == 0
    assert combined_status([0, 1]) == 1
    assert combined_status([1, 2, 0]) == 2
    assert combined_status([2, 130]) == 130


def test_a_models_exit_status_is_its_documents():
    passing = suite_result(case_result("a", [1.0], [0.0]))
    failing = suite_result(case_result("a", [0.0], [0.0]))
    partial = suite_result(case_result("a", [1.0]), partial="cost_ceiling")
    assert [model_exit_status(d) for d in (passing, failing, partial)] == [0, 1, 2]
    assert model_exit_status(passing, triggers_failed=True) == 1
    assert model_exit_status(suite_result()) == 1  # nothing ran on that model


def test_the_matrix_document_reads_back(tmp_path):
    matrix = Matrix("2026-12-02T00:00:00Z", "claude-haiku-4-5", 1, [MatrixModel("a", "a/x.json", 1, 0.5)])
    data = matrix.to_json()
    assert data["models"] == [
        {"model": "a", "document": "a/x.json", "verdict": "failed", "exitStatus": 1, "costUsd": 0.5}
    ]
    write_json(tmp_path / MATRIX_FILE, data)
    assert is_matrix(tmp_path) and is_matrix(tmp_path / MATRIX_FILE)
    read, folder = read_matrix(tmp_path)
    assert (read, folder) == (matrix, tmp_path)
    with pytest.raises(MatrixError, match="has no model 'b'; its models are a"):
        read.entry("b")
    (tmp_path / MATRIX_FILE).write_text(json.dumps({"kind": "other"}))
    with pytest.raises(MatrixError, match="not a model matrix document"):
        read_matrix(tmp_path)


def test_the_table_has_a_row_per_case_and_a_cell_per_model_that_ran_it():
    a = suite_result(case_result("greets", [1.0, 1.0], [0.0, 0.0]), case_result("only-a", [1.0]))
    b = suite_result(case_result("greets", [0.0, 1.0], [0.0, 0.0]))
    rows = matrix_rows([("a", a), ("b", b)])
    assert [(r.name, sorted(r.cells)) for r in rows] == [("greets", ["a", "b"]), ("only-a", ["a"])]
    greets = rows[0].cells
    assert (greets["a"].score, greets["a"].delta, greets["a"].passed) == (1.0, 1.0, True)
    assert (greets["b"].score, greets["b"].passed) == (0.5, False)


def test_two_models_of_one_matrix_differ_in_the_model_only(tmp_path):
    docs = {}
    for model in ("a", "b"):
        doc = suite_result(case_result("greets", [1.0], [0.0]), model_override=model)
        write_json(tmp_path / model / "aggregate-result.json", doc.to_json())
        docs[model] = doc
    write_json(
        tmp_path / MATRIX_FILE,
        Matrix("t", None, 0, [MatrixModel(m, f"{m}/aggregate-result.json", 0, 0.0) for m in "ab"]).to_json(),
    )
    assert same_matrix(tmp_path / "a", tmp_path / "b" / "aggregate-result.json") == ("a", "b")
    assert same_matrix(tmp_path / "a", tmp_path / "a") is None
    comparison = compare(docs["a"], docs["b"])
    assert [w.kind for w in comparison.warnings] == ["model"]
    kept, said = of_two_models(comparison, "a", "b")
    assert kept.warnings == [] and said.startswith("model matrix: a → b — they differ in the model only")
