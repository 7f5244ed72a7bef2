"""The manifest rules Claude Code applies before loading a plugin (pytest_plugin_eval.load.manifest_rules)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.load.manifest_rules import manifest_problems


def plugin(root: Path, **manifest) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p", **manifest}))
    return root


def rendered(root: Path) -> list[str]:
    return [p.render(root) for p in manifest_problems(root)]


def test_agents_entries_must_name_md_files_and_every_path_must_start_with_dot_slash(tmp_path):
    root = plugin(tmp_path / "p", agents=["./agents"], skills="skills", hooks="hooks/h.json")
    (root / "agents").mkdir()
    (root / "skills").mkdir()
    (root / "hooks").mkdir()
    (root / "hooks" / "h.json").write_text("{}")
    assert rendered(root) == [
        '.claude-plugin/plugin.json: agents[0]: must end with ".md": Claude Code refuses the plugin — list each '
        'agent file ("./agents/reviewer.md"), or leave the key out: agents/ is read without it',
        '.claude-plugin/plugin.json: skills: must start with "./" ("./skills"): Claude Code refuses the plugin',
        '.claude-plugin/plugin.json: hooks: must start with "./" ("./hooks/h.json"): Claude Code refuses the plugin',
    ]


def test_entries_claude_code_accepts_give_no_problem_and_a_missing_path_is_named(tmp_path):
    root = plugin(tmp_path / "p", agents=["./agents/a.md"], commands=["./commands"], skills="./custom")
    (root / "agents").mkdir()
    (root / "agents" / "a.md").write_text("x")
    (root / "commands").mkdir()
    assert rendered(root) == [
        ".claude-plugin/plugin.json: skills: ./custom does not exist: Claude Code reports the plugin as failing to load"
    ]
    (root / "custom").mkdir()
    assert rendered(root) == []


def test_a_name_with_spaces_is_refused(tmp_path):
    root = plugin(tmp_path / "p", name="My Plugin")
    assert rendered(root) == [
        ".claude-plugin/plugin.json: name: cannot contain spaces: Claude Code refuses the plugin — use kebab-case "
        '("my-plugin")'
    ]
