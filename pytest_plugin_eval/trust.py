"""Running a suite runs the plugin's code (skills, hooks, MCP servers, scaffold scripts) as you: the plugin
folder must be trusted first — by `--trust-plugin` (CI), or by answering once at a terminal."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest


def confirm_trust(folders: list[Path]) -> None:
    """Ask at an interactive terminal; without one, stop the session (exit 1) before anything runs."""
    names = ", ".join(str(f) for f in dict.fromkeys(folders))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        pytest.exit(f"Error: {names} is not a trusted plugin directory, and this session cannot stop to ask "
                    f"(no interactive terminal). Evaluating a plugin runs its code as you. "
                    f"Pass --trust-plugin to run it.", returncode=1)
    sys.stderr.write(f"\nEvaluating {names} runs the plugin's skills, hooks and servers on this machine, as you.\n"
                     f"Only evaluate plugins you trust.\nTrust this plugin directory? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        pytest.exit(f"Not trusted - nothing from {names} was loaded or run.", returncode=1)
