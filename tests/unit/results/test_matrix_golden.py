"""matrix.json pinned against the text an earlier version wrote (`golden/matrix.json`): written the same, key order
included, and read back into the same values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import matrix

from pytest_plugin_eval.results.matrix import Matrix

GOLDEN = Path(__file__).with_name("golden") / "matrix.json"


def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_matrix_writes_its_golden_text():
    assert json.dumps(matrix().to_json(), indent=1) + "\n" == GOLDEN.read_text(encoding="utf-8")


def test_the_golden_document_reads_back_and_writes_the_same():
    read = Matrix.from_json(golden())
    assert [(m.model, m.verdict, m.exit_status) for m in read.models] == [
        ("haiku", "passed", 0),
        ("sonnet", "failed", 1),
        ("opus", "interrupted", 130),
    ]
    assert (read.started_at, read.judge_model, read.exit_status) == ("2026-01-02T03:04:05Z", "claude-haiku-4-5", 1)
    assert read.to_json() == golden()


def test_a_computed_key_is_written_and_never_read():
    data = golden() | {"costUsd": 99, "kind": "other"}
    data["models"][0]["verdict"] = "failed"
    read = Matrix.from_json(data)
    assert (read.models[0].verdict, read.to_json()["costUsd"], read.to_json()["kind"]) == (
        "passed",
        0.623457,
        "plugin-eval/model-matrix",
    )
