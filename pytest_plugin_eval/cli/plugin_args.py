"""The arguments that name the plugin under test and its eval dir, as every `plugin-eval` command that reads a
suite takes them (check, import, init, history), and the refusal of a target that is no folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .parser import checked_as_the_session

PLUGIN_TARGET_HELP = "the plugin folder (default .)"


def add_eval_dir(parser: argparse.ArgumentParser, holding: str = "holding the cases") -> None:
    parser.add_argument(
        "--eval-dir",
        default=None,
        metavar="DIR",
        type=checked_as_the_session("--eval-dir"),
        help=f"the folder below the plugin {holding} (default: the manifest's experimental.evals, else evals)",
    )


def add_plugin_arguments(parser: argparse.ArgumentParser, holding: str = "holding the cases") -> None:
    """TARGET (the plugin folder, default .) and --eval-dir DIR."""
    parser.add_argument("target", nargs="?", default=".", help=PLUGIN_TARGET_HELP)
    add_eval_dir(parser, holding)


def plugin_folder(target: str, command: str) -> Path | None:
    """`target` as a folder; None, said on stderr, when it is none."""
    root = Path(target)
    if not root.is_dir():
        print(f"✗ {target}: not a folder ({command} takes a plugin folder)", file=sys.stderr)
        return None
    return root


def not_a_marketplace(root: Path, command: str) -> bool:
    """False, said on stderr with the plugins it lists, when `root` is a marketplace root with nothing of its own
    for Claude Code to load (evaluating it would measure no plugin). A folder whose own marketplace entries each
    install part of it is evaluated, with a note on how to evaluate an entry as it is installed."""
    from ..load.marketplace import marketplace_refusal, subset_entries_note
    from ..suite_check.floor import has_components

    refusal = marketplace_refusal(root, command, has_components(root))
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return False
    note = subset_entries_note(root, command)
    if note is not None:
        print(note, file=sys.stderr)
    return True
