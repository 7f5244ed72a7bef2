"""The plugin folder's git state (load.provenance): a real git repository in tmp_path, a folder outside any, an
uncommitted change, and the paths that never count as one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_plugin_eval.load import provenance
from pytest_plugin_eval.load.provenance import git_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose plugin folder `plugin/` is committed."""
    root = tmp_path / "repo"
    plugin = root / "plugin"
    (plugin / "skills" / "greet").mkdir(parents=True)
    (plugin / "skills" / "greet" / "SKILL.md").write_text("hello\n")
    (root / "README.md").write_text("outside the plugin\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "one")
    return root


def test_a_clean_plugin_folder_gives_its_commit(repo):
    state = git_state(repo / "plugin")
    assert state is not None
    assert state.commit == git(repo, "rev-parse", "HEAD").strip()
    assert state.dirty is False


@pytest.mark.parametrize("change", ["modified", "untracked"])
def test_a_change_under_the_plugin_folder_makes_it_dirty(repo, change):
    skill = repo / "plugin" / "skills" / "greet" / "SKILL.md"
    if change == "modified":
        skill.write_text("changed\n")
    else:
        (skill.parent / "notes.md").write_text("new\n")
    state = git_state(repo / "plugin")
    assert state is not None and state.dirty is True


def test_a_change_elsewhere_in_the_repository_does_not(repo):
    (repo / "README.md").write_text("edited\n")
    (repo / "other.txt").write_text("new\n")
    state = git_state(repo / "plugin")
    assert state is not None and state.dirty is False


def test_excluded_folders_never_make_it_dirty(repo):
    results = repo / "plugin" / "evals" / "results" / "2026-01-01T00-00-00-000Z"
    results.mkdir(parents=True)
    (results / "aggregate-result.json").write_text("{}")
    assert git_state(repo / "plugin").dirty is True
    state = git_state(repo / "plugin", exclude=[repo / "plugin" / "evals" / "results", Path("/elsewhere")])
    assert state is not None and state.dirty is False


def test_a_folder_outside_any_repository_has_no_state(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    folder = tmp_path / "plain"
    folder.mkdir()
    assert git_state(folder) is None
    assert git_state(tmp_path / "missing") is None


def test_a_repository_without_a_commit_has_no_state(tmp_path):
    git(tmp_path, "init", "-q")
    assert git_state(tmp_path) is None


def test_the_environment_cannot_point_git_elsewhere(repo, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    state = git_state(repo / "plugin")
    assert state is not None and state.commit == git(repo, "rev-parse", "HEAD").strip()


def test_no_git_or_a_failing_git_is_quiet(repo, monkeypatch):
    monkeypatch.setattr(provenance.shutil, "which", lambda name: None)
    assert git_state(repo / "plugin") is None
    monkeypatch.undo()

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], provenance.GIT_TIMEOUT)

    monkeypatch.setattr(provenance.subprocess, "run", slow)
    assert git_state(repo / "plugin") is None
