"""What a plugin ships for the agent to read: its skills' folders (SKILL.md and the references beside it), its
commands and agents, as text. A run that loads a skill, or greps the plugin, puts these in its trace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..load.skills import Component, components_of
from ..load.suite import component_paths, plugin_at

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
    components = tuple(components_of(plugin_root))
    texts: list[ShippedText] = []
    seen: set[Path] = set()
    for base in sources(plugin_root, components):
        for path in sorted(base.rglob("*")) if base.is_dir() else [base]:
            if len(texts) >= MAX_FILES:
                break
            if (
                path in seen
                or not path.is_file()
                or path.suffix.lower() not in TEXT_SUFFIXES
                or "evals" in path.relative_to(base).parts
                or "results" in path.relative_to(base).parts
            ):
                continue
            seen.add(path)
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                texts.append(ShippedText(path, path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    return Shipped(plugin_at(plugin_root).name, components, tuple(texts))


def sources(plugin_root: Path, components: tuple[Component, ...]) -> list[Path]:
    """Where the agent can read the plugin's text: the default folders, the folders and files its manifest
    declares for skills, commands and agents, and each skill's own folder (a root SKILL.md's included)."""
    out = [plugin_root / folder for folder in FOLDERS]
    for written in (p for paths in component_paths(plugin_root).values() for p in paths):
        out.append((plugin_root / written).resolve())
    for component in components:
        out.append(
            component.path.parent if component.kind == "skill" and component.path.name == "SKILL.md" else component.path
        )
    bases: list[Path] = []
    for path in out:
        if path.exists() and path not in bases and not any(path.is_relative_to(b) for b in bases if b.is_dir()):
            bases.append(path)
    return bases


def body_of(text: str) -> str:
    """A Markdown file without its YAML frontmatter."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            return text[end + 4 :]
    return text
