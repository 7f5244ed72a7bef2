"""A strict: false marketplace entry written out as the plugin folder Claude Code installs from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.authoring.entry_plugin import EntryError, write_entry
from pytest_plugin_eval.load.marketplace import subset_entries_note


def repo(root: Path, entries: list[dict]) -> Path:
    for name in ("xlsx", "pdf", "art"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}.\n---\n")
    (root / "extra" / "deep").mkdir(parents=True)
    (root / "extra" / "deep" / "SKILL.md").write_text("---\nname: deep\ndescription: deep.\n---\n")
    (root / "commands").mkdir()
    (root / "commands" / "go.md").write_text("Go.\n")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "plugins": entries}))
    return root


DOCS = {
    "name": "docs",
    "source": "./",
    "strict": False,
    "description": "Documents.",
    "category": "office",
    "skills": ["./skills/xlsx", "./skills/pdf", "./extra/deep"],
}


def test_only_the_named_components_and_a_manifest_of_the_entrys_own_keys(tmp_path):
    root = repo(tmp_path / "repo", [DOCS])
    written = write_entry(root, "docs", tmp_path / "docs")
    assert written.skills == ["pdf", "xlsx", "deep"] and written.all_skills == 3
    assert sorted(p.name for p in (tmp_path / "docs" / "skills").iterdir()) == ["pdf", "xlsx"]
    manifest = json.loads((tmp_path / "docs" / ".claude-plugin" / "plugin.json").read_text())
    # a path outside the default folder is named by the manifest; marketplace-only keys (category) stay out
    assert manifest == {"name": "docs", "description": "Documents.", "skills": ["./extra/deep"]}
    assert (tmp_path / "docs" / "commands" / "go.md").is_file()  # a kind the entry does not name: as it is
    assert not (tmp_path / "docs" / ".claude-plugin" / "marketplace.json").exists()


def test_a_refresh_keeps_the_suite_and_a_foreign_or_nested_folder_is_refused(tmp_path):
    root = repo(tmp_path / "repo", [DOCS])
    into = tmp_path / "docs"
    write_entry(root, "docs", into)
    (into / "evals" / "case").mkdir(parents=True)
    (into / "evals" / "case" / "prompt.md").write_text("Hi.\n")
    (into / "stale.txt").write_text("gone at the refresh")
    write_entry(root, "docs", into)
    assert (into / "evals" / "case" / "prompt.md").is_file() and not (into / "stale.txt").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.md").write_text("mine")
    with pytest.raises(EntryError, match="was not written by plugin-eval entry"):
        write_entry(root, "docs", foreign)
    with pytest.raises(EntryError, match="inside the entry's source folder"):
        write_entry(root, "docs", root / "docs")


def test_what_cannot_be_written_out_says_why(tmp_path):
    root = repo(tmp_path / "repo", [DOCS, {"name": "whole", "source": "./"}, {"name": "far", "source": "https://x"}])
    with pytest.raises(EntryError, match=r"lists no plugin named 'nope' \(it lists: docs, whole, far\)"):
        write_entry(root, "nope", tmp_path / "x")
    with pytest.raises(EntryError, match="installs its folder as it is"):
        write_entry(root, "whole", tmp_path / "x")
    with pytest.raises(EntryError, match="not a folder of this marketplace"):
        write_entry(root, "far", tmp_path / "x")
    with pytest.raises(EntryError, match="no .claude-plugin/marketplace.json here"):
        write_entry(tmp_path, "docs", tmp_path / "x")


def test_the_folder_a_subset_entry_installs_from_is_noted(tmp_path, monkeypatch):
    root = repo(tmp_path / "repo", [DOCS])
    monkeypatch.chdir(tmp_path)
    note = subset_entries_note(root, "check")
    assert note is not None and "installs parts of this folder as docs (3 skills)" in note
    assert "plugin-eval entry docs repo --into docs" in note
    assert subset_entries_note(repo(tmp_path / "other", [{"name": "a", "source": "./"}]), "check") is None
