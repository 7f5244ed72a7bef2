"""What a plugin ships for the agent to read: its skills' folders (SKILL.md and the references beside it), its
commands and agents, as text. A run that loads a skill, or greps the plugin, puts these in its trace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..load.skills import Component, components_of
from ..load.suite import plugin_at

FOLDERS = ("skills", "commands", "agents")
TEXT_SUFFIXES = (".md", ".txt", ".markdown", ".rst", ".yaml", ".yml", ".json")
MAX_BYTES = 200_000  # a file larger than this is data, not instructions
MAX_FILES = 400


@dataclass(frozen=True)
class ShippedText:
    path: Path
    text: str


@dataclass(frozen=True)
class Shipped:
    """A plugin's components (names, qualified names) and the text files it ships to the agent."""

    plugin_name: str
    components: tuple[Component, ...]
    texts: tuple[ShippedText, ...]


def shipped(plugin_root: Path) -> Shipped:
    texts: list[ShippedText] = []
    for folder in FOLDERS:
        base = plugin_root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if len(texts) >= MAX_FILES:
                break
            if (
                not path.is_file()
                or path.suffix.lower() not in TEXT_SUFFIXES
                or "evals" in path.relative_to(base).parts
            ):
                continue
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                texts.append(ShippedText(path, path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    return Shipped(plugin_at(plugin_root).name, tuple(components_of(plugin_root)), tuple(texts))


def body_of(text: str) -> str:
    """A Markdown file without its YAML frontmatter."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            return text[end + 4 :]
    return text
