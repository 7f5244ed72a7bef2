"""cli/ stays thin (issue 33): a module per command that parses, calls its workflow and prints. A module past
LIMIT lines has grown a workflow that belongs below cli/ (analysis/, suite_check/, tune/, authoring/, publish/)."""

from __future__ import annotations

from pathlib import Path

CLI = Path(__file__).resolve().parents[3] / "pytest_plugin_eval" / "cli"
LIMIT = 150


def test_every_cli_module_is_short():
    long = {
        p.relative_to(CLI).as_posix(): n
        for p in CLI.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert not long, f"cli/ modules over {LIMIT} lines (move their workflow below cli/): {long}"


def test_the_cli_modules_are_found():
    assert (CLI / "main.py").is_file() and len(list(CLI.rglob("*.py"))) > 10
