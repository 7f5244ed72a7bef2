"""What changed in the plugin under test between two sessions, read from what each recorded (each skill's
description, a hash of the plugin's files): "the description of skill addness:review changed". The git commit
alone cannot tell: two sessions of one commit with uncommitted edits both read `abc1234*`."""

from __future__ import annotations

from collections.abc import Sequence

from .model import PluginInfo


def plugin_changes(old: Sequence[PluginInfo], new: Sequence[PluginInfo]) -> list[str]:
    """One sentence per change, plugin by plugin (matched by name): skills whose description changed, skills
    added or removed, then "plugin content changed" when its files differ at all. None when either session
    did not record what it evaluated (documents written before these fields were)."""
    out = []
    olds = {p.name: p for p in old}
    for plugin in new:
        before = olds.get(plugin.name)
        if before is None:
            continue
        a, b = before.skill_descriptions, plugin.skill_descriptions
        if a is not None and b is not None:
            out += [f"{DESCRIPTION_CHANGED} {name} changed" for name in b if name in a and a[name] != b[name]]
            out += [f"skill {name} added" for name in b if name not in a]
            out += [f"skill {name} removed" for name in a if name not in b]
        if before.content_hash and plugin.content_hash and before.content_hash != plugin.content_hash:
            out.append("plugin content changed" + (f" ({plugin.name})" if len(new) > 1 else ""))
    return out


DESCRIPTION_CHANGED = "the description of skill"


def description_changed(changes: Sequence[str]) -> bool:
    return any(text.startswith(DESCRIPTION_CHANGED) for text in changes)
