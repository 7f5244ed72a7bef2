"""Where a suite's past sessions are (results.suite_results): the results folder of a plugin folder, of an eval dir,
or the results folder itself; --eval-dir names the one to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_plugin_eval.results.suite_results import results_dirs


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "greeter"}')
    (tmp_path / "evals" / "results").mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize("where", ["plugin", "evals", "evals/results"])
def test_a_target_is_a_plugin_an_eval_dir_or_a_results_folder(plugin, where):
    assert results_dirs(plugin / where if where != "plugin" else plugin) == [plugin / "evals" / "results"]


def test_eval_dir_option(plugin):
    (plugin / "qa" / "results").mkdir(parents=True)
    assert results_dirs(plugin, "qa") == [plugin / "qa" / "results"]
    assert results_dirs(plugin, "nowhere") == []


def test_a_folder_with_no_results_names_none(tmp_path):
    assert results_dirs(tmp_path) == []
