"""The compare document (`plugin-eval compare --json`) and its trigger section pinned against the text the tool
writes (`golden/compare.json`, `golden/trigger_compare.json`): written the same, key order included, and read back
into the same values."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from helpers.golden import comparison, golden, text

from pytest_plugin_eval.results.comparison import Comparison
from pytest_plugin_eval.results.trigger_compare import TriggerSetChange

HERE = Path(__file__).parent


def test_the_comparison_writes_its_golden_text():
    assert text(comparison().to_json()) == golden(HERE, "compare.json")


def test_a_trigger_set_change_writes_its_golden_text():
    assert text(comparison().triggers[0].to_json()) == golden(HERE, "trigger_compare.json")


def test_the_golden_trigger_section_reads_back_and_writes_the_same():
    data = json.loads(golden(HERE, "trigger_compare.json"))
    read = TriggerSetChange.from_json(data)
    made = comparison().triggers[0]
    assert read == replace(made, queries=[replace(q, query="") for q in made.queries], scripted_by_description=False)
    assert [(q.status, q.verdict) for q in read.queries] == [
        ("compared", "better"),
        ("compared", "worse"),
        ("compared", "no_detectable_change"),
        ("added", None),
    ]
    assert text(read.to_json()) == golden(HERE, "trigger_compare.json")


def test_the_golden_comparison_reads_back_and_writes_the_same():
    data = json.loads(golden(HERE, "compare.json"))
    read = Comparison.from_json(data)
    made = comparison()
    assert read.cases == made.cases and read.warnings == made.warnings and (read.old, read.new) == (made.old, made.new)
    assert [c.name for c in read.worse] == ["counts"] and read.worse_queries == ["greet/f2"]
    assert read.cases[0].with_score.tested and not read.cost_usd.tested  # an interval sought, or none
    assert text(read.to_json()) == golden(HERE, "compare.json")
