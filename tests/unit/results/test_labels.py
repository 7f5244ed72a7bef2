"""Unit tests for the labels document (results/labels.py): what the review page, a person or a script writes, read
by one reader that names the file and the key of anything wrong."""

from __future__ import annotations

import json

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.results.labels import (
    Label,
    Labels,
    read_labels,
    rubric_hash,
    write_labels,
)
from pytest_plugin_eval.results.model import GraderInfo


def test_a_missing_file_is_no_labels(tmp_path):
    assert read_labels(tmp_path / "labels.json") == Labels()


def test_written_labels_read_back_the_same(tmp_path):
    path = tmp_path / "labels.json"
    labels = Labels().put(Label("greets", "with", 2, "reads-well", "fail", note="French", codes=("language",)))
    labels = labels.put(Label("greets", "without", 1, "reads-well", "pass", by="ana", rubric_hash="abc"))
    write_labels(path, labels)
    data = json.loads(path.read_text())
    assert data["schemaVersion"] == 1
    assert data["labels"][0] == {
        "case": "greets",
        "arm": "with",
        "run": 2,
        "grader": "reads-well",
        "verdict": "fail",
        "note": "French",
        "codes": ["language"],
    }
    back = read_labels(path)
    assert {label.where for label in back.labels} == {label.where for label in labels.labels}
    assert back.find("greets", "with", 2, "reads-well").codes == ("language",)
    assert not list(tmp_path.glob(".tmp-*"))  # written through a temp file, renamed


def test_put_replaces_the_label_of_the_same_verdict():
    labels = Labels().put(Label("a", "with", 1, "g", "pass"))
    labels = labels.put(Label("a", "with", 1, "g", "fail", note="no"))
    assert len(labels.labels) == 1 and labels.labels[0].verdict == "fail"
    assert labels.remove("a", "with", 1, "g").labels == []


def test_a_hand_written_file_with_unknown_keys_keeps_them(tmp_path):
    path = tmp_path / "labels.json"
    path.write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "source": "script",
                "labels": [
                    {"case": "a", "arm": "with", "run": 1, "grader": "g", "verdict": "pass", "confidence": "high"}
                ],
            }
        )
    )
    labels = read_labels(path)
    assert labels.extra == {"source": "script"}
    assert labels.labels[0].extra == {"confidence": "high"}


@pytest.mark.parametrize(
    ("document", "key", "message"),
    [
        (
            {"labels": [{"case": "a", "arm": "with", "run": 1, "grader": "g", "verdict": "yes"}]},
            "labels[0].verdict",
            "must be one of pass, fail (got 'yes')",
        ),
        (
            {"labels": [{"case": "a", "arm": "both", "run": 1, "grader": "g", "verdict": "pass"}]},
            "labels[0].arm",
            "must be one of with, without",
        ),
        (
            {"labels": [{"case": "a", "arm": "with", "run": 0, "grader": "g", "verdict": "pass"}]},
            "labels[0].run",
            "whole number",
        ),
        ({"labels": [{"case": "a", "arm": "with", "run": 1, "verdict": "pass"}]}, "labels[0].grader", "is required"),
        (
            {"labels": [{"case": "a", "arm": "with", "run": 1, "grader": "g", "verdict": "pass", "codes": "x"}]},
            "labels[0].codes",
            "list of strings",
        ),
        ({"labels": {}}, "labels", "must be a list"),
        ({"schemaVersion": 2, "labels": []}, "schemaVersion", "must be 1"),
        (
            {"labels": [{"case": "a", "arm": "with", "run": 1, "grader": "g", "verdict": "pass"}] * 2},
            "labels[1]",
            "same verdict as labels[0]",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_file_and_key(tmp_path, document, key, message):
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SpecError) as raised:
        read_labels(path)
    assert raised.value.file == path
    assert raised.value.key == key
    assert message in raised.value.message
    assert str(raised.value).endswith(f"labels.json: {key}: {raised.value.message}")


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "labels.json"
    path.write_text("{labels: nope")
    with pytest.raises(SpecError, match="is not JSON"):
        read_labels(path)


def test_the_rubric_hash_follows_the_criteria():
    one = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets warmly.", "focus": "last_message"})
    same = GraderInfo("renamed", "llm", 1, {"criteria": "Greets warmly.", "focus": "last_message"})
    edited = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets warmly, in English.", "focus": "last_message"})
    assert rubric_hash(one) == rubric_hash(same)
    assert rubric_hash(one) != rubric_hash(edited)


def test_a_regrade_carries_the_labels_over_without_replacing_any(tmp_path):
    from pytest_plugin_eval.results.labels import carry_labels

    old, new = tmp_path / "old", tmp_path / "new"
    write_labels(old / "labels.json", Labels().put(Label("a", "with", 1, "g", "pass")))
    assert carry_labels(old, new)
    assert read_labels(new / "labels.json").labels[0].verdict == "pass"
    write_labels(new / "labels.json", Labels().put(Label("a", "with", 1, "g", "fail")))
    assert not carry_labels(old, new)  # the new folder's own labels stay
    assert read_labels(new / "labels.json").labels[0].verdict == "fail"
    assert not carry_labels(tmp_path / "none", tmp_path / "other")
