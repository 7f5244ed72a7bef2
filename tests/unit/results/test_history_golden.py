"""A row of `plugin-eval history --json` pinned against the text the tool writes (`golden/history_row.json`):
written the same, key order included, and read back into the same values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import golden, history_row, text

from pytest_plugin_eval.results.history import HistoryRow

HERE = Path(__file__).parent


def test_a_history_row_writes_its_golden_text():
    assert text(history_row().to_json()) == golden(HERE, "history_row.json")


def test_the_golden_row_reads_back_and_writes_the_same():
    data = json.loads(golden(HERE, "history_row.json"))
    read = HistoryRow.from_json(data)
    assert read == history_row()
    assert text(read.to_json()) == golden(HERE, "history_row.json")


def test_the_keys_written_beside_a_row_are_kept():
    data = json.loads(golden(HERE, "history_row.json")) | {"pluginChanges": ["greeter: 1.0.0 → 1.1.0"]}
    read = HistoryRow.from_json(data)
    assert read.extra == {"pluginChanges": ["greeter: 1.0.0 → 1.1.0"]} and read.to_json() == data
