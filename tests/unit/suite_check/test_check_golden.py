"""`plugin-eval check --json` pinned against the text the tool prints (`golden/check.json`): written the same,
key order and escapes included, and read back into the same values."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from helpers.golden import check_result, golden

from pytest_plugin_eval.results.check import CheckDocument
from pytest_plugin_eval.results.jsonmap import problems
from pytest_plugin_eval.suite_check.suite import check_document, to_json

HERE = Path(__file__).parent


def printed(document: dict) -> str:
    """What `check --json` writes to stdout."""
    return json.dumps(document, indent=1) + "\n"


def test_a_check_writes_its_golden_text():
    assert printed(to_json(check_result())) == golden(HERE, "check.json")


def test_the_golden_check_reads_back_and_prints_the_same():
    data = json.loads(golden(HERE, "check.json"))
    read = CheckDocument.from_json(data)
    assert read == check_document(check_result())
    assert [p.key for p in read.problems] == ["graders[0].type", "runs", ""]
    assert read.estimate is not None and read.estimate.full_bound_usd == 1.26
    assert printed(read.to_json()) == golden(HERE, "check.json")


def test_a_check_without_cost_figures_leaves_their_keys_out_and_reads_them_as_none():
    bare = replace(check_result(), estimate=None, prediction=None)
    data = to_json(bare)
    assert "estimate" not in data and "prediction" not in data
    read = CheckDocument.from_json(data)
    assert read.estimate is None and read.prediction is None and read.to_json() == data


def test_a_document_of_the_wrong_shape_names_the_bad_field():
    data = json.loads(golden(HERE, "check.json"))
    data["triggerSets"][0]["queries"] = "two"
    assert problems(CheckDocument, data) == ["triggerSets[0].queries: must be a number (got a string)"]
