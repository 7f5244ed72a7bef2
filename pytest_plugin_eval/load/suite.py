"""What is under test: the plugin enclosing a suite, where its eval dirs are, and what its manifest declares."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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


def plugin_eval_dir(folder: Path, override: str | None = None) -> Path:
    """The eval dir of `folder`: `--eval-dir`, else (a plugin folder) its manifest's `experimental.evals`, else
    `evals` below it."""
    return folder / eval_dir_name(folder if is_plugin_dir(folder) else None, override)


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
        named = len(folder.parts) >= len(parts) and folder.parts[-len(parts) :] == parts
        if named and not _skill_evals_folder(folder, root):
            return folder
    return None


def _skill_evals_folder(folder: Path, plugin_root: Path | None) -> bool:
    """A skill's own `evals/` (skill-creator keeps its files there) inside a plugin: that skill's files belong to
    the plugin's suite, so the folder is no eval dir of its own (its results would be written into the skill).
    The `evals/` beside a SKILL.md at the plugin's root is the plugin's eval dir."""
    skill = folder.parent
    return plugin_root is not None and skill != plugin_root and (skill / "SKILL.md").is_file()


def is_skill_evals_folder(folder: Path) -> bool:
    """`folder` is a skill's own `evals/` inside a plugin (not the plugin's eval dir)."""
    return _skill_evals_folder(folder, enclosing_plugin(folder.parent))


def resolve_plugin(case_dir: Path, eval_root: Path) -> Path:
    """The plugin a case evaluates: the nearest enclosing plugin, else the eval dir's parent. Claude Code loads
    a folder without `.claude-plugin/plugin.json` as a plugin named after the folder, so such a folder is
    evaluated like any other (both arms), as the reference tool does."""
    return enclosing_plugin(case_dir) or eval_root.parent


def declared_servers(plugin: Path) -> dict[str, dict]:
    """The MCP servers a plugin declares: `.mcp.json`, and `mcpServers` in plugin.json (inline or a file)."""
    out: dict[str, dict] = {}
    sources = [plugin / ".mcp.json"]
    inline = read_manifest(plugin).get("mcpServers")
    if isinstance(inline, str):
        sources.append(plugin / inline)
    for source in sources:
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        servers = data.get("mcpServers", data) if isinstance(data, dict) else {}
        out.update({k: v for k, v in servers.items() if isinstance(v, dict)})
    if isinstance(inline, dict):
        out.update({k: v for k, v in inline.items() if isinstance(v, dict)})
    return out


# ---- what Claude Code loads from a plugin folder, and what it would not -------------------------------------

SKILL_FILE = "SKILL.md"
SKILLS_DIR = "skills"
# Manifest keys naming extra folders Claude Code loads components from (each a path or a list of paths).
COMPONENT_KEYS = ("skills", "commands", "agents")
LAYOUT_DEPTH = 3  # skills/<group>/<name>/SKILL.md is as deep as a misplaced skill is looked for


def component_paths(root: Path) -> dict[str, list[str]]:
    """Component folders the manifest declares, by kind (as written: `./evals`, `./`)."""
    manifest = read_manifest(root)
    out: dict[str, list[str]] = {}
    for key in COMPONENT_KEYS:
        value = manifest.get(key)
        paths = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        out[key] = [p for p in paths if isinstance(p, str) and p.strip()]
    return out


def markdown_components(root: Path, kind: Literal["commands", "agents"]) -> list[Path]:
    """The files of the plugin's commands or agents: the `.md` files in the folder named after the kind, then
    in each folder the manifest declares for it (or the `.md` file it names), a folder's files once."""
    found: list[Path] = []
    for folder in [root / kind, *(_under(root, p) for p in component_paths(root)[kind])]:
        if folder.is_file() and folder.suffix == ".md":
            found.append(folder)
        elif folder.is_dir():
            found += [p for p in sorted(folder.glob("*.md")) if p not in found]
    return found


def _under(root: Path, written: str) -> Path:
    return Path(os.path.normpath(root / written))


