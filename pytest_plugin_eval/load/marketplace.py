"""A marketplace root (`.claude-plugin/marketplace.json`, its plugins in subfolders) is no plugin: evaluating it
would load nothing. What it holds, so that a user is told which plugin folder to evaluate instead."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .suite import is_plugin_dir

MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
COMPONENT_KINDS = ("skills", "commands", "agents")  # an entry's list of these replaces the default folder


@dataclass(frozen=True)
class Entry:
    name: str
    folder: Path | None  # a local source's folder; None for a remote one (github, url, npm)
    strict: bool = True  # False: the entry, not the folder's manifest, says what is installed
    fields: dict = field(default_factory=dict, compare=False, repr=False)  # the entry as marketplace.json has it

    @property
    def subset_of(self) -> bool:
        """A `strict: false` entry that names its own components: Claude Code installs only those (and reads no
        default folder of that kind), so the folder evaluated as a whole is not what the entry installs."""
        return not self.strict and any(self.fields.get(kind) for kind in COMPONENT_KINDS)


def marketplace_entries(root: Path) -> list[Entry] | None:
    """The plugins `root`'s marketplace.json lists; None when `root` has none (or it cannot be read)."""
    try:
        data = json.loads((root / MARKETPLACE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, list):
        return None
    base = (data.get("metadata") or {}).get("pluginRoot") if isinstance(data.get("metadata"), dict) else None
    out = []
    for entry in plugins:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        source = entry.get("source")
        if isinstance(source, dict) and source.get("source") in ("local", None) and isinstance(source.get("path"), str):
            source = source["path"]
        folder = None
        if isinstance(source, str) and not source.startswith(("http:", "https:", "git@", "github:")):
            under = root / base if isinstance(base, str) and not source.startswith("./") else root
            folder = Path(os.path.normpath(under / source))
        out.append(Entry(entry["name"], folder, entry.get("strict") is not False, dict(entry)))
    return out


def entry_named(root: Path, name: str) -> Entry | None:
    return next((e for e in marketplace_entries(root) or [] if e.name == name), None)


def subset_entries_note(root: Path, command: str) -> str | None:
    """What to say when `root` is a plugin folder that a `strict: false` entry of its own marketplace.json installs
    only part of (anthropics/skills: three entries, each a few of the folder's skills): Claude Code installs an
    entry, and evaluating the folder as a whole measures a plugin nobody installs."""
    here = os.path.realpath(root)
    entries = [
        e for e in marketplace_entries(root) or [] if e.subset_of and e.folder and os.path.realpath(e.folder) == here
    ]
    if not entries:
        return None
    listed = ", ".join(
        f"{e.name} ({', '.join(f'{len(as_list(e.fields[k]))} {k}' for k in COMPONENT_KINDS if e.fields.get(k))})"
        for e in entries
    )
    first = entries[0].name
    into = os.path.normpath(os.path.join(os.path.relpath(here), "..", first))  # beside the folder, outside it
    return (
        f"ⓘ {MARKETPLACE.as_posix()} installs parts of this folder as {listed}: Claude Code installs an entry, not "
        f"the whole folder, which `{command}` here evaluates. To evaluate an entry as Claude Code installs it: "
        f"plugin-eval entry {first} {os.path.relpath(here)} --into {into} (then run plugin-eval there)."
    )


def as_list(value: object) -> list[str]:
    """A manifest path field: one path or a list of them."""
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def marketplace_refusal(root: Path, command: str, loads_something: bool) -> str | None:
    """What to say when `root` is a marketplace root with nothing of its own for Claude Code to load."""
    entries = marketplace_entries(root)
    if entries is None or loads_something or is_plugin_dir(root):
        return None
    local = [e for e in entries if e.folder is not None and e.folder.is_dir()]
    listed = "\n".join(
        f"  {e.name}: {os.path.relpath(e.folder, root) if e.folder else '(a remote source: fetch it first)'}"
        for e in entries
    )
    example = (
        f"cd {os.path.relpath(local[0].folder, root)} && plugin-eval {command}" if local and local[0].folder else ""
    )
    where = os.path.relpath(root) if root.is_absolute() else str(root)
    return (
        f"✗ {where}: this folder is a plugin marketplace ({MARKETPLACE.as_posix()}), not a plugin — Claude Code "
        f"would load nothing from it. It lists {len(entries)} plugin(s):\n{listed}\n"
        f"Evaluate one of them: run in its folder{f' (e.g. {example})' if example else ''}."
    )
