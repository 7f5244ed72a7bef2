"""The document of several suites (results.suites) pinned against the text a session over two eval dirs writes
(`golden/suites.json`, made by the hand-built writer it replaced), and read by the one reader of one or several
suites (results.store.read_suites), which names the bad field by its path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.golden import golden, suites, text

from pytest_plugin_eval.results.store import InvalidDocument, read_results, read_suites, write_json
from pytest_plugin_eval.results.suites import SuitesDocument, is_several, session_document

HERE = Path(__file__).parent


def test_several_suites_write_their_golden_text():
    assert text(suites().to_json()) == golden(HERE, "suites.json")


def test_the_golden_document_reads_back_and_writes_the_same(tmp_path):
    path = tmp_path / "out.json"
    path.write_text(golden(HERE, "suites.json"))
    read = read_suites(path)
    assert read == suites().suites
    assert [s.suite.plugins[0].name for s in read] == ["greeter", "counter"] and read[1].triggers[0].skill == "p:greet"
    write_json(path, SuitesDocument(suites=read))
    assert path.read_text() == golden(HERE, "suites.json")


def test_a_session_of_one_suite_writes_that_suites_document_alone(tmp_path):
    one = suites().suites[0]
    assert session_document([one]) is one
    assert session_document(suites().suites) == suites()
    path = tmp_path / "one.json"
    write_json(path, session_document([one]))
    assert not is_several(json.loads(path.read_text())) and read_suites(path) == [one] == [read_results(path)]


def test_a_bad_field_is_named_by_its_path_under_its_suite(tmp_path):
    data = json.loads(golden(HERE, "suites.json"))
    data["suites"][1]["cases"][0]["arms"]["with"][0]["score"] = "high"
    data["suites"][0]["aggregates"]["meanDelta"] = [1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidDocument) as raised:
        read_suites(path)
    assert str(raised.value) == (f"{path}: suites[0].aggregates.meanDelta: must be a number (got a list) (and 1 more)")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"schemaVersion": 2}, "schemaVersion 2: this plugin-eval reads version 1"),
        ({"suites": {"a": 1}}, "suites: must be a list (got an object)"),
        ({"suites": [{"schemaVersion": 1}]}, "suites[0]: not a results document (no cases list)"),
        (
            {"suites": [{"schemaVersion": 3, "cases": []}]},
            "suites[0]: schemaVersion 3: this plugin-eval reads version 1",
        ),
    ],
)
def test_a_document_of_several_suites_that_does_not_read_says_why(tmp_path, change, problem):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(json.loads(golden(HERE, "suites.json")) | change))
    with pytest.raises(InvalidDocument) as raised:
        read_suites(path)
    assert str(raised.value) == f"{path}: {problem}"


def test_a_reader_of_one_suite_still_refuses_several(tmp_path):
    path = tmp_path / "several.json"
    path.write_text(golden(HERE, "suites.json"))
    with pytest.raises(InvalidDocument, match="holds several suites"):
        read_results(path)


def test_unknown_keys_beside_the_suites_are_kept():
    data = json.loads(golden(HERE, "suites.json")) | {"producer": "a newer plugin-eval"}
    read = SuitesDocument.from_json(data)
    assert read.extra == {"producer": "a newer plugin-eval"} and read.to_json() == data
