"""`plugin-eval import [TARGET]`: the command line of the evals.json importer (authoring/importer.py)."""

from __future__ import annotations

import argparse

from ...authoring.importer import import_evals
from ..plugin_args import add_plugin_arguments, plugin_folder


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval import",
        description="Write skill-creator's evals/evals.json of each skill of the plugin as case folders "
        "(prompt.md, graders/*.md, context files); existing folders are left as they are.",
    )
    add_plugin_arguments(parser, holding="the case folders go in")
    return parser


def import_command(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    root = plugin_folder(args.target, "import")
    if root is None:
        return 1
    lines, status = import_evals(root, args.eval_dir)
    for line in lines:
        print(line)
    return status
