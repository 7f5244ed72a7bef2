"""`plugin-eval check --json` pinned against the text the tool prints (`golden/check.json`): written the same,
key order and escapes included."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.golden import check_result, golden

from pytest_plugin_eval.suite_check.suite import to_json

HERE = Path(__file__).parent


def printed(document: dict) -> str:
    """What `check --json` writes to stdout."""
    return json.dumps(document, indent=1) + "\n"


def test_a_check_writes_its_golden_text():
    assert printed(to_json(check_result())) == golden(HERE, "check.json")
