"""Plugins Claude Code has installed: a target named `name` or `name@marketplace` is looked up in Claude Code's
plugins/installed_plugins.json (in CLAUDE_CONFIG_DIR, or ~/.claude)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def installed_plugin(name: str) -> Path | None:
    """An installed plugin's folder, from Claude Code's plugins/installed_plugins.json (`name` or
    `name@marketplace`)."""
    try:
        data = json.loads((claude_home() / "plugins" / "installed_plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plugins = data.get("plugins", data) if isinstance(data, dict) else {}
    for key, entries in plugins.items():
        if key != name and key.split("@")[0] != name:
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if path and Path(path).is_dir():
                return Path(path)
    return None
