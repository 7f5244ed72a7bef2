"""What is under test: the plugin enclosing a suite, and where its eval dirs are."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_EVAL_DIR = "evals"
MANIFEST = Path(".claude-plugin") / "plugin.json"
# Folders under an eval dir that never hold cases.
NOT_CASE_DIRS = frozenset({"results", "node_modules", ".claude"})
RESERVED_DIR = "mocks"


@dataclass(frozen=True)
class Plugin:
    name: str
    version: str | None
    path: Path

    def to_json(self) -> dict:
        out: dict = {"name": self.name}
        if self.version is not None:
            out["version"] = self.version
        out["path"] = str(self.path)
        return out


def read_manifest(root: Path) -> dict:
    """The plugin manifest as a dict ({} when absent or unreadable: the loader reports problems elsewhere)."""
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_plugin_dir(path: Path) -> bool:
    return (path / MANIFEST).is_file()


def plugin_at(root: Path) -> Plugin:
    """The plugin rooted at `root`: named by its manifest, else by the folder (a bare skills folder)."""
    manifest = read_manifest(root)
    name, version = manifest.get("name"), manifest.get("version")
    return Plugin(
        name=name if isinstance(name, str) else root.name,
        version=version if isinstance(version, str) else None,
        path=root,
    )


def enclosing_plugin(start: Path) -> Path | None:
    """The nearest folder at or above `start` that is a plugin (has .claude-plugin/plugin.json)."""
    for folder in (start, *start.parents):
        if is_plugin_dir(folder):
            return folder
    return None


def eval_dir_name(plugin_root: Path | None, override: str | None = None) -> str:
    """`--eval-dir`, else the manifest's `experimental.evals`, else `evals`."""
    if override:
        return override.strip("/")
    if plugin_root is not None:
        experimental = read_manifest(plugin_root).get("experimental")
        if isinstance(experimental, dict) and isinstance(experimental.get("evals"), str):
            return experimental["evals"].strip("/")
    return DEFAULT_EVAL_DIR


def eval_root_of(path: Path, override: str | None = None) -> Path | None:
    """The eval dir that contains `path` (itself included), or None when `path` is not inside one.

    An eval dir is a folder named like the eval dir setting (`evals` by default; a relative path such as
    `qa/evals` names a nested folder) below a plugin, or anywhere when no plugin encloses it.
    """
    path = path.absolute()
    chain = (path, *path.parents)
    # Each folder's enclosing plugin in one pass from the top (asked on every path pytest visits).
    enclosing, nearest = [], None
    for folder in reversed(chain):
        nearest = folder if is_plugin_dir(folder) else nearest
        enclosing.append(nearest)
    names: dict[Path | None, tuple[str, ...]] = {}
    for folder, root in zip(chain, reversed(enclosing), strict=True):
        if root not in names:
            names[root] = Path(eval_dir_name(root, override)).parts
        parts = names[root]
        if len(folder.parts) >= len(parts) and folder.parts[-len(parts) :] == parts:
            return folder
    return None


def resolve_plugin(case_dir: Path, eval_root: Path) -> Path | None:
    """The plugin a case evaluates: the nearest enclosing plugin, else the eval dir's parent when it looks
    like a plugin without a manifest (it has skills/, commands/ or agents/)."""
    root = enclosing_plugin(case_dir)
    if root is not None:
        return root
    parent = eval_root.parent
    if any((parent / sub).is_dir() for sub in ("skills", "commands", "agents")):
        return parent
    return None


# Folders never searched for eval dirs.
SKIP_WALK = frozenset({"node_modules", "__pycache__", "site-packages", "venv", ".venv", "results"})


def find_eval_roots(path: Path, eval_dir: str | None) -> list[Path]:
    """The eval dirs a collection argument reaches: the one it is inside, or those below it."""
    root = eval_root_of(path, eval_dir)
    if root is not None:
        return [root]
    if not path.is_dir():
        return []
    found = []
    for folder, subdirs, _ in os.walk(path):
        here = Path(folder)
        if here != path and eval_root_of(here, eval_dir) == here:
            found.append(here)
            subdirs[:] = []
            continue
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_WALK and not d.startswith("."))
    return found
