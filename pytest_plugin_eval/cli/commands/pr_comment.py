"""`plugin-eval pr-comment RESULTS [--compare-to OLD]`: keep one comment per suite on the pull request up to date.

    plugin-eval pr-comment eval-results/ --compare-to baseline/ [--key NAME] [--baseline-name main] [--pr N] [--dry-run]

Parses, calls publish.pr_comment, prints where the comment is. Exit 0 when the comment was written (or printed,
with --dry-run), 1 when a document cannot be read, the environment names no pull request or GitHub refuses.
A separate step from the session: whatever it exits with, the session's own status is the session's.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ...core.errors import UsageError
from ..parser import CommandParser, Refused


def command_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="plugin-eval pr-comment",
        description="Post the session's results on the pull request as one comment per suite, updated in place on "
        "every push: the verdict, the cases that newly fail, the cases and trigger queries that moved against the "
        "baseline (then → now, with intervals), the cost and a link to the run. The pull request and the token "
        "come from GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_TOKEN.",
    )
    parser.add_argument(
        "results", metavar="RESULTS", help="the session's results folder (a results JSON file, a model matrix's folder)"
    )
    # --against was this option's first name; it keeps working, though the session's --against REF is another
    # version of the plugin to run, not a results folder
    parser.add_argument(
        "--compare-to",
        "--against",
        dest="compare_to",
        metavar="OLD",
        default=None,
        help="the baseline's results folder (the default branch's latest session), to compare with as `compare` "
        "does (as the session's --compare-to; --against OLD, its former name, still works — it is not the "
        "session's --against REF, which runs another version of the plugin)",
    )
    parser.add_argument(
        "--key",
        default=None,
        metavar="NAME",
        help="which comment of the pull request is this suite's (default: the plugins' names); give each tier or "
        "job that should keep a comment of its own a key of its own",
    )
    parser.add_argument(
        "--baseline-name", default="the baseline", metavar="NAME", help="what OLD is, in the comment's words (main)"
    )
    parser.add_argument("--pr", type=int, default=None, metavar="N", help="the pull request (default: the event's)")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the comment's Markdown instead of posting it (needs no token)"
    )
    return parser


def pr_comment_command(argv: list[str]) -> int:
    from ...publish.pr_comment import pr_comment

    try:
        args = command_parser().parse_args(argv)
        compare_to = Path(args.compare_to) if args.compare_to else None
        comment = pr_comment(
            Path(args.results), compare_to, os.environ, args.key, args.pr, args.baseline_name, args.dry_run
        )
    except UsageError as e:
        print(f"✗ pr-comment: {e}" if not isinstance(e, Refused) else e, file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return int(e.code or 0)
    if comment.posted is None:
        sys.stdout.write(comment.text)
    else:
        print(f"{comment.posted.action.capitalize()} the comment on pull request #{comment.pr}: {comment.posted.url}")
    return 0
