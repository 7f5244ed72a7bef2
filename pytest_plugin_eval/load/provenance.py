"""Which state of the plugin a session evaluated: the git commit of its folder and whether the work tree had
uncommitted changes under it, asked of `git` once per session.

Everything here is best effort and quiet: no git on PATH, a folder outside any repository, a repository without
a commit, a slow or failing git — the answer is None (or an unknown dirty flag), never an error, and never more
than a few seconds. Git runs read-only: GIT_OPTIONAL_LOCKS=0 keeps `git status` from refreshing the index, so
a session never takes the index lock from under the user's own git commands.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT = 3.0  # seconds per git command
# Variables that would point git at another repository than the folder's own.
_REPOSITORY_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")


@dataclass(frozen=True)
class GitState:
    commit: str  # the full sha of HEAD
    dirty: bool | None  # uncommitted changes (untracked files included) under the folder; None: unknown


def git_state(folder: Path, exclude: Iterable[Path] = ()) -> GitState | None:
    """The commit checked out in the repository holding `folder`, and whether anything under `folder` differs
    from it. Paths in `exclude` (our own results folders, say) do not make the tree dirty. None when `folder`
    is not in a git repository with a commit, or git cannot be run."""
    git = shutil.which("git")
    folder = Path(folder)
    if git is None or not folder.is_dir():
        return None
    env = {k: v for k, v in os.environ.items() if k not in _REPOSITORY_VARIABLES}
    env.update(GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    head = _git(git, folder, env, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    commit = head.strip() if head else ""
    if len(commit) < 40 or not all(c in "0123456789abcdef" for c in commit):
        return None
    pathspec = ["."]
    for path in exclude:
        try:
            inside = Path(path).absolute().relative_to(folder.absolute())
        except ValueError:
            continue
        if inside.parts:
            pathspec.append(f":(exclude){inside.as_posix()}")
    status = _git(git, folder, env, "status", "--porcelain", "--untracked-files=normal", "--", *pathspec)
    return GitState(commit=commit, dirty=None if status is None else bool(status.strip()))


def _git(git: str, folder: Path, env: dict[str, str], *args: str) -> str | None:
    """git's stdout, or None when it fails, is slow, or cannot start."""
    try:
        done = subprocess.run(
            [git, "-C", str(folder), *args],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
