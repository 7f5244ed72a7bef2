"""The compare document (`plugin-eval compare --json`) and its trigger section pinned against the text the tool
writes (`golden/compare.json`, `golden/trigger_compare.json`): written the same, key order included, and read back
into the same values."""

from __future__ import annotations

from pathlib import Path

from helpers.golden import comparison, golden, text

HERE = Path(__file__).parent


def test_the_comparison_writes_its_golden_text():
    assert text(comparison().to_json()) == golden(HERE, "compare.json")


def test_a_trigger_set_change_writes_its_golden_text():
    assert text(comparison().triggers[0].to_json()) == golden(HERE, "trigger_compare.json")
