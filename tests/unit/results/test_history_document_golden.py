"""`plugin-eval history --json` pinned against the text the tool writes (`golden/history.json`): the sessions with
what changed in the plugin since the one below, the folders passed over and the count left unread."""

from __future__ import annotations

from pathlib import Path

from helpers.golden import golden, history_scan, text

from pytest_plugin_eval.results.history import history_json

HERE = Path(__file__).parent


def test_a_history_writes_its_golden_text():
    assert text(history_json(history_scan())) == golden(HERE, "history.json")
