"""`plugin-eval history --json` pinned against the text the tool writes (`golden/history.json`): the sessions with
what changed in the plugin since the one below, the folders passed over and the count left unread; written the
same, key order included, and read back into the same values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import golden, history_scan, text

from pytest_plugin_eval.results.history import HistoryDocument, Skipped, history_document, history_json
from pytest_plugin_eval.results.jsonmap import problems

HERE = Path(__file__).parent


def test_a_history_writes_its_golden_text():
    assert text(history_json(history_scan())) == golden(HERE, "history.json")


def test_the_golden_history_reads_back_and_writes_the_same():
    read = HistoryDocument.from_json(json.loads(golden(HERE, "history.json")))
    assert read == history_document(history_scan())
    assert read.skipped == [Skipped(Path("evals/results/2026-11-29T08-00-00"), "results.json: not valid JSON")]
    assert read.sessions[0].extra["pluginChanges"] == [
        "the description of skill greeter:greet changed",
        "plugin content changed",
    ]
    assert text(read.to_json()) == golden(HERE, "history.json")


def test_a_history_of_the_wrong_shape_names_the_bad_field():
    data = json.loads(golden(HERE, "history.json"))
    data["sessions"][1]["costUsd"] = "free"
    del data["notRead"]
    assert problems(HistoryDocument, data) == [
        "sessions[1].costUsd: must be a number (got a string)",
        "notRead: missing",
    ]
