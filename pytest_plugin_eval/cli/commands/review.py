"""`plugin-eval review RESULTS`: label the grader verdicts of a results folder in a local page.

    plugin-eval review evals/results/<timestamp>/ [--port N] [--no-browser]
    plugin-eval review evals/results/<timestamp>/ --export DIR

The page and its server are publish.review_server's; this parses the command line, serves or exports, and prints.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...analysis.regrade import results_folder_problem
from ...core.errors import UsageError
from ...core.problems import SpecError
from ...publish.review_server import HOST, Review, export, serve
from ...results.labels import read_labels
from ...results.store import RESULTS_FILE
from ..parser import CommandParser, Refused


def command_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="plugin-eval review",
        description="Read the runs of a results folder one at a time and label each grader verdict pass or fail, "
        "with a note and failure codes; the labels go to the folder's labels.json (read by plugin-eval calibrate).",
    )
    parser.add_argument("folder", metavar="RESULTS", help=f"a results folder (holding {RESULTS_FILE})")
    parser.add_argument("--port", type=int, default=0, metavar="N", help="serve on this port (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="print the page's address; do not open a browser")
    parser.add_argument(
        "--export",
        metavar="DIR",
        default=None,
        help="write a static copy of the page to DIR/index.html (no server, no network; labels are downloaded "
        "from it as labels.json)",
    )
    return parser


def review_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(argv)
        folder = Path(args.folder).absolute()
        problem = results_folder_problem(folder)
        if problem is not None:
            raise Refused(f"Error: {args.folder}: {problem}")
        review = Review(folder)
        read_labels(review.labels_file)  # a bad labels.json is said now, not in the page
    except (UsageError, SpecError) as e:
        print(e if isinstance(e, UsageError) else f"Error: {e}", file=sys.stderr)
        return 1
    if args.export:
        target = export(review, Path(args.export))
        print(
            f"Wrote {target} — it opens with no server or network. Labels given there stay in that browser; its "
            f"Download labels.json button saves them: put the file in {args.folder} as labels.json"
        )
        return 0
    try:
        serve(review, args.port, lambda line: print(line, flush=True), open_browser=not args.no_browser)
    except OSError as e:
        print(f"Error: cannot serve on {HOST}:{args.port}: {e.strerror or e} — choose another --port", file=sys.stderr)
        return 1
    count = len(read_labels(review.labels_file).labels)
    print(
        f"\nStopped. {count} label(s) in {review.labels_file}; plugin-eval calibrate {args.folder} measures the judge"
    )
    return 0
