"""tune.json pinned against the text the tool writes (`golden/tune.json`): written the same, key order included,
and read back into the same values."""

from __future__ import annotations

from pathlib import Path

from helpers.golden import golden, text, tune

HERE = Path(__file__).parent


def test_tune_writes_its_golden_text():
    assert text(tune().to_json()) == golden(HERE, "tune.json")
