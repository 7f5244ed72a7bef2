"""The suite of an eval dir none of whose cases loaded: its plugin, known from the folder."""

from __future__ import annotations

import json

from pytest_plugin_eval.engine.describe import eval_dir_suite_info
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.results.model import PluginInfo


def test_an_eval_dir_names_its_plugin_from_the_manifest(tmp_path):
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter", "version": "1.2.3"}))
    (tmp_path / "evals").mkdir()
    info = eval_dir_suite_info(tmp_path / "evals", EvalOptions())
    assert (info.root, info.ablation) == (str(tmp_path), "with-without")
    assert info.plugins == [PluginInfo(name="greeter", path=str(tmp_path), version="1.2.3")]
    assert eval_dir_suite_info(tmp_path / "evals", EvalOptions(ablation="none")).ablation == "none"


def test_a_folder_without_a_manifest_is_the_plugin_named_after_it(tmp_path):
    plugin = tmp_path / "bare"
    (plugin / "evals").mkdir(parents=True)
    [only] = eval_dir_suite_info(plugin / "evals", EvalOptions()).plugins
    assert (only.name, only.path, only.version) == ("bare", str(plugin), None)
