"""`plugin-eval history [EVAL_DIR | PLUGIN_DIR]`: the past sessions of a suite, newest first.

    plugin-eval history                    # the plugin in .: its evals/results/
    plugin-eval history path/to/evals --limit 5
    plugin-eval history --json             # {"sessions": [...], "skipped": [...]}

One line per results folder under `<eval dir>/results/`: when it ran, the plugin's version and git commit (`*`:
uncommitted changes), the model, the overall score, the mean Δ, the cost, runs per arm, whether it is partial, and
a word for a regraded, merged or shard session. Folders that hold no readable results document are listed as
skipped, with the reason. Exit 0, or 1 when there is no results folder to read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...core.paths import display_path
from ...load.suite import eval_dir_name, is_plugin_dir
from ...report.history import history_lines
from ...results.history import HISTORY_LIMIT, history_json, scan
from ...results.store import RESULTS_DIR
from ...results.suite_results import results_dirs
from ..plugin_args import add_eval_dir


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval history", description="List the past sessions of an eval suite, newest first."
    )
    parser.add_argument("target", nargs="?", default=".", help="a plugin folder or an eval dir (default .)")
    add_eval_dir(parser, holding="holding the cases and their results/")
    parser.add_argument("--json", action="store_true", help="print the list as a JSON document")
    parser.add_argument(
        "--limit",
        type=int,
        default=HISTORY_LIMIT,
        metavar="N",
        help=f"the N most recent sessions (default {HISTORY_LIMIT}; 0: all)",
    )
    return parser


def history_command(argv: list[str]) -> int:
    parser = command_parser()
    args = parser.parse_args(argv)
    if args.limit < 0:
        parser.error("--limit must be 0 (all) or more")
    target = Path(args.target)
    folders = results_dirs(target, args.eval_dir)
    if not folders:
        name = eval_dir_name(target if is_plugin_dir(target) else None, args.eval_dir)
        print(
            f"Error: no results folder under {display_path(target.absolute())} (looked for {name}/{RESULTS_DIR}/ "
            f"and {RESULTS_DIR}/): name a plugin folder or an eval dir that has run a session",
            file=sys.stderr,
        )
        return 1
    found = scan(folders, limit=args.limit or None, matrices=True)
    if args.json:
        print(json.dumps(history_json(found), indent=1, ensure_ascii=False))
    else:
        print("\n".join(history_lines(found)))
    return 0
