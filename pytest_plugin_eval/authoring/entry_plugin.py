"""A marketplace entry written out as the plugin folder Claude Code installs from it (`plugin-eval entry`).

A `strict: false` entry is its own manifest: Claude Code copies the entry's source folder and loads the
components the entry names — for a kind it names (skills, commands, agents), those paths and not the default
folder (anthropics/skills: `source: "./"`, and each of three entries a few of the folder's 17 skills). Evaluating
the source folder as a whole would measure a plugin nobody installs, and `--plugin-dir` cannot be told to load a
subset. So the entry is written out once as a plain plugin folder: the source copied, each named kind's default
folder holding only what the entry names, and a plugin.json from the entry's own fields (paths outside the
default folders listed in it). Every command then evaluates that folder like any other. Running the command
again refreshes it from the marketplace, leaving its eval dir (`evals/`) alone.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import UsageError
from ..load.marketplace import COMPONENT_KINDS, MARKETPLACE, Entry, as_list, entry_named, marketplace_entries
from ..load.plugin_facts import skills_of

# The entry's keys that are a plugin manifest's too (marketplace-only keys such as source, strict, category,
# tags stay out: Claude Code checks plugin.json's keys).
MANIFEST_KEYS = ("name", "version", "description", "author", "homepage", "repository", "license", "keywords")
COMPONENT_FILES = {"hooks": "./hooks/hooks.json", "mcpServers": "./.mcp.json"}  # read anyway from these defaults
NOT_COPIED = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}
EVAL_DIR = "evals"
MARK = Path(".claude-plugin") / "entry-of.json"  # says the folder was written by this command (it may refresh it)


class EntryError(UsageError):
    """The entry cannot be written out; the message says why and what to do."""


@dataclass(frozen=True)
class Written:
    folder: Path
    entry: Entry
    skills: list[str]
    all_skills: int  # the source folder's, for "4 of 17"
    copied_evals: bool


def entry_of(marketplace: Path, name: str) -> Entry:
    entries = marketplace_entries(marketplace)
    if entries is None:
        raise EntryError(f"✗ {marketplace}: no {MARKETPLACE.as_posix()} here (pass the marketplace's folder)")
    entry = entry_named(marketplace, name)
    if entry is None:
        names = ", ".join(e.name for e in entries) or "none"
        raise EntryError(f"✗ {MARKETPLACE.as_posix()} lists no plugin named {name!r} (it lists: {names})")
    if entry.folder is None or not entry.folder.is_dir():
        raise EntryError(f"✗ {name}: its source is not a folder of this marketplace (fetch it, then evaluate it)")
    if not entry.subset_of:
        raise EntryError(
            f"✗ {name}: Claude Code installs its folder as it is ({os.path.relpath(entry.folder)}): evaluate that "
            f"folder (cd {os.path.relpath(entry.folder)} && plugin-eval check)"
        )
    return entry


def write_entry(marketplace: Path, name: str, into: Path) -> Written:
    """Write entry `name` of `marketplace` out as a plugin folder at `into`."""
    entry = entry_of(marketplace, name)
    source, into = Path(entry.folder or marketplace).absolute(), into.absolute()
    if into == source or into.is_relative_to(source) or source.is_relative_to(into):
        raise EntryError(f"✗ --into {into}: inside the entry's source folder {source}: choose a folder outside it")
    if into.exists() and any(into.iterdir()) and not (into / MARK).is_file():
        raise EntryError(f"✗ --into {into}: exists and was not written by plugin-eval entry: choose another folder")
    into.mkdir(parents=True, exist_ok=True)
    for child in into.iterdir():  # a refresh: everything but the suite
        if child.name != EVAL_DIR:
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    keep_evals = (into / EVAL_DIR).exists()
    shutil.copytree(
        source,
        into,
        symlinks=True,
        dirs_exist_ok=True,
        ignore=lambda folder, names: [
            n for n in names if n in NOT_COPIED or (keep_evals and Path(folder) == source and n == EVAL_DIR)
        ],
    )
    (into / MARKETPLACE).unlink(missing_ok=True)  # the copy is the plugin, not a marketplace of itself
    manifest: dict = {key: entry.fields[key] for key in MANIFEST_KEYS if key in entry.fields}
    for kind in COMPONENT_KINDS:
        declared = as_list(entry.fields.get(kind))
        if declared:
            elsewhere = keep_only(into, kind, declared)
            if elsewhere:
                manifest[kind] = elsewhere
    for key, default in COMPONENT_FILES.items():
        value = entry.fields.get(key)
        if value is not None and value != default:
            manifest[key] = value
    (into / ".claude-plugin").mkdir(exist_ok=True)
    (into / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (into / MARK).write_text(json.dumps({"marketplace": str(marketplace.absolute()), "entry": name}) + "\n")
    return Written(
        into,
        entry,
        [s.name for s in skills_of(into)],
        len(skills_of(source)),
        copied_evals=not keep_evals and (source / EVAL_DIR).is_dir(),
    )


def keep_only(into: Path, kind: str, declared: list[str]) -> list[str]:
    """Leave in the default folder of `kind` only the entries named in `declared` (its direct children); return
    the declared paths that are not such a child, for the manifest to name."""
    default = into / kind
    children: set[str] = set()
    elsewhere: list[str] = []
    for path in declared:
        target = Path(os.path.normpath(into / path))
        if target.parent == default:
            children.add(str(target))
        else:
            elsewhere.append(path)
    if default.is_dir():
        for child in default.iterdir():
            if str(child) not in children:
                shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    return elsewhere


def written_lines(written: Written, marketplace: Path) -> list[str]:
    where = os.path.relpath(written.folder)
    skills = ", ".join(written.skills) or "none"
    lines = [
        f"✓ {where}: entry {written.entry.name} of {os.path.relpath(marketplace)} as Claude Code installs it — "
        f"skills {skills} ({len(written.skills)} of the folder's {written.all_skills})",
    ]
    if written.copied_evals:
        lines.append(f"  the marketplace folder's {EVAL_DIR}/ was copied in as the plugin's suite")
    lines += [
        f"Next: cd {where} && plugin-eval check (the suite goes in {where}/{EVAL_DIR}/). Run this command again after "
        f"editing the marketplace's files: it refreshes the folder, leaving {EVAL_DIR}/ alone.",
    ]
    return lines
