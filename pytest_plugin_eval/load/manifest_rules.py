"""The rules Claude Code 2.1 applies to a plugin manifest's component entries before it loads the plugin, so that
`check` says what the runs would meet: a manifest it refuses leaves the with-plugin arm with no plugin at all, and
an entry naming a missing path is a load error it reports."""

from __future__ import annotations

from pathlib import Path

from ..core.problems import Problem
from .suite import MANIFEST, read_manifest

PATH_KEYS = ("commands", "agents", "skills", "outputStyles", "hooks", "mcpServers")
CHECKED_FOR_PRESENCE = ("commands", "agents", "skills", "outputStyles", "hooks")


def manifest_problems(root: Path) -> list[Problem]:
    """What Claude Code would refuse or report in `root`'s .claude-plugin/plugin.json, keyed as it keys them."""
    manifest = read_manifest(root)
    file = root / MANIFEST
    problems: list[Problem] = []
    name = manifest.get("name")
    if isinstance(name, str) and " " in name:
        problems.append(
            Problem(
                file, "name", 'cannot contain spaces: Claude Code refuses the plugin — use kebab-case ("my-plugin")'
            )
        )
    for key in PATH_KEYS:
        value = manifest.get(key)
        entries = (
            [(key, value)]
            if isinstance(value, str)
            else [(f"{key}[{i}]", v) for i, v in enumerate(value)]
            if isinstance(value, list)
            else []
        )
        for where, entry in entries:
            problems += _entry_problems(root, file, key, where, entry)
    return problems


def _entry_problems(root: Path, file: Path, key: str, where: str, entry: object) -> list[Problem]:
    if not isinstance(entry, str):
        return [Problem(file, where, "must be a path (a string): Claude Code refuses the plugin")]
    out = []
    if not entry.startswith("./"):
        out.append(
            Problem(file, where, f'must start with "./" ("./{entry.lstrip("/")}"): Claude Code refuses the plugin')
        )
    if key == "agents" and not entry.endswith(".md"):
        out.append(
            Problem(
                file,
                where,
                'must end with ".md": Claude Code refuses the plugin — list each agent file '
                '("./agents/reviewer.md"), or leave the key out: agents/ is read without it',
            )
        )
    if not out and key in CHECKED_FOR_PRESENCE and not (root / entry).exists():
        out.append(Problem(file, where, f"{entry} does not exist: Claude Code reports the plugin as failing to load"))
    return out
