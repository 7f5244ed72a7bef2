"""The pairwise section of the compare document (`compare --pairwise --json`) pinned against the text the tool
writes (`golden/pairwise.json`): written the same, key order included, and read back into the same values."""

from __future__ import annotations

from pathlib import Path

from helpers.golden import golden, pairwise, text

HERE = Path(__file__).parent


def test_the_pairwise_comparison_writes_its_golden_text():
    assert text(pairwise().to_json()) == golden(HERE, "pairwise.json")
