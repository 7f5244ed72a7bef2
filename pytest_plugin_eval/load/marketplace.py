"""A marketplace root (`.claude-plugin/marketplace.json`, its plugins in subfolders) is no plugin: evaluating it
would load nothing. What it holds, so that a user is told which plugin folder to evaluate instead."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .suite import is_plugin_dir

MARKETPLACE = Path(".claude-plugin") / "marketplace.json"


@dataclass(frozen=True)
class Entry:
    name: str
    folder: Path | None  # a local source's folder; None for a remote one (github, url, npm)
    strict: bool = True  # False: the entry, not the folder's manifest, says what is installed


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
        out.append(Entry(entry["name"], folder, entry.get("strict") is not False))
    return out


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
