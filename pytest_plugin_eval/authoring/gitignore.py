"""Keeping a results folder out of git: one line in the plugin's .gitignore."""

from __future__ import annotations

from pathlib import Path

GITIGNORE = ".gitignore"


def ignore(gitignore: Path, entry: str) -> bool:
    """Add `entry` to a .gitignore (created if absent) unless a line already ignores it. True if added."""
    try:
        text = gitignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""

    def bare(line: str) -> str:
        return line.strip().removeprefix("**/").strip("/")

    if any(bare(line) == bare(entry) for line in text.splitlines()):
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    gitignore.write_text(f"{text}{entry}\n", encoding="utf-8")
    return True
