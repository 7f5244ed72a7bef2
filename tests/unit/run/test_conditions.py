"""The conditions a without-plugin run records (run/conditions.py): each thing the run sees moves them, and
nothing of the plugin does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.plugin import Suite

from pytest_plugin_eval.run import conditions
from pytest_plugin_eval.run.execute import RunPlan, RunSettings

CLAUDE = Path("/usr/bin/claude")
CONTEXT = "schema_version: '1.0'\nname: c\ncontext:\n  files:\n    - input.txt\n"


@pytest.fixture
def suite(tmp_path) -> Suite:
    return Suite(tmp_path)


def of(case, version: str = "2.1.328", environ: dict | None = None, **settings) -> dict:
    plan = RunPlan(case=case, arm="without", index=1, settings=RunSettings(**settings), claude=CLAUDE)
    return conditions.without_conditions(plan, version, {} if environ is None else environ)


def test_the_same_case_gives_the_same_conditions_and_the_values_are_said(suite):
    case = suite.loaded(case_yaml=CONTEXT, files={"input.txt": "one"})
    first = of(case)
    assert first == of(suite.load())
    assert first["claudeCode"] == "2.1.328" and first["isolation"] == conditions.ISOLATION_VERSION
    assert first["model"] == conditions.MODEL_DEFAULT and first["script"] is None


def test_each_input_of_the_run_moves_its_own_condition(suite):
    folder = suite.case(case_yaml=CONTEXT, files={"input.txt": "one"})
    base = of(suite.load())

    def changed(after: dict) -> list[str]:
        return sorted(k for k in base if base[k] != after[k])

    (folder / "prompt.md").write_text("Say hello, please.\n")
    assert changed(of(suite.load())) == ["prompt"]
    (folder / "prompt.md").write_text("Say hello.\n")
    (folder / "input.txt").write_text("two")
    assert changed(of(suite.load())) == ["context"]
    (folder / "input.txt").write_text("one")
    (folder / "prompt.md").write_text("---\nmax_turns: 3\n---\nSay hello.\n")
    assert changed(of(suite.load())) == ["limits"]
    (folder / "prompt.md").write_text("---\nenv:\n  EVAL_X: '1'\nallowed_tools: [Read]\n---\nSay hello.\n")
    assert changed(of(suite.load())) == ["env", "tools"]
    (folder / "prompt.md").write_text("Say hello.\n")
    case = suite.load()
    assert changed(of(case, allow_tools=("Write",))) == ["tools"]
    assert changed(of(case, mocks="off")) == ["mocks"]
    assert changed(of(case, model="claude-opus-4-5")) == ["model"]
    assert changed(of(case, environ={"ANTHROPIC_MODEL": "claude-sonnet-5"})) == ["model"]
    assert changed(of(case, "2.1.330")) == ["claudeCode"]


def test_turns_answers_and_a_persona_are_conditions_of_a_case_that_talks_back(suite):
    folder = suite.case()
    base = of(suite.load())
    assert "conversation" not in base  # a one-prompt case's conditions are what they were
    seen = []
    for fm in ("turns: [Ada.]", "turns: [Bob.]", "answers: {colour: Blue}", "user: A baker.", "user: A florist."):
        (folder / "prompt.md").write_text(f"---\n{fm}\n---\nSay hello.\n")
        now = of(suite.load())
        assert sorted(k for k in now if base.get(k) != now[k]) == ["conversation"]
        seen.append(now["conversation"])
    assert len(set(seen)) == len(seen)


def test_the_plugin_and_the_graders_are_not_conditions(suite):
    folder = suite.case()
    base = of(suite.load())
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: Edited.\n---\nDo it.\n")
    (folder / "graders" / "ok.md").write_text("---\ntype: regex\npattern: bye\n---\n")
    assert of(suite.load()) == base


def test_a_standalone_mock_is_a_condition_and_a_mock_of_the_plugins_server_is_not(tmp_path):
    suite = Suite(tmp_path, mcp=True)
    suite.case()
    base = of(suite.load())
    shadow = suite.evals / "mocks" / "srv"
    shadow.mkdir(parents=True)
    (shadow / "lookup.md").write_text("found\n")
    assert of(suite.load()) == base  # served only with the plugin
    alone = suite.evals / "mocks" / "weather"
    alone.mkdir(parents=True)
    (alone / "forecast.md").write_text("sunny\n")
    assert of(suite.load())["mocks"] != base["mocks"]


def test_the_digest_is_the_same_in_another_process(suite):
    suite.case(case_yaml=CONTEXT, files={"input.txt": "one"})
    code = (
        "import sys, json; sys.path.insert(0, 'tests'); from pathlib import Path;"
        "from pytest_plugin_eval.grade.types import grader_types; from pytest_plugin_eval.load.case import load_case;"
        "from pytest_plugin_eval.run.execute import RunPlan, RunSettings;"
        "from pytest_plugin_eval.run.conditions import without_conditions;"
        f"case = load_case(Path({str(suite.evals / 'c')!r}), Path({str(suite.evals)!r}), grader_types());"
        "plan = RunPlan(case=case, arm='without', index=1, settings=RunSettings(), claude=Path('/usr/bin/claude'));"
        "print(json.dumps(without_conditions(plan, '2.1.328', {})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    import json

    assert json.loads(out) == of(suite.load())


def plugin_of(case, arm: str = "with", plugins: tuple[Path, ...] | None = None, **settings) -> dict:
    plan = RunPlan(case=case, arm=arm, index=1, settings=RunSettings(**settings), claude=CLAUDE, plugins=plugins)
    return conditions.plugin_conditions(plan, "2.1.328", {})


def test_a_run_with_the_plugin_adds_the_plugins_content_to_the_conditions(suite):
    suite.case()
    base = plugin_of(suite.load())
    assert set(base) == {*of(suite.load()), "plugin"}
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: Edited.\n---\nDo it.\n")
    after = plugin_of(suite.load())
    assert sorted(k for k in base if base[k] != after[k]) == ["plugin"]


def test_a_copy_without_the_eval_dir_version_control_and_caches_is_the_same_plugin(suite, tmp_path):
    suite.case()
    case = suite.load()
    (suite.plugin / ".git").mkdir()
    (suite.plugin / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (suite.plugin / "__pycache__").mkdir()
    (suite.plugin / "__pycache__" / "x.pyc").write_bytes(b"\0")
    copy = tmp_path / "copy"
    shutil.copytree(suite.plugin, copy, ignore=shutil.ignore_patterns("evals", ".git", "__pycache__"))
    assert plugin_of(case) == plugin_of(case, "against", (copy,))
    (copy / "notes.txt").write_text("a file the agent is given\n")
    assert plugin_of(case)["plugin"] != plugin_of(case, "against", (copy,))["plugin"]


def test_an_eval_dir_outside_the_plugin_leaves_all_of_the_plugin_counted(tmp_path):
    plugin = tmp_path / "evals" / "plugin"  # the plugin inside the eval dir: none of its files is left out
    (plugin / "skills").mkdir(parents=True)
    (plugin / "skills" / "a.md").write_text("one\n")
    first = conditions.plugin_digest(plugin, tmp_path / "evals")
    (plugin / "skills" / "a.md").write_text("two\n")
    assert conditions.plugin_digest(plugin, tmp_path / "evals") != first


def test_the_arm_of_scripted_yaml_that_answers_is_a_condition(suite):
    with_only = "with:\n  - text: Hello.\nwithout:\n  - text: Hi.\n"
    suite.case(files={"scripted.yaml": with_only})
    case = suite.load()
    scripted = {"base_url": lambda cwd: "http://x"}
    same = [plugin_of_plan(case, arm, **scripted)["script"] for arm in ("with", "against")]
    assert same[0] == same[1] is not None  # no `against:` arm: the with arm answers both
    (suite.evals / "c" / "scripted.yaml").write_text(with_only + "against:\n  - text: Hey.\n")
    case = suite.load()
    assert plugin_of_plan(case, "against", **scripted)["script"] != plugin_of_plan(case, "with", **scripted)["script"]


def plugin_of_plan(case, arm: str, **fields) -> dict:
    plan = RunPlan(case=case, arm=arm, index=1, settings=RunSettings(), claude=CLAUDE, **fields)
    return conditions.plugin_conditions(plan, "2.1.328", {})


def test_a_results_folder_written_beside_the_plugin_is_not_a_new_version_of_it(tmp_path):
    """A matrix's or a session's results folder inside the plugin (`--output-dir out`) changed the digest, so the
    next session refused to reuse runs of the very same plugin."""
    plugin = tmp_path / "plugin"
    (plugin / "skills").mkdir(parents=True)
    (plugin / "skills" / "a.md").write_text("one\n")
    first = conditions.plugin_digest(plugin, plugin / "evals")
    (plugin / "out" / "haiku" / "runs").mkdir(parents=True)
    (plugin / "out" / "matrix.json").write_text("{}")
    (plugin / "out" / "haiku" / "aggregate-result.json").write_text("{}")
    (plugin / "alone").mkdir()
    (plugin / "alone" / "aggregate-result.json").write_text("{}")
    (plugin / "alone" / "report.html").write_text("<p>")
    assert conditions.plugin_digest(plugin, plugin / "evals") == first
    (plugin / "skills" / "b.md").write_text("two\n")
    assert conditions.plugin_digest(plugin, plugin / "evals") != first


def test_in_a_git_work_tree_ignored_files_are_not_the_plugin_and_untracked_ones_are(tmp_path):
    plugin = tmp_path / "plugin"
    (plugin / "skills").mkdir(parents=True)
    (plugin / "skills" / "a.md").write_text("one\n")
    (plugin / ".gitignore").write_text("build/\n*.xml\n")
    subprocess.run(["git", "init", "-q", str(plugin)], check=True)
    subprocess.run(["git", "-C", str(plugin), "add", "."], check=True)
    first = conditions.plugin_digest(plugin, plugin / "evals")
    (plugin / "build").mkdir()
    (plugin / "build" / "x.js").write_text("x = 1\n")
    (plugin / "junit.xml").write_text("<testsuite/>")
    assert conditions.plugin_digest(plugin, plugin / "evals") == first
    (plugin / "scripts").mkdir()
    (plugin / "scripts" / "new.sh").write_text("echo\n")  # not committed yet, but the agent is given it
    assert conditions.plugin_digest(plugin, plugin / "evals") != first
