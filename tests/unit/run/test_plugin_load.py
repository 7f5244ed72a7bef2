"""Whether Claude Code loaded the plugin under test, read from a run's init event
(pytest_plugin_eval.run.plugin_load)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.run.plugin_load import plugin_load_fault
from pytest_plugin_eval.run.transcript import Transcript


def trace(**init) -> Transcript:
    return Transcript(json.dumps({"type": "system", "subtype": "init", **init}) + "\n")


def plugin(tmp_path: Path) -> Path:
    (tmp_path / "p" / ".claude-plugin").mkdir(parents=True)
    (tmp_path / "p" / ".claude-plugin" / "plugin.json").write_text('{"name": "greeter"}')
    return tmp_path / "p"


def test_a_plugin_claude_code_refused_is_a_start_error_with_its_message(tmp_path):
    folder = plugin(tmp_path)
    error = plugin_load_fault(
        (folder,),
        trace(
            plugins=[{"name": "other", "path": "builtin"}],
            plugin_errors=[{"plugin": "inline[0]", "message": "Failed to load plugin: bad", "path": str(folder)}],
        ),
    )
    assert error is not None and error.kind == "start"
    assert error.message.startswith("Claude Code did not load the plugin greeter: Failed to load plugin: bad")


def test_a_plugin_loaded_with_errors_is_a_start_error_and_a_clean_load_is_none(tmp_path):
    folder = plugin(tmp_path)
    loaded = [{"name": "greeter", "path": str(folder), "source": "greeter@inline"}]
    errors = [{"plugin": "greeter@inline", "type": "path-not-found", "message": "Path not found: x (commands)"}]
    error = plugin_load_fault((folder,), trace(plugins=loaded, plugin_errors=errors))
    assert error is not None and "loaded the plugin greeter with errors: Path not found: x (commands)" in error.message
    assert plugin_load_fault((folder,), trace(plugins=loaded)) is None
    assert plugin_load_fault((folder,), Transcript("")) is None  # no init event: the child's own failure says why


def test_a_plugin_missing_without_an_error_is_still_named(tmp_path):
    folder = plugin(tmp_path)
    error = plugin_load_fault((folder,), trace(plugins=[]))
    assert error is not None and "it is not among the plugins Claude Code lists" in error.message
