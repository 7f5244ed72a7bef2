"""Unit tests for `plugin-eval init --bare` (pytest_plugin_eval.cli.commands.init), called in-process in a plugin folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_plugin_eval.authoring.bare_case import skill_match
from pytest_plugin_eval.cli.commands.init import init
from pytest_plugin_eval.core.yamlio import load_yaml, split_frontmatter
from pytest_plugin_eval.grade import ecmaregex
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.load.script import parse_script


def plugin(root: Path, name: str | None = "greeter", skills: dict[str, str | None] | None = None) -> Path:
    """A plugin folder: a manifest named `name` (none when None) and skills/<folder>/SKILL.md with `name:`."""
    if name is not None:
        (root / ".claude-plugin").mkdir(parents=True)
        (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    for folder, skill in (skills or {}).items():
        (root / "skills" / folder).mkdir(parents=True)
        head = f"name: {skill}\n" if skill else ""
        (root / "skills" / folder / "SKILL.md").write_text(f"---\n{head}description: Does a thing.\n---\nBody.\n")
    return root


def skill_fired(case: Path) -> dict:
    meta, _ = split_frontmatter((case / "graders" / "skill-fired.md").read_text())
    assert meta is not None
    return meta


def scripted_skill(case: Path) -> str:
    script: Any = load_yaml((case / "scripted.yaml").read_text())
    return script["with"][0]["input"]["skill"]


@pytest.fixture
def in_plugin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_case_names_the_plugins_first_skill(in_plugin, capsys):
    """As Claude Code names it: by its folder (its frontmatter's `name:` does not rename a plugin's skill)."""
    plugin(in_plugin, "greeter", {"b-second": "farewell", "a-first": "greet"})
    assert init(["--bare", "hello"]) == 0
    case = in_plugin / "evals" / "hello"
    assert scripted_skill(case) == "greeter:a-first"
    assert skill_fired(case) == {"type": "tool_used", "tool": "Skill", "input_match": '"skill":"(greeter:)?a-first"'}
    out = capsys.readouterr().out
    assert out.startswith("Created evals/hello/prompt.md, evals/hello/scripted.yaml, ")
    assert "Added evals/results/ to .gitignore" in out


def test_the_written_case_loads_and_its_grader_matches_the_scripted_call(in_plugin):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "hello"]) == 0
    case_dir = in_plugin / "evals" / "hello"
    case = load_case(case_dir, in_plugin / "evals", grader_types())
    script = parse_script(load_yaml((case_dir / "scripted.yaml").read_text()), "scripted.yaml")
    assert script is not None
    pattern = skill_fired(case_dir)["input_match"]
    assert [g.name for g in case.graders] == ["replied", "skill-fired"]
    # the model may call the skill with or without the plugin's prefix; another skill does not count
    for called, fired in (("greeter:greet", True), ("greet", True), ("greeter:greeting", False), ("x:greet", False)):
        assert ecmaregex.search(pattern, "", ecmaregex.compact_json({"skill": called})) is fired, called


@pytest.mark.parametrize(
    "manifest, skills, expected",
    [
        ("greeter", {"greet": None}, "greeter:greet"),  # no name: in the frontmatter → the folder's name
        (None, {"greet": "hello"}, "{root}:greet"),  # no manifest → the plugin is named after its folder
        ("greeter", {}, "greeter:your-skill"),  # no skill at all → a placeholder to edit
    ],
)
def test_names_fall_back_to_folders(in_plugin, manifest, skills, expected, capsys):
    plugin(in_plugin, manifest, skills)
    assert init(["--bare", "c"]) == 0
    assert scripted_skill(in_plugin / "evals" / "c") == expected.format(root=in_plugin.name)
    assert ("has no skill or command the model may pick" in capsys.readouterr().out) is (not skills)


def test_a_plugin_of_commands_only_gets_its_first_command(in_plugin, capsys):
    """commit-commands has commands/ and no skills/: the agent calls a command through Skill, so the case names one
    (the first by name) rather than a placeholder that `check` then refuses."""
    plugin(in_plugin, "commit-commands")
    (in_plugin / "commands").mkdir()
    for name in ("commit", "clean_gone"):
        (in_plugin / "commands" / f"{name}.md").write_text("---\ndescription: A command.\n---\nDo it.\n")
    assert init(["--bare", "c"]) == 0
    case = in_plugin / "evals" / "c"
    assert scripted_skill(case) == "commit-commands:clean_gone"
    assert skill_fired(case)["input_match"] == '"skill":"(commit-commands:)?clean_gone"'
    assert "no skill or command" not in capsys.readouterr().out


def test_regex_characters_in_names_are_escaped():
    pattern = skill_match("my.plugin", "a+b")
    assert pattern == '"skill":"(my\\.plugin:)?a\\+b"'
    assert ecmaregex.search(pattern, "", '{"skill":"my.plugin:a+b"}')
    assert not ecmaregex.search(pattern, "", '{"skill":"myXplugin:aab"}')


def test_gitignore_is_created_then_left_alone(in_plugin):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "one"]) == 0
    assert (in_plugin / ".gitignore").read_text() == "evals/results/\n"
    assert init(["--bare", "two"]) == 0
    assert (in_plugin / ".gitignore").read_text() == "evals/results/\n"


@pytest.mark.parametrize(
    "existing", ["evals/results/\n", "/evals/results\n", "node_modules\n/evals/results/", "**/evals/results/\n"]
)
def test_gitignore_already_ignoring_the_results_is_not_touched(in_plugin, existing, capsys):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    (in_plugin / ".gitignore").write_text(existing)
    assert init(["--bare", "c"]) == 0
    assert (in_plugin / ".gitignore").read_text() == existing
    assert ".gitignore" not in capsys.readouterr().out


def test_gitignore_is_appended_to_on_a_line_of_its_own(in_plugin):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    (in_plugin / ".gitignore").write_text("node_modules")  # no final newline
    assert init(["--bare", "c"]) == 0
    assert (in_plugin / ".gitignore").read_text() == "node_modules\nevals/results/\n"


def test_the_eval_dir_in_use_is_the_one_ignored(in_plugin):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "c", "--eval-dir", "qa/evals"]) == 0
    assert (in_plugin / "qa" / "evals" / "c" / "prompt.md").is_file()
    assert (in_plugin / ".gitignore").read_text() == "qa/evals/results/\n"


def test_refused_names_write_nothing(in_plugin, capsys):
    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "results"]) == 1
    assert "reserved" in capsys.readouterr().err
    assert not (in_plugin / ".gitignore").exists() and not (in_plugin / "evals").exists()


def test_check_refuses_the_untouched_template_and_prints_no_pilot(in_plugin, capsys):
    """Issue 23 item 7: the placeholder prompt and the free `\\S` grader are problems, not a suite."""
    from pytest_plugin_eval.cli.commands.check import check

    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "hello"]) == 0
    assert init(["--bare", "unrelated"]) == 0
    capsys.readouterr()
    assert check(["."]) == 1
    out = capsys.readouterr().out
    assert "evals/hello/prompt.md: prompt: is still the placeholder init --bare wrote" in out
    assert "evals/hello/graders/replied.md: pattern: '\\S' passes any reply" in out
    assert "Pilot" not in out
    prompt = in_plugin / "evals" / "hello" / "prompt.md"
    prompt.write_text(prompt.read_text().replace("Replace this paragraph", "Please greet me; replace nothing"))
    (in_plugin / "evals" / "hello" / "graders" / "replied.md").write_text("---\ntype: regex\npattern: Hello\n---\n")
    check(["."])
    out = capsys.readouterr().out
    assert "evals/hello/prompt.md: prompt" not in out and "evals/hello/graders/replied.md" not in out
    assert "evals/unrelated/prompt.md: prompt: is still the placeholder" in out


def test_check_names_the_placeholder_skill_init_bare_wrote_for_a_plugin_without_one(in_plugin, capsys):
    from pytest_plugin_eval.cli.commands.check import check

    plugin(in_plugin, "greeter", {})
    (in_plugin / "agents").mkdir()  # something to load, but no skill or command to name
    (in_plugin / "agents" / "hi.md").write_text("---\nname: hi\ndescription: Hi.\n---\nSay hi.\n")
    assert init(["--bare", "hello"]) == 0
    capsys.readouterr()
    assert check(["."]) == 1
    out = capsys.readouterr().out
    assert "evals/hello/graders/skill-fired.md: input_match: names your-skill (init --bare's placeholder" in out


def test_init_refuses_an_empty_model_name_as_a_session_does(in_plugin, capsys):
    """--model reaches the pilot and the cost estimate: refused before anything is written, in the session's words."""
    plugin(in_plugin, skills={"greet": "greet"})
    assert init(["--draft", str(in_plugin), "--model", "claude-haiku-4-5,"]) == 1
    assert "Error: --model claude-haiku-4-5,: an empty model name" in capsys.readouterr().err
    assert not (in_plugin / "evals").exists()


