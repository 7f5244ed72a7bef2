"""tune.json pinned against the text the tool writes (`golden/tune.json`, as results.registry says tune writes it):
written the same, key order included, and read back into the same values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import golden, tune

from pytest_plugin_eval.results.registry import kind
from pytest_plugin_eval.tune.result import OUTCOME_TEXT, TuneResult

text = kind("tune").text

HERE = Path(__file__).parent


def test_tune_writes_its_golden_text():
    assert text(tune().to_json()) == golden(HERE, "tune.json")


def test_the_golden_document_reads_back_and_writes_the_same():
    data = json.loads(golden(HERE, "tune.json"))
    read = TuneResult.from_json(data)
    made = tune()  # the numbers are written rounded: what is read back is the rounded values, all else equal
    assert (read.skill, read.queries, read.winner, read.siblings, read.notes) == (
        made.skill,
        made.queries,
        made.winner,
        made.siblings,
        made.notes,
    )
    assert read.original.description == made.original.description and read.original.test is not None
    assert [c.rejected for c in read.candidates] == [c.rejected for c in made.candidates]
    assert read.cost.spent_usd == 0.251235 and read.original.test.interval == (0.0, 0.6576)
    assert (read.best and read.best.description, read.explanation) == (
        "Writes salutations warmly.",
        OUTCOME_TEXT["improved"],
    )
    assert read.test_margin is not None and read.test_margin.better is (data["testMargin"]["better"])
    assert text(read.to_json()) == golden(HERE, "tune.json")