def _overlaps(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def layout_warnings(root: Path, eval_root: Path) -> list[str]:
    """What a first-time author trips over in a plugin folder, said before anything runs: SKILL.md files Claude
    Code will not load (only `skills/<name>/SKILL.md`, or one in or directly below a folder the manifest
    declares as a skills path, is loaded), and an eval dir that overlaps a declared component folder (results
    written there would be loaded as plugin files). The texts name no case, so each is shown once per session."""
    root, eval_root = root.absolute(), eval_root.absolute()
    declared, name = component_paths(root), plugin_at(root).name
    warnings = []
    for kind, written in ((k, p) for k, paths in declared.items() for p in paths):
        folder = _under(root, written)
        if not _overlaps(eval_root, folder):
            continue
        fix = (
            "narrow that path: it makes the whole plugin folder a component folder"
            if folder == root
            else "narrow that path, or keep the cases in another folder (--eval-dir)"
        )
        warnings.append(
            f'⚠ plugin {name}: {MANIFEST.as_posix()} declares "{written}" as a {kind} path, which overlaps '
            f"the eval dir {os.path.relpath(eval_root, root)}/ — the cases' files and the results written there "
            f"would be loaded as plugin files; {fix}"
        )
    skill_roots = [root / SKILLS_DIR, *(_under(root, p) for p in declared["skills"])]
    found_files = _skill_files(root, eval_root)
    if (root / SKILL_FILE) in found_files and not declared["skills"] and not (root / SKILLS_DIR).is_dir():
        # Claude Code loads a root SKILL.md as the plugin's one skill; the others are documents it may point to.
        others = [f.relative_to(root).as_posix() for f in found_files if f != root / SKILL_FILE]
        if others:
            shown = ", ".join(others[:3]) + (f", … ({len(others)} in all)" if len(others) > 3 else "")
            warnings.append(
                f"⚠ plugin {name}: {SKILL_FILE} at the root is the plugin's one skill (it has no {SKILLS_DIR}/ "
                f"folder); Claude Code loads no other {SKILL_FILE} as a skill ({shown}) — to make them skills, "
                f"put each in {SKILLS_DIR}/<name>/ (the root one is then not loaded: move it there too)"
            )
        return warnings
    loaded = [f for f in found_files if any(f.parent == r or f.parent.parent == r for r in skill_roots)]
    documents: dict[Path, list[str]] = {}  # a loaded skill → the SKILL.md files below it: its own documents
    strays = []
    for found in found_files:
        if found in loaded:
            continue
        owner = next((f for f in loaded if found.is_relative_to(f.parent)), None)
        if owner is not None:
            documents.setdefault(owner, []).append(found.relative_to(root).as_posix())
        else:
            strays.append(found)
    for owner, below in documents.items():
        shown = ", ".join(below[:2]) + (f", … ({len(below)} in all)" if len(below) > 2 else "")
        warnings.append(
            f"⚠ plugin {name}: {len(below)} {SKILL_FILE} file(s) below the skill {owner.parent.relative_to(root)}/ "
            f"({shown}) are not loaded as skills by Claude Code — they are documents of that skill, which it may "
            f"read; to make one a skill of its own, move it to {SKILLS_DIR}/<name>/{SKILL_FILE}"
        )
    targets = Counter(found.parent.name for found in strays if found.parent != root)
    for found in strays:
        rel = found.relative_to(root).as_posix()
        skill = found.parent.name if found.parent != root else "<name>"
        clash = (
            f" (another {SKILL_FILE} not loaded is in a folder named {skill} too: give one another name)"
            if targets[skill] > 1
            else ""
        )
        warnings.append(
            f"⚠ plugin {name}: {rel} is not loaded by Claude Code — a skill lives in "
            f"{SKILLS_DIR}/<name>/{SKILL_FILE}; move it to {SKILLS_DIR}/{skill}/{SKILL_FILE}{clash}"
        )
    return warnings


def _skill_files(root: Path, eval_root: Path) -> list[Path]:
    """SKILL.md files up to LAYOUT_DEPTH folders below `root`, outside dot-folders, eval dirs (a case may hold a
    SKILL.md as a fixture) and the folders never searched for eval dirs."""
    found = []
    for folder, subdirs, names in os.walk(root):
        here = Path(folder)
        depth = len(here.relative_to(root).parts)
        if SKILL_FILE in names:
            found.append(here / SKILL_FILE)
        if depth >= LAYOUT_DEPTH:
            subdirs[:] = []
            continue
        subdirs[:] = sorted(
            d
            for d in subdirs
            if not d.startswith(".") and d not in SKIP_WALK and d != eval_root.name and here / d != eval_root
        )
    return found


# Folders never searched for eval dirs.
SKIP_WALK = frozenset({"node_modules", "__pycache__", "site-packages", "venv", ".venv", "results"})


def find_eval_roots(
    path: Path, eval_dir: str | None, missing: Callable[[Path, str | None], Path | None] | None = None
) -> list[Path]:
    """The eval dirs a collection argument reaches: the one it is inside, or those below it; `missing(folder,
    eval_dir)`: the eval dir a folder the walk passes would have, though it does not exist (skill_suites.py)."""
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
        if missing is not None and (virtual := missing(here, eval_dir)) is not None:
            found.append(virtual)  # its skill folders' suite, collected from the plugin folder
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_WALK and not d.startswith("."))
    return found