def test_the_reference_tools_interactive_flag_is_the_interview(in_plugin, monkeypatch, capsys):
    """`claude plugin eval init -i` asks for the interview, the default: plugin-eval init refused -i (exit 2)."""
    import pytest_plugin_eval.cli.commands.init as init_command

    asked = []
    monkeypatch.setattr(init_command, "author", lambda args, target: asked.append(target) or 0)
    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["-i"]) == 0
    assert init(["--interactive", "."]) == 0
    assert asked == [None, "."]
    assert init(["-i", "--bare", "x"]) == 1
    assert "-i is the interview" in capsys.readouterr().err
    assert not (in_plugin / "evals").exists()


def test_check_marks_every_warning(in_plugin, capsys):
    """check printed some warnings with ⚠ (a tool only the operator grants) and others bare (an indicator that
    matches no skill), so a bare one read as part of the line above."""
    from pytest_plugin_eval.cli.commands.check import check

    plugin(in_plugin, "greeter", {"greet": "greet"})
    assert init(["--bare", "hello"]) == 0
    fired = in_plugin / "evals" / "hello" / "graders" / "skill-fired.md"
    fired.write_text(fired.read_text().replace("a-first", "x").replace('greet"', 'gret"'))
    capsys.readouterr()
    check(["."])
    out = capsys.readouterr().out
    assert '\n⚠ case "hello": grader "skill-fired": input_match' in out
