"""Whether Claude Code loaded the plugin under test, from the `init` event of a with-plugin run's trace: a plugin
it refuses (an invalid manifest) is left out of its `plugins` and named in `plugin_errors`, and the run then goes
on without it — a with-plugin run that measured nothing of the plugin, which must not be scored as one."""

from __future__ import annotations

import os
from pathlib import Path

from ..load.suite import plugin_at
from .agent import RunError
from .transcript import Transcript


def plugin_load_fault(plugin_dirs: tuple[Path, ...] | list[Path], transcript: Transcript) -> RunError | None:
    """A `start` error naming Claude Code's own message, when a plugin of the run is missing from the init event's
    plugins or has errors there; None when the run has no init event (the child's own failure says why)."""
    init = transcript.init
    if not init or not plugin_dirs:
        return None
    loaded = {_real(p.get("path")): p.get("name") for p in init.get("plugins") or [] if isinstance(p, dict)}
    errors = [e for e in init.get("plugin_errors") or [] if isinstance(e, dict)]
    said = []
    for folder in plugin_dirs:
        path = _real(str(folder))
        name = loaded.get(path)
        mine = [
            str(e.get("message") or e.get("type") or "error")
            for e in errors
            if _real(e.get("path")) == path or (name is not None and e.get("plugin") == f"{name}@inline")
        ]
        if name is None:
            why = "; ".join(mine) or "it is not among the plugins Claude Code lists"
            said.append(f"Claude Code did not load the plugin {plugin_at(folder).name}: {why}")
        elif mine:
            said.append(f"Claude Code loaded the plugin {name} with errors: {'; '.join(mine)}")
    if not said:
        return None
    fix = " — fix .claude-plugin/plugin.json (plugin-eval check names the entry), then run again"
    return RunError("start", "; ".join(said) + fix)


def _real(path: object) -> str | None:
    return os.path.realpath(path) if isinstance(path, str) and path else None
