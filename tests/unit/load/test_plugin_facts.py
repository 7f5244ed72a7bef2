"""The plugin's skills as Claude Code names them, and the hash of its files (pytest_plugin_eval.load.plugin_facts)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.load.plugin_facts import SkillInfo, content_hash, descriptions_of, skills_of


def plugin(folder: Path, **manifest) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "addness", **manifest}))
    return folder


def skill(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder / "SKILL.md"


def test_each_skill_folder_is_named_by_its_folder_and_namespaced_by_the_plugin(tmp_path):
    root = plugin(tmp_path / "p")
    review = skill(root / "skills" / "review", "---\nname: something-else\ndescription: Review a PR.\n---\nbody\n")
    bare = skill(root / "skills" / "priorities", "no frontmatter at all\n")
    assert skills_of(root) == [
        SkillInfo("priorities", "addness:priorities", None, bare),
        SkillInfo("review", "addness:review", "Review a PR.", review),
    ]


def test_a_declared_skills_folder_that_is_a_skill_is_named_by_its_frontmatter(tmp_path):
    root = plugin(tmp_path / "p", skills=["./tools/lint"])
    path = skill(root / "tools" / "lint", "---\nname: addness:fix lint\ndescription: ' Fix lint. '\n---\n")
    assert skills_of(root) == [SkillInfo("fix-lint", "addness:fix-lint", "Fix lint.", path)]


def test_a_folder_without_a_manifest_is_named_after_the_folder(tmp_path):
    root = tmp_path / "bare-skills"
    skill(root / "skills" / "a.b", "---\ndescription: [not, text]\n---\n")
    skill(root / "skills" / ".hidden", "---\ndescription: hidden\n---\n")
    (root / "skills" / "no-skill-here").mkdir()
    [only] = skills_of(root)
    assert (only.name, only.qualified_name, only.description) == ("a-b", "bare-skills:a-b", None)
    assert descriptions_of(root) == {"bare-skills:a-b": None}


def test_an_unreadable_skill_file_still_names_a_skill(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "skills" / "s", "---\nname: [unterminated\n")
    assert [s.qualified_name for s in skills_of(root)] == ["addness:s"]


def test_the_content_hash_follows_files_and_their_bytes_not_the_eval_dir(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "skills" / "s", "---\ndescription: one\n---\n")
    (root / "evals" / "case").mkdir(parents=True)
    (root / ".git").mkdir()
    first = content_hash(root, exclude=(root / "evals",))
    (root / "evals" / "case" / "prompt.md").write_text("anything")
    (root / "evals" / "results").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    assert content_hash(root, exclude=(root / "evals",)) == first
    skill(root / "skills" / "s", "---\ndescription: two\n---\n")
    changed = content_hash(root, exclude=(root / "evals",))
    assert changed != first
    (root / "skills" / "s" / "SKILL.md").rename(root / "skills" / "s" / "OTHER.md")
    assert content_hash(root, exclude=(root / "evals",)) not in (first, changed)


def test_the_content_hash_is_the_same_for_a_copy_elsewhere(tmp_path):
    one, two = plugin(tmp_path / "one"), plugin(tmp_path / "two")
    for root in (one, two):
        skill(root / "skills" / "s", "same")
    assert content_hash(one) == content_hash(two)
    assert len(content_hash(one)) == 64


def test_files_in_exclude_are_left_out_too(tmp_path):
    root = plugin(tmp_path / "p")
    first = content_hash(root, exclude=(root / "result.json",))
    (root / "result.json").write_text("{}")  # the last session's --json, at the path this one writes
    assert content_hash(root, exclude=(root / "result.json",)) == first
    assert content_hash(root) != first


def test_a_root_skill_md_is_the_plugins_skill_when_there_is_no_skills_folder(tmp_path):
    """As Claude Code 2.1 loads it: named by its `name:`, else by the plugin's folder."""
    root = plugin(tmp_path / "p")
    path = skill(root, "---\nname: rooty\ndescription: Root.\n---\n")
    skill(root / "docs" / "part", "---\nname: part\n---\n")  # a document of the skill, not a skill
    assert skills_of(root) == [SkillInfo("rooty", "addness:rooty", "Root.", path)]
    skill(root, "---\ndescription: Unnamed.\n---\n")
    assert [s.qualified_name for s in skills_of(root)] == ["addness:p"]


def test_a_root_skill_md_is_not_loaded_beside_a_skills_folder_or_declared_skills_paths(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root, "---\nname: rooty\n---\n")
    (root / "skills").mkdir()  # even empty, it replaces the root file
    assert skills_of(root) == []
    other = plugin(tmp_path / "q", skills="./custom")
    skill(other, "---\nname: rooty\n---\n")
    skill(other / "custom" / "c1", "---\nname: c1\n---\n")
    assert [s.name for s in skills_of(other)] == ["c1"]


def test_a_plugin_without_a_root_skill_md_has_no_skills_from_its_other_folders(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "docs" / "part", "---\nname: part\n---\n")
    assert skills_of(root) == []


def test_a_results_folder_inside_the_plugin_is_not_plugin_content(tmp_path):
    root = plugin(tmp_path / "p")
    skill(root / "skills" / "s", "same")
    first = content_hash(root)
    kept = root / "baseline" / "2026-01-01T00-00-00-000Z"
    kept.mkdir(parents=True)
    (kept / "aggregate-result.json").write_text("{}")
    (kept / "run.txt").write_text("x")
    locked = root / "skills" / "s" / "evals" / "results" / "ts"
    locked.mkdir(parents=True)
    (locked / ".plugin-eval.lock").write_text("")
    assert content_hash(root) == first
