"""`init --bare NAME`'s workflow (authoring.bare_case.init_bare): one case from the template in the plugin's eval
dir, its results/ ignored; a refused or taken name writes nothing, a .gitignore that cannot be written is said."""

from __future__ import annotations

import json

import pytest

from pytest_plugin_eval.authoring.bare_case import init_bare
from pytest_plugin_eval.core.errors import UsageError


@pytest.fixture
def root(tmp_path):
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "greeter", "experimental": {"evals": "qa"}})
    )
    return tmp_path


def test_the_case_goes_in_the_manifests_eval_dir_and_its_results_are_ignored(root):
    made = init_bare(root, "greets")
    assert (root / "qa" / "greets" / "prompt.md") in made.written and made.skill is None
    assert (made.results, made.ignored, made.ignore_error) == ("qa/results/", True, None)
    assert (root / ".gitignore").read_text() == "qa/results/\n"
    assert init_bare(root, "other", "evals").ignored  # another eval dir: its own line
    assert (root / ".gitignore").read_text() == "qa/results/\nevals/results/\n"
    assert not init_bare(root, "third").ignored  # already there


@pytest.mark.parametrize(("name", "message"), [("results", "reserved"), ("greets", "already exists")])
def test_a_refused_or_taken_name_writes_nothing(root, name, message):
    (root / "qa" / "greets").mkdir(parents=True)
    with pytest.raises(UsageError, match=message):
        init_bare(root, name)
    assert not (root / ".gitignore").exists() and list((root / "qa").iterdir()) == [root / "qa" / "greets"]


def test_a_gitignore_that_cannot_be_written_is_said_and_the_case_kept(root):
    (root / ".gitignore").mkdir()
    made = init_bare(root, "greets")
    assert not made.ignored and made.ignore_error and (root / "qa" / "greets" / "prompt.md").is_file()
