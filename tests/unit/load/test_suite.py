"""Which eval dir a path belongs to, and which plugin a suite evaluates (pytest_plugin_eval.target)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.load.suite import eval_dir_name, eval_root_of, resolve_plugin


def plugin(folder: Path, **manifest) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": folder.name, **manifest}))
    return folder


def test_the_default_eval_dir_of_a_plugin(tmp_path):
    root = plugin(tmp_path / "p")
    assert eval_root_of(root / "evals" / "case" / "graders" / "g.md") == root / "evals"
    assert eval_root_of(root / "evals") == root / "evals"
    assert eval_root_of(root / "skills" / "s" / "SKILL.md") is None


def test_the_manifest_names_the_eval_dir(tmp_path):
    root = plugin(tmp_path / "p", experimental={"evals": "qa/cases/"})
    assert eval_dir_name(root) == "qa/cases"
    assert eval_root_of(root / "qa" / "cases" / "c" / "prompt.md") == root / "qa" / "cases"
    assert eval_root_of(root / "evals" / "c" / "prompt.md") is None


def test_the_option_wins_over_the_manifest(tmp_path):
    root = plugin(tmp_path / "p", experimental={"evals": "qa"})
    assert eval_root_of(root / "checks" / "c" / "prompt.md", "checks") == root / "checks"
    assert eval_root_of(root / "qa" / "c" / "prompt.md", "checks") is None


def test_a_plugin_inside_a_plugin_uses_its_own_setting(tmp_path):
    outer = plugin(tmp_path / "outer", experimental={"evals": "outer-evals"})
    inner = plugin(outer / "outer-evals" / "fixtures" / "inner")
    assert eval_root_of(inner / "evals" / "c" / "prompt.md") == inner / "evals"
    assert eval_root_of(inner / "skills" / "x.md") == outer / "outer-evals"


def test_without_a_plugin_any_folder_named_evals_is_an_eval_dir(tmp_path):
    assert eval_root_of(tmp_path / "repo" / "evals" / "c" / "prompt.md") == tmp_path / "repo" / "evals"
    assert eval_root_of(tmp_path / "repo" / "tests" / "test_x.py") is None


def test_a_folder_with_skills_is_the_plugin_even_without_a_manifest(tmp_path):
    (tmp_path / "bare" / "skills").mkdir(parents=True)
    evals = tmp_path / "bare" / "evals"
    assert resolve_plugin(evals / "c", evals) == tmp_path / "bare"
    assert resolve_plugin(tmp_path / "loose" / "evals" / "c", tmp_path / "loose" / "evals") is None
