"""A plugin's workflows (`workflows/*.js`): Claude Code 2.1 offers each as a skill of the plugin, named by the
`name` of the script's `meta` object (`plugin:name`), described by its `description` and `whenToUse`. A script
whose meta has no name is skipped, as Claude Code skips it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

WORKFLOWS_DIR = "workflows"
_META = re.compile(r"\bmeta\s*=\s*\{(?P<body>.*?)\}\s*;?", re.DOTALL)
_STRING_KEY = r"\b{key}\s*:\s*(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q)).)*)(?P=q)"


@dataclass(frozen=True)
class Workflow:
    name: str
    description: str
    when_to_use: str | None
    path: Path


def workflows_of(plugin_root: Path) -> list[Workflow]:
    """The workflows Claude Code would load from the plugin's `workflows/` folder, by file name."""
    folder = Path(plugin_root) / WORKFLOWS_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.js")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        meta = _META.search(text)
        name = _value(meta.group("body"), "name") if meta else None
        if meta is None or not name:
            continue
        found.append(
            Workflow(
                name, _value(meta.group("body"), "description") or "", _value(meta.group("body"), "whenToUse"), path
            )
        )
    return found


def _value(body: str, key: str) -> str | None:
    match = re.search(_STRING_KEY.format(key=key), body)
    return match.group("value").strip() if match else None
