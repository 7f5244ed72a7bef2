"""Which eval dir a path belongs to, and which plugin a suite evaluates (pytest_plugin_eval.target)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.load.suite import (
    Plugin,
    declared_servers,
    eval_dir_name,
    eval_root_of,
    layout_warnings,
    markdown_components,
    plugin_at,
    resolve_plugin,
)


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


def test_without_a_manifest_the_eval_dirs_parent_is_the_plugin(tmp_path):
    # Claude Code loads any folder as a plugin; skills/, commands/ or agents/ are not needed to say so.
    (tmp_path / "bare" / "skills").mkdir(parents=True)
    evals = tmp_path / "bare" / "evals"
    assert resolve_plugin(evals / "c", evals) == tmp_path / "bare"
    assert resolve_plugin(tmp_path / "loose" / "evals" / "c", tmp_path / "loose" / "evals") == tmp_path / "loose"
    assert plugin_at(tmp_path / "loose") == Plugin("loose", None, tmp_path / "loose")


def test_an_enclosing_manifest_wins_over_the_eval_dirs_parent(tmp_path):
    root = plugin(tmp_path / "p", experimental={"evals": "qa/evals"})
    evals = root / "qa" / "evals"
    assert resolve_plugin(evals / "c", evals) == root


def test_declared_servers_come_from_mcp_json_and_the_manifest(tmp_path):
    root = plugin(tmp_path / "p", mcpServers={"inline": {"command": "x"}, "not-a-server": 3})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "y"}}}))
    assert sorted(declared_servers(root)) == ["inline", "tracker"]
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / ".mcp.json").write_text(json.dumps({"notes": {"command": "z"}}))  # the flat form
    assert list(declared_servers(bare)) == ["notes"]
    assert declared_servers(tmp_path / "missing") == {}


# ---- layout warnings -----------------------------------------------------------------------------------------


def skill(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nname: x\ndescription: d\n---\nDo it.\n")


def test_skills_claude_code_loads_give_no_warning(tmp_path):
    root = tmp_path / "p"
    skill(root / "skills" / "a" / "SKILL.md")
    skill(root / "evals" / "c" / "fixtures" / "SKILL.md")  # a case's fixture, not a skill
    skill(root / "node_modules" / "dep" / "SKILL.md")
    skill(root / ".git" / "SKILL.md")
    assert layout_warnings(root, root / "evals") == []


def test_a_skill_md_claude_code_would_not_load_is_named_with_where_it_belongs(tmp_path):
    root = tmp_path / "p"
    skill(root / "SKILL.md")
    skill(root / "my-skill" / "SKILL.md")
    skill(root / "skills" / "group" / "deep" / "SKILL.md")  # one level too deep
    skill(root / "a" / "b" / "c" / "d" / "SKILL.md")  # deeper than anyone looks
    assert layout_warnings(root, root / "evals") == [
        "⚠ plugin p: SKILL.md is not loaded by Claude Code — a skill lives in skills/<name>/SKILL.md; "
        "move it to skills/<name>/SKILL.md",
        "⚠ plugin p: my-skill/SKILL.md is not loaded by Claude Code — a skill lives in skills/<name>/SKILL.md; "
        "move it to skills/my-skill/SKILL.md",
        "⚠ plugin p: skills/group/deep/SKILL.md is not loaded by Claude Code — a skill lives in "
        "skills/<name>/SKILL.md; move it to skills/deep/SKILL.md",
    ]


def test_skills_paths_the_manifest_declares_are_loaded(tmp_path):
    root = plugin(tmp_path / "p", skills=["./custom", "./one-skill"])
    skill(root / "custom" / "a" / "SKILL.md")
    skill(root / "one-skill" / "SKILL.md")  # a declared path may be a skill folder itself
    assert layout_warnings(root, root / "evals") == []
    whole = plugin(tmp_path / "whole", skills="./")
    skill(whole / "SKILL.md")
    assert [w for w in layout_warnings(whole, whole / "evals") if "not loaded" in w] == []


@pytest.mark.parametrize("declared", ["./evals", ["./skills", "./evals/c"], "./evals/"])
def test_an_eval_dir_overlapping_a_declared_skills_path_is_a_warning(tmp_path, declared):
    root = plugin(tmp_path / "p", skills=declared)
    written = declared[-1] if isinstance(declared, list) else declared
    assert layout_warnings(root, root / "evals") == [
        f'⚠ plugin p: .claude-plugin/plugin.json declares "{written}" as a skills path, which overlaps the eval '
        f"dir evals/ — the cases' files and the results written there would be loaded as plugin files; narrow "
        f"that path, or keep the cases in another folder (--eval-dir)"
    ]


def test_declaring_the_whole_plugin_as_a_component_path_is_a_warning(tmp_path):
    root = plugin(tmp_path / "p", commands="./", experimental={"evals": "qa/evals"})
    [warning] = layout_warnings(root, root / "qa" / "evals")
    assert warning.startswith('⚠ plugin p: .claude-plugin/plugin.json declares "./" as a commands path')
    assert "the eval dir qa/evals/" in warning
    assert warning.endswith("narrow that path: it makes the whole plugin folder a component folder")


def test_declared_paths_apart_from_the_eval_dir_and_other_keys_give_no_warning(tmp_path):
    root = plugin(tmp_path / "p", skills=["./skills", 3], agents="./agents", hooks="./evals/hooks.json")
    assert layout_warnings(root, root / "evals") == []


def test_a_root_skill_md_without_a_skills_folder_is_loaded_and_its_sub_documents_are_said_once(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "SKILL.md")
    assert layout_warnings(root, root / "evals") == []
    for part in ("android", "ios", "web", "cli"):
        skill(root / "guides" / part / "SKILL.md")
    [warning] = layout_warnings(root, root / "evals")
    assert "SKILL.md at the root is the plugin's one skill" in warning
    assert "guides/android/SKILL.md, guides/cli/SKILL.md, guides/ios/SKILL.md, … (4 in all)" in warning


def test_a_skills_own_evals_folder_is_no_eval_dir_but_a_root_skills_evals_is(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "skills" / "s" / "SKILL.md")
    (root / "skills" / "s" / "evals").mkdir()
    assert eval_root_of(root / "skills" / "s" / "evals" / "trigger-eval.json") is None
    skill(root / "SKILL.md")
    assert eval_root_of(root / "evals" / "triggers.yaml") == root / "evals"
    # with no plugin around it, skill-creator's standalone skill folder keeps its evals/ as the eval dir
    skill(tmp_path / "alone" / "SKILL.md")
    assert eval_root_of(tmp_path / "alone" / "evals" / "x") == tmp_path / "alone" / "evals"


def test_skill_md_files_below_a_loaded_skill_are_its_documents_said_once_and_clashing_moves_are_named(tmp_path):
    """Issue 34 item 8: a skill's 25 sub-documents were 25 'move it to skills/...' warnings, with colliding
    targets. Claude Code loads skills/android/SKILL.md alone (checked with 2.1.x): the others are its documents."""
    root = tmp_path / "p"
    skill(root / "skills" / "android" / "SKILL.md")
    for sub in ("a", "b", "c"):
        skill(root / "skills" / "android" / sub / "SKILL.md")
    skill(root / "skills" / "group" / "x" / "SKILL.md")
    skill(root / "other" / "x" / "SKILL.md")
    assert layout_warnings(root, root / "evals") == [
        "⚠ plugin p: 3 SKILL.md file(s) below the skill skills/android/ (skills/android/a/SKILL.md, "
        "skills/android/b/SKILL.md, … (3 in all)) are not loaded as skills by Claude Code — they are documents of "
        "that skill, which it may read; to make one a skill of its own, move it to skills/<name>/SKILL.md",
        "⚠ plugin p: other/x/SKILL.md is not loaded by Claude Code — a skill lives in skills/<name>/SKILL.md; move "
        "it to skills/x/SKILL.md (another SKILL.md not loaded is in a folder named x too: give one another name)",
        "⚠ plugin p: skills/group/x/SKILL.md is not loaded by Claude Code — a skill lives in skills/<name>/SKILL.md; "
        "move it to skills/x/SKILL.md (another SKILL.md not loaded is in a folder named x too: give one another name)",
    ]


def test_commands_and_agents_are_the_md_files_of_their_folder_then_of_the_manifests_paths(tmp_path):
    root = plugin(tmp_path / "p", commands=["./commands", "./extra"], agents="./team/critic.md")
    for rel in ("commands/b.md", "commands/a.md", "commands/notes.txt", "extra/c.md", "team/critic.md", "team/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("---\ndescription: d\n---\n")
    commands = markdown_components(root, "commands")
    assert [p.relative_to(root).as_posix() for p in commands] == ["commands/a.md", "commands/b.md", "extra/c.md"]
    assert markdown_components(root, "agents") == [root / "team" / "critic.md"]
