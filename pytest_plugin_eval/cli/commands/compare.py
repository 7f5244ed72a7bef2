"""`plugin-eval compare OLD NEW`: did my change help? Two sessions of a suite side by side.

    plugin-eval compare evals/results/<before>/ evals/results/<after>/ [--json [PATH]] [--md PATH] [--html PATH]
                        [--level 0.95] [--fail-on-worse]
                        [--pairwise [--scripted] [--judge-model M] [--max-cost-usd USD] [--claude PATH]]
    plugin-eval compare evals/results/<matrix>/ --model A --model B     two models of one model matrix

OLD and NEW are results folders (holding aggregate-result.json) or results JSON files. Prints the comparison
(analysis.compare) as a table; `--json` writes the compare document (alone on stdout without a PATH), `--md` its
Markdown (`--md "$GITHUB_STEP_SUMMARY"` puts it on a GitHub Actions job's page). Unlike a session, it does not
append to GITHUB_STEP_SUMMARY by itself: a job that ran the session with `--compare-to` already has the comparison
there, and a gating step would repeat it. `--html` writes the comparison as a page of its own. `--pairwise` also has
a judge compare the two sessions' final outputs run by run, blind and in both orders (cli.pairwise,
results.pairwise): its section follows in each output, and the document holds it under `pairwise`. Exit 0, or 1 on
a user error — and, with `--fail-on-worse`, when some case got a "worse" verdict (of WITH or of Δ, or with
--pairwise OLD's output preferred): a CI gate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...analysis.compare import LEVEL, CompareError, compare, read_document
from ...core.errors import UsageError
from ...report.comparison import write_comparison
from ...report.terminal import StreamTerminal
from ...results.matrix import MatrixError, of_two_models, read_matrix, same_matrix
from ...results.store import document_text, write_atomic


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
        "--html", default=None, metavar="PATH", help="also write the comparison as an HTML page to PATH"
    )
    parser.add_argument(
        "--level", default=str(LEVEL), metavar="L", help="confidence level of the intervals (default 0.95)"
    )
    parser.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="exit 1 when some case's WITH or Δ got a 'worse' verdict, or with --pairwise OLD's output was preferred "
        "(a CI gate)",
    )
    pairwise = parser.add_argument_group("pairwise judgment")
    pairwise.add_argument(
        "--pairwise",
        action="store_true",
        help="also have a judge model compare each case's final outputs, run i of OLD with run i of NEW (with arm), "
        "blind to which is which and in both orders: a win or loss needs both orders to agree, anything else is "
        "a tie; win/tie/loss per case and overall with a win-rate interval and the judge's reasons "
        "(OLD and NEW must be results folders)",
    )
    pairwise.add_argument(
        "--scripted",
        action="store_true",
        help="answer the pairwise judge from each case's scripted.yaml (pairwise:) offline, as a session's --scripted",
    )
    pairwise.add_argument(
        "--judge-model",
        default=None,
        metavar="M",
        help="the pairwise judge's model: haiku, sonnet, opus or a model id (default: as a session's judge)",
    )
    pairwise.add_argument(
        "--claude",
        default=None,
        metavar="PATH",
        help="the Claude Code binary the judge asks through when the API cannot be asked directly (a Claude Code "
        "login, a setup token, a cloud provider; default: the bundled one, else `claude` on PATH)",
    )
    pairwise.add_argument(
        "--max-cost-usd",
        default=None,
        metavar="USD",
        help="stop judging before a pair could take the judge's spending past USD; the pairs left are not judged",
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


def _money(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise _Refused(f"Error: --max-cost-usd must be a number, 0 or more, such as 0.50 (got '{text}')")
    return value


VALUED = ("--md", "--html", "--level", "--judge-model", "--max-cost-usd", "--claude")  # options that take the next word


def _json_alone(argv: list[str]) -> list[str]:
    """`--json OLD NEW`: when taking the word after --json as its path would leave fewer than the two sessions,
    --json is alone (print), so that it does not swallow OLD."""
    out = list(argv)
    words = [i for i, arg in enumerate(out) if not arg.startswith("-") and (i == 0 or out[i - 1] not in VALUED)]
    for i, arg in enumerate(out[:-1]):
        if arg == "--json" and i + 1 in words and len(words) <= 2:
            out[i] = "--json=-"
    return out


def compare_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(_json_alone(argv))
        level = _level(args.level)
        max_cost = _money(args.max_cost_usd)
        if not args.pairwise:
            given = [
                f
                for f, v in (
                    ("--scripted", args.scripted),
                    ("--judge-model", args.judge_model),
                    ("--max-cost-usd", args.max_cost_usd),
                    ("--claude", args.claude),
                )
                if v
            ]
            if given:
                raise _Refused(f"Error: {', '.join(given)} only apply to --pairwise; add --pairwise or drop them")
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
    said = None
    if pair is not None:  # two models of one session: the model is what differs, not a reason to distrust
        comparison, said = of_two_models(comparison, *pair)
    out = sys.stderr if args.json == "-" else sys.stdout
    paired = None
    if args.pairwise:
        from ..pairwise import PairwiseRefused, run_pairwise

        try:
            paired = run_pairwise(
                comparison,
                args.old,
                args.new,
                args.scripted,
                args.judge_model,
                max_cost,
                lambda s: print(s, file=out),
                args.claude,
            )
        except (PairwiseRefused, UsageError) as e:  # UsageError: no Claude Code to ask a judge through
            print(e if isinstance(e, PairwiseRefused) else f"Error: --pairwise: {e}", file=sys.stderr)
            return 1
    document = comparison.to_json() | ({"pairwise": paired.to_json()} if paired else {})
    labelled = judge_agreement({"OLD": (args.old, old), "NEW": (args.new, new)})
    if labelled:
        document["judgeAgreement"] = {side: result.to_json()["graders"] for side, result in labelled.items()}
    preferred_old = _old_preferred(paired)
    status = 1 if args.fail_on_worse and (comparison.worse or comparison.worse_queries or preferred_old) else 0
    try:
        if args.json not in (None, "-"):
            write_atomic(Path(args.json).absolute(), document_text(document))
        if args.md:
            from ...report.markdown import comparison_markdown

            text = comparison_markdown(comparison)
            if paired:
                from ...report.pairwise import markdown

                text += "\n" + markdown(paired)
            write_atomic(Path(args.md).absolute(), text)
        if args.html:
            from ...report.html import comparison_page

            write_atomic(Path(args.html).absolute(), comparison_page(comparison, paired))
    except OSError as e:
        print(f"Error: cannot write {e.filename or ''}: {e.strerror or e} — name a writable path", file=sys.stderr)
        return 1
    if args.json == "-":
        sys.stdout.write(document_text(document))  # stdout holds the document alone
    if said is not None:
        print(said, file=out)
    terminal = StreamTerminal(out)
    write_comparison(terminal, comparison, *([f"compared: {pair[0]} → {pair[1]}"] if pair is not None else []))
    if paired:
        from ...report.pairwise import write_pairwise

        write_pairwise(terminal, paired)
    for side, result in labelled.items():
        from ...report.calibration import agreement_line

        for grader in result.graders:
            if grader.n:
                print(
                    f"judge vs your labels ({side}) {grader.case} · {grader.grader}: {agreement_line(grader)}", file=out
                )
    for path in (args.json if args.json != "-" else None, args.md, args.html):
        if path:
            print(f"Wrote {path}", file=out)
    if status:
        names = ", ".join([c.name for c in comparison.worse] + comparison.worse_queries + preferred_old)
        print(f"--fail-on-worse: worse in {names}", file=out)
    return status


def judge_agreement(sides: dict) -> dict:
    """Side → the calibration of its results folder by the labels.json in it (results.calibration), for the sides
    that have labels."""
    from ...results.calibration import folder_calibration

    out = {}
    for side, (source, document) in sides.items():
        folder = Path(source) if Path(source).is_dir() else Path(source).parent
        found = folder_calibration(folder, document)
        if found is not None and any(g.n for g in found.graders):
            out[side] = found
    return out


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


def _old_preferred(paired) -> list[str]:
    """The cases (and "pairwise overall") where the judge preferred OLD's outputs beyond the interval."""
    if paired is None:
        return []
    from ...results.comparison import WORSE

    names = [f"{c.name} (pairwise)" for c in paired.cases if c.tally.verdict(paired.level) == WORSE]
    return names + (["pairwise overall"] if paired.tally.verdict(paired.level) == WORSE else [])
