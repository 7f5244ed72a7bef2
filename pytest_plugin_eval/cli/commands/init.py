"""`plugin-eval init`: the interview and the draft (authoring/interview.py), `init --triggers` (authoring/
init_triggers.py) and `init --bare NAME`: a new case that loads and runs as written (authoring/bare_case.py); the
results folder is added to the plugin's .gitignore."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...authoring.bare_case import init_bare
from ...authoring.gitignore import GITIGNORE
from ...authoring.init_triggers import write_triggers
from ...authoring.interview import add_arguments, author
from ...core.errors import UsageError
from ...core.paths import display_path
from ...load.case_template import PLACEHOLDER_SKILL
from ...load.suite import plugin_eval_dir
from ..plugin_args import add_eval_dir, not_a_marketplace


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval init",
        description="Write eval cases: interview the author at a terminal (init [TARGET]), draft a suite without "
        "asking (init --draft [TARGET] [--from FILE...]), or write one blank case (init --bare NAME).",
    )
    parser.add_argument(
        "name", nargs="?", metavar="NAME|TARGET", help="--bare: the case's name; else the plugin folder"
    )
    parser.add_argument("--bare", action="store_true", help="write one case from the template without asking anything")
    parser.add_argument(  # the reference tool's spelling of the default
        "-i", "--interactive", action="store_true", help="the interview (the default; needs an interactive terminal)"
    )
    parser.add_argument(
        "--triggers",
        action="store_true",
        help="write the eval dir's triggers.yaml: a trigger set per skill and command, queries to fill in",
    )
    add_eval_dir(parser)
    add_arguments(parser)
    return parser


def init(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    if args.interactive and (args.bare or args.draft or args.triggers):
        print(
            "Error: -i is the interview; --bare, --draft and --triggers write without one — pick one", file=sys.stderr
        )
        return 1
    if args.triggers:
        return init_triggers(Path(args.name or "."), args.eval_dir)
    if not args.bare:
        return author(args, args.name)
    if not args.name:
        print("A case name is required: plugin-eval init --bare NAME", file=sys.stderr)
        return 1
    root = Path.cwd()
    if not not_a_marketplace(root, f"init --bare {args.name}"):
        return 1
    try:
        made = init_bare(root, args.name, args.eval_dir)
    except UsageError as e:
        print(e, file=sys.stderr)
        return 1
    print("Created " + ", ".join(str(p.relative_to(root)) for p in made.written))
    if made.skill is None:
        print(
            f"The plugin has no skill or command the model may pick: edit the name ({PLACEHOLDER_SKILL}) in the case's files"
        )
    if made.ignored:
        print(f"Added {made.results} to {GITIGNORE}")
    if made.ignore_error:
        print(f"Could not add {made.results} to {GITIGNORE} ({made.ignore_error}): add it yourself", file=sys.stderr)
    return 0


def init_triggers(root: Path, eval_dir: str | None) -> int:
    """`init --triggers [TARGET]`: the plugin's trigger sets, to fill in."""
    if not not_a_marketplace(root, "init --triggers"):
        return 1
    eval_root = plugin_eval_dir(root, eval_dir)
    try:
        path = write_triggers(root, eval_root)
    except FileExistsError:
        print(f"Error: {display_path(eval_root / 'triggers.yaml')} already exists — edit it", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    print(f"Created {display_path(path)}: replace its TODO queries, then `plugin-eval triggers --scripted` checks it")
    return 0
