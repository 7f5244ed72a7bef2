"""Running a suite runs the plugin's code (skills, hooks, MCP servers, scaffold scripts) as you: the plugin
folder must be trusted first — by `--trust-plugin` (CI), or by answering once at a terminal. The answer is
remembered per folder (in ~/.config/pytest-plugin-eval/trusted.json), so later sessions, interactive or not,
need neither."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..core.errors import UsageError
from ..results.store import write_json


def trust_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pytest-plugin-eval" / "trusted.json"


def trusted_folders() -> set[str]:
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(f) for f in data.get("trusted", [])} if isinstance(data, dict) else set()


def remember(folders: list[Path]) -> None:
    known = trusted_folders() | {str(f.resolve()) for f in folders}
    write_json(trust_file(), {"trusted": sorted(known)})


class TrustRefused(UsageError):
    """The plugin is not trusted: nothing of it may run. The message says why and what to do."""


def confirm_trust(folders: list[Path]) -> None:
    """Proceed if every folder is trusted already; ask at an interactive terminal; otherwise raise TrustRefused
    (the session exits 1) before anything of the suite is loaded or run."""
    known = trusted_folders()
    pending = [f for f in dict.fromkeys(folders) if str(f.resolve()) not in known]
    if not pending:
        return
    names = ", ".join(str(f) for f in pending)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise TrustRefused(
            f"Error: {names} is not a trusted plugin directory, and this session cannot stop to ask "
            f"(no interactive terminal). Evaluating a plugin runs its code as you — its conftest.py files "
            f"included. Pass --trust-plugin to run it, or run once at a terminal and answer yes."
        )
    sys.stderr.write(
        f"\nEvaluating {names} runs the plugin's skills, hooks and servers on this machine, as you.\n"
        f"Only evaluate plugins you trust. The answer is remembered for this folder.\n"
        f"Trust this plugin directory? [y/N] "
    )
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise TrustRefused(f"Not trusted - nothing from {names} was loaded or run.")
    remember(pending)
