"""The plugin as --against and --ablate's arms see it: copies made once, in the session's scratch folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers.plugin import write_plugin

from pytest_plugin_eval.core.kinds import ablated
from pytest_plugin_eval.engine.versions import PluginVersions, VersionError, revision_or_folder

SKILL = "---\nname: {0}\ndescription: d\n---\nx\n"


def plugin(root: Path) -> Path:
    folder = write_plugin(root / "p", "p", skill=("greet", SKILL.format("greet")))
    (folder / "skills" / "wave").mkdir()
    (folder / "skills" / "wave" / "SKILL.md").write_text(SKILL.format("wave"))
    (folder / "evals" / "c").mkdir()
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": {"command": "db"}, "kv": {"command": "kv"}}}))
    return folder


def git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def test_an_ablation_is_a_copy_without_the_component_nor_the_eval_dir(tmp_path):
    p = plugin(tmp_path)
    versions = PluginVersions(None, lambda: tmp_path / "scratch")
    (copy,) = versions.plugin_dirs((p,), ablated("wave"), p / "evals")
    assert (copy / "skills" / "greet" / "SKILL.md").is_file() and not (copy / "skills" / "wave").exists()
    assert not (copy / "evals").exists() and (p / "skills" / "wave").is_dir()
    assert versions.plugin_dirs((p,), ablated("wave"), p / "evals") == (copy,)  # made once
    assert versions.plugin_dirs((p,), "with", p / "evals") == (p,)
    (server,) = versions.plugin_dirs((p,), ablated("db"), p / "evals")
    assert json.loads((server / ".mcp.json").read_text()) == {"mcpServers": {"kv": {"command": "kv"}}}


def test_against_a_folder_copies_it(tmp_path):
    p, old = plugin(tmp_path), plugin(tmp_path / "old")
    (old / "skills" / "wave" / "SKILL.md").unlink()
    versions = PluginVersions(str(old), lambda: tmp_path / "scratch")
    versions.check(p, ())
    (copy,) = versions.plugin_dirs((p,), "against", p / "evals")
    assert (copy / "skills" / "greet").is_dir() and not (copy / "skills" / "wave" / "SKILL.md").exists()


def test_against_a_revision_archives_the_plugins_folder_at_it(tmp_path):
    repo = tmp_path / "repo"
    p = plugin(repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    (p / "skills" / "greet" / "SKILL.md").write_text(SKILL.format("greet") + "edited\n")
    assert revision_or_folder(p, "HEAD") == ("git", git(repo, "rev-parse", "HEAD"))
    (copy,) = PluginVersions("HEAD", lambda: tmp_path / "scratch").plugin_dirs((p,), "against", p / "evals")
    assert (copy / "skills" / "greet" / "SKILL.md").read_text() == SKILL.format("greet")
    assert (copy / ".claude-plugin" / "plugin.json").is_file() and not (copy / "evals").exists()


def test_what_cannot_be_made_is_said_first(tmp_path):
    p = plugin(tmp_path)
    with pytest.raises(VersionError, match="is not in a git repository"):
        PluginVersions("v1", lambda: tmp_path).check(p, ())
    with pytest.raises(VersionError, match="the folder holds no plugin"):
        PluginVersions(str(tmp_path / "p" / "evals"), lambda: tmp_path).check(p, ())
    with pytest.raises(VersionError, match=r"--ablate hooks: .*\(it has: db, greet, kv, wave\)"):
        PluginVersions(None, lambda: tmp_path).check(p, ("hooks",))
