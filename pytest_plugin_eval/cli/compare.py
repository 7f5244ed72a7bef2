"""`plugin-eval compare OLD NEW`: did my change help? Two sessions of a suite side by side.

    plugin-eval compare evals/results/<before>/ evals/results/<after>/ [--json [PATH]] [--md PATH]
                        [--level 0.95] [--fail-on-worse]
    plugin-eval compare evals/results/<matrix>/ --model A --model B     two models of one model matrix

OLD and NEW are results folders (holding aggregate-result.json) or results JSON files. Prints the comparison
(results.compare) as a table; `--json` writes the compare document (alone on stdout without a PATH), `--md` its
Markdown (`--md "$GITHUB_STEP_SUMMARY"` puts it on a GitHub Actions job's page). Unlike a session, it does not
append to GITHUB_STEP_SUMMARY by itself: a job that ran the session with `--compare-to` already has the comparison
there, and a gating step would repeat it. Exit 0, or 1 on a user error — and, with `--fail-on-worse`, when some
case got a "worse" verdict (of WITH or of Δ): a CI gate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.errors import UsageError
from ..report.comparison import write_comparison
from ..report.terminal import StreamTerminal
from ..results.compare import LEVEL, CompareError, compare, read_document
from ..results.matrix import MatrixError, of_two_models, read_matrix, same_matrix
from ..results.store import document_text, write_atomic


class _Refused(UsageError):
    """A command-line problem argparse found: printed, exit 1 (every user error of plugin-eval is exit 1)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise _Refused(f"plugin-eval compare: error: {message} (see plugin-eval compare --help)")


def command_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="plugin-eval compare",
        description="Compare two sessions of a suite: per case the change in WITH and in Δ, each with a confidence "
        "interval and a verdict (better, worse, no detectable change); cases added and removed; graders whose pass "
        "rate moved; cost and duration; and warnings when the sessions were not measured alike.",
    )
    parser.add_argument("old", metavar="OLD", help="the earlier session: a results folder or a results JSON file")
    parser.add_argument(
        "new",
        metavar="NEW",
        nargs="?",
        help="the later session: a results folder or a results JSON file (not with --model)",
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="twice, with OLD a model matrix's results folder (--model A,B): compare model A's results with B's",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="also write the compare document to PATH (.json); without PATH, print it alone on stdout",
    )
    parser.add_argument("--md", default=None, metavar="PATH", help="also write the comparison in Markdown to PATH")
    parser.add_argument(
        "--level", default=str(LEVEL), metavar="L", help="confidence level of the intervals (default 0.95)"
    )
    parser.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="exit 1 when some case's WITH or Δ got a 'worse' verdict (a CI gate)",
    )
    return parser


def _level(text: str) -> float:
    try:
        level = float(text)
    except ValueError:
        level = -1.0
    if not 0.5 <= level < 1:
        raise _Refused(f"Error: --level must be a number from 0.5 to below 1, such as 0.95 (got '{text}')")
    return level


def _json_alone(argv: list[str]) -> list[str]:
    """`--json OLD NEW`: when taking the word after --json as its path would leave fewer than the two sessions,
    --json is alone (print), so that it does not swallow OLD."""
    out = list(argv)
    words = [
        i for i, arg in enumerate(out) if not arg.startswith("-") and (i == 0 or out[i - 1] not in ("--md", "--level"))
    ]
    for i, arg in enumerate(out[:-1]):
        if arg == "--json" and i + 1 in words and len(words) <= 2:
            out[i] = "--json=-"
    return out


def compare_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(_json_alone(argv))
        level = _level(args.level)
        if args.json not in (None, "-") and not args.json.endswith(".json"):
            raise _Refused(f"Error: --json {args.json}: the path must end in .json — or give --json alone to print")
        models = matrix_sources(args)
        if models is not None:
            args.old, args.new = models
        elif args.new is None:
            raise _Refused(
                "plugin-eval compare: error: the following arguments are required: NEW (or, for two models of a "
                "model matrix, its results folder and --model A --model B)"
            )
        old = read_document(args.old)
        new = read_document(args.new)
    except _Refused as e:
        print(e, file=sys.stderr)
        return 1
    except (CompareError, MatrixError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return int(e.code or 0)
    comparison = compare(old, new, old_source=args.old, new_source=args.new, level=level)
    pair = same_matrix(Path(args.old), Path(args.new))
    if pair is not None:  # two models of one session: the model is what differs, not a reason to distrust
        comparison, said = of_two_models(comparison, *pair)
    status = 1 if args.fail_on_worse and (comparison.worse or comparison.worse_queries) else 0
    try:
        if args.json not in (None, "-"):
            write_atomic(Path(args.json).absolute(), document_text(comparison.to_json()))
        if args.md:
            from ..report.markdown import comparison_markdown

            write_atomic(Path(args.md).absolute(), comparison_markdown(comparison))
    except OSError as e:
        print(f"Error: cannot write {e.filename or ''}: {e.strerror or e} — name a writable path", file=sys.stderr)
        return 1
    if args.json == "-":
        sys.stdout.write(document_text(comparison.to_json()))  # stdout holds the document alone
        out = sys.stderr
    else:
        out = sys.stdout
    if pair is not None:
        print(said, file=out)
    write_comparison(StreamTerminal(out), comparison)
    for label, path in (("Wrote", args.json if args.json != "-" else None), ("Wrote", args.md)):
        if path:
            print(f"{label} {path}", file=out)
    if status:
        names = ", ".join([c.name for c in comparison.worse] + comparison.worse_queries)
        print(f"--fail-on-worse: worse in {names}", file=out)
    return status


def matrix_sources(args: argparse.Namespace) -> tuple[str, str] | None:
    """`DIR --model A --model B`: the two models' documents in the matrix DIR (None without --model)."""
    if not args.model:
        return None
    if len(args.model) != 2 or args.new is not None:
        raise _Refused(
            "plugin-eval compare: error: --model compares two models of one matrix: give the matrix's results "
            "folder and --model twice (plugin-eval compare DIR --model A --model B)"
        )
    matrix, folder = read_matrix(Path(args.old))
    a, b = (matrix.entry(model) for model in args.model)
    return str(folder / a.document), str(folder / b.document)
