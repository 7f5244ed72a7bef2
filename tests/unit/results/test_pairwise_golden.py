"""The pairwise section of the compare document (`compare --pairwise --json`) pinned against the text the tool
writes (`golden/pairwise.json`): written the same, key order included, and read back into the same values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import golden, pairwise, text

from pytest_plugin_eval.results.pairwise import PairwiseComparison

HERE = Path(__file__).parent


def test_the_pairwise_comparison_writes_its_golden_text():
    assert text(pairwise().to_json()) == golden(HERE, "pairwise.json")


def test_the_golden_section_reads_back_and_writes_the_same():
    data = json.loads(golden(HERE, "pairwise.json"))
    read = PairwiseComparison.from_json(data, level=0.95)
    assert read == pairwise()
    assert [p.outcome for p in read.cases[0].pairs] == ["win", "loss", "tie", "no_decision"]
    assert text(read.to_json()) == golden(HERE, "pairwise.json")


def test_the_counts_are_written_at_the_comparisons_level():
    wide = PairwiseComparison.from_json(json.loads(golden(HERE, "pairwise.json")), level=0.99)
    assert wide.to_json()["cases"][0]["interval"] != json.loads(golden(HERE, "pairwise.json"))["cases"][0]["interval"]
