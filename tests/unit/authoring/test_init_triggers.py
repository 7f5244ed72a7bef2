"""`plugin-eval init --triggers` writes a trigger set per skill and command whose placeholder queries refuse to run,
and `plugin-eval check` loads trigger files beside the cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.cli.commands.init import init
from pytest_plugin_eval.load.triggers import TriggerLoadError, load_trigger_file
from pytest_plugin_eval.suite_check.suite import check_suite, summary


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    for name in ("greet", "farewell"):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}s.\n---\nBody\n")
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "wave.md").write_text("---\ndescription: Waves.\n---\nWave.\n")
    return tmp_path


def test_init_triggers_writes_a_set_per_component_whose_placeholders_refuse_to_run(plugin, capsys):
    assert init(["--triggers", str(plugin)]) == 0
    path = plugin / "evals" / "triggers.yaml"
    assert "replace its TODO queries" in capsys.readouterr().out
    with pytest.raises(TriggerLoadError) as e:
        load_trigger_file(path, plugin / "evals")
    [problem] = e.value.problems  # the same problem of every entry, said once with their count
    assert problem.key.endswith("… (9 entries)") and problem.key.startswith("skills.")
    assert "is a placeholder" in problem.message


def test_a_long_description_is_cut_with_an_ellipsis(plugin):
    """frontend-design's description ran on past the comment's 100 characters and stopped mid-word ("an existing on")."""
    long = (
        "Guidance for distinctive, intentional visual design when building new UI or reshaping an existing one today."
    )
    (plugin / "skills" / "greet" / "SKILL.md").write_text(f"---\nname: greet\ndescription: {long}\n---\nBody\n")
    assert init(["--triggers", str(plugin)]) == 0
    text = (plugin / "evals" / "triggers.yaml").read_text()
    assert f"  greet:  # skill: {long[:99]}…\n" in text
    assert "  wave:  # command: Waves.\n" in text


def test_init_triggers_never_overwrites(plugin, capsys):
    (plugin / "evals").mkdir()
    (plugin / "evals" / "triggers.yaml").write_text("mine\n")
    assert init(["--triggers", str(plugin)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert (plugin / "evals" / "triggers.yaml").read_text() == "mine\n"


def test_check_loads_trigger_files_and_warns_of_a_set_without_near_misses(plugin):
    (plugin / "evals").mkdir()
    (plugin / "evals" / "triggers.yaml").write_text("skills:\n  greet:\n    should_fire: [hello there]\n")
    result = check_suite(plugin)
    assert [t.skill.qualified_name for t in result.trigger_sets] == ["greeter:greet"]
    assert result.ok, result.render_problems()
    assert any("greet has no should_not_fire near-misses" in w for w in result.warnings)
    assert summary(result)[0] == "✓ evals/: 1 trigger set(s) with 1 queries load (no cases)"


def test_check_reports_a_trigger_file_that_does_not_load(plugin):
    (plugin / "evals").mkdir()
    (plugin / "skills" / "greet" / "trigger-eval.json").write_text(json.dumps([{"query": "hi"}]))
    result = check_suite(plugin)
    assert [p.key for p in result.load_problems] == ["[0].should_trigger"]
