"""Every reader of a stored results document — the public read_results, compare, history, regrade — refuses a bad
one through the one check (results.store.document_problem), naming the same field by its path."""

from __future__ import annotations

import json

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.compare import CompareError
from pytest_plugin_eval.analysis.compare import read_document as compare_read
from pytest_plugin_eval.analysis.regrade import results_folder_problem
from pytest_plugin_eval.results.history import Unreadable
from pytest_plugin_eval.results.history import read_document as history_read
from pytest_plugin_eval.results.store import RESULTS_FILE, InvalidDocument, read_results

PROBLEM = "cases[0].arms.with[1].score: must be a number (got a string)"


@pytest.fixture
def folder(tmp_path):
    data = suite_result(case_result("greets", [1, 0, 1])).to_json()
    data["cases"][0]["arms"]["with"][1]["score"] = "high"
    (tmp_path / RESULTS_FILE).write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_the_public_reader_names_the_field(folder):
    with pytest.raises(InvalidDocument) as info:
        read_results(folder / RESULTS_FILE)
    assert str(info.value) == f"{folder / RESULTS_FILE}: {PROBLEM}"


def test_compare_names_the_field(folder):
    with pytest.raises(CompareError) as info:
        compare_read(folder)
    assert PROBLEM in str(info.value)


def test_history_names_the_field(folder):
    with pytest.raises(Unreadable) as info:
        history_read(folder / RESULTS_FILE)
    assert PROBLEM in str(info.value)


def test_regrade_names_the_field(folder):
    assert PROBLEM in (results_folder_problem(folder) or "")
