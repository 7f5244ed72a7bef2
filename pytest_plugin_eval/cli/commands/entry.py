"""`plugin-eval entry NAME [MARKETPLACE] --into DIR`: a marketplace entry written out as the plugin folder Claude
Code installs from it (authoring/entry_plugin.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...authoring.entry_plugin import EntryError, write_entry, written_lines


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval entry",
        description="Write a strict: false entry of a marketplace.json out as the plugin folder Claude Code installs "
        "from it (only the components the entry names, a plugin.json from its fields), to evaluate it as it is "
        "installed. Run again to refresh it; its evals/ is left alone.",
    )
    parser.add_argument("name", help="the entry's name in .claude-plugin/marketplace.json")
    parser.add_argument("marketplace", nargs="?", default=".", help="the marketplace's folder (default .)")
    parser.add_argument("--into", required=True, metavar="DIR", help="the plugin folder to write (outside the source)")
    return parser


def entry_command(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    marketplace = Path(args.marketplace)
    try:
        written = write_entry(marketplace, args.name, Path(args.into))
    except EntryError as e:
        print(str(e), file=sys.stderr)
        return 1
    for line in written_lines(written, marketplace):
        print(line)
    return 0
