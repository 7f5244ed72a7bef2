"""What `--ablate COMPONENT` removes from a copy of the plugin: a skill (its folder), a command or an agent (its
file), `hooks` (hooks/hooks.json and the manifest's `hooks` key), or an MCP server (its entry in .mcp.json or in
the manifest's `mcpServers`). Read from the plugin's folder as Claude Code lays it out; the copy itself is made
by engine/versions.py."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import UsageError
from .plugin_facts import skills_of
from .suite import MANIFEST, declared_servers, markdown_components, read_manifest

HOOKS = "hooks"
HOOKS_FILE = Path("hooks") / "hooks.json"
MCP_FILE = Path(".mcp.json")


@dataclass(frozen=True)
class Removal:
    """What leaving one component out takes from the plugin's folder (paths relative to it)."""

    component: str
    kind: str  # skill | command | agent | hooks | mcp server
    paths: tuple[Path, ...] = ()  # files or folders deleted
    manifest_keys: tuple[str, ...] = ()  # keys of the manifest dropped
    servers: tuple[str, ...] = field(default=())  # MCP servers dropped from .mcp.json and the manifest


class UnknownComponent(UsageError, LookupError):
    """--ablate names no component of the plugin (the message lists those it has)."""


def removals(root: Path) -> dict[str, list[Removal]]:
    """Every component `--ablate` can name, by name (a name two kinds share removes both)."""
    root = root.absolute()
    out: dict[str, list[Removal]] = {}

    def add(removal: Removal) -> None:
        out.setdefault(removal.component, []).append(removal)

    for skill in skills_of(root):
        folder = skill.path.parent
        path = skill.path if folder == root else folder  # a plugin that is one skill keeps its other files
        add(Removal(skill.name, "skill", (path.relative_to(root),)))
    for command in markdown_components(root, "commands"):
        add(Removal(command.stem, "command", (command.relative_to(root),)))
    for agent in markdown_components(root, "agents"):
        add(Removal(agent.stem, "agent", (agent.relative_to(root),)))
    manifest = read_manifest(root)
    if (root / HOOKS_FILE).is_file() or "hooks" in manifest:
        add(Removal(HOOKS, "hooks", (HOOKS_FILE,) if (root / HOOKS_FILE).is_file() else (), ("hooks",)))
    for server in declared_servers(root):
        add(Removal(server, "mcp server", servers=(server,)))
    return out


def removal_of(root: Path, component: str) -> list[Removal]:
    """What leaving `component` out removes; UnknownComponent (naming what there is) when the plugin has none."""
    found = removals(root)
    if component not in found:
        there = ", ".join(sorted(found)) or "none"
        raise UnknownComponent(
            f"--ablate {component}: the plugin at {root} has no skill, command, agent, hooks or MCP server of "
            f"that name (it has: {there})"
        )
    return found[component]


def server_files(root: Path) -> list[Path]:
    """The files (relative to the plugin) that may hold its MCP servers (suite.declared_servers reads them):
    .mcp.json, the file the manifest's `mcpServers` names, and the manifest itself when it lists them inline."""
    declared = read_manifest(root).get("mcpServers")
    files = [MCP_FILE, *([Path(os.path.normpath(declared))] if isinstance(declared, str) else [])]
    found = [rel for rel in files if (root / rel).is_file()]
    return [*found, MANIFEST] if isinstance(declared, dict) else found
