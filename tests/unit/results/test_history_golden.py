"""A row of `plugin-eval history --json` pinned against the text the tool writes (`golden/history_row.json`):
written the same, key order included, and read back into the same values."""

from __future__ import annotations

from pathlib import Path

from helpers.golden import golden, history_row, text

HERE = Path(__file__).parent


def test_a_history_row_writes_its_golden_text():
    assert text(history_row().to_json()) == golden(HERE, "history_row.json")
