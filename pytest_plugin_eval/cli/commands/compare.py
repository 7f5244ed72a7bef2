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
a judge compare the two sessions' final outputs run by run, blind and in both orders (analysis.pairwise,
results.pairwise): its section follows in each output, and the document holds it under `pairwise`. Exit 0, or 1 on
a user error — and, with `--fail-on-worse`, when some case got a "worse" verdict (of WITH or of Δ, or with
--pairwise OLD's output preferred): a CI gate. The workflow is analysis.compare_sessions; the parser
compare_parser.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ...analysis.compare import CompareError, read_document
from ...analysis.compare_sessions import ComparedSessions, PairwiseAsk, compare_sessions, matrix_sources
from ...core.errors import UsageError
from ...engine.option_values import OptionError, parse_max_cost
from ...report.calibration import labelled_lines
from ...report.comparison import write_comparison
from ...report.terminal import StreamTerminal
from ...results.matrix import MatrixError
from ...results.store import document_text, write_atomic
from ..parser import Refused
from .compare_parser import command_parser, json_alone, level_of


def compare_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(json_alone(argv))
        level = level_of(args.level)
        max_cost = parse_max_cost(args.max_cost_usd, None)
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
                raise Refused(f"Error: {', '.join(given)} only apply to --pairwise; add --pairwise or drop them")
        if args.json not in (None, "-") and not args.json.endswith(".json"):
            raise Refused(f"Error: --json {args.json}: the path must end in .json — or give --json alone to print")
        if args.model:
            if len(args.model) != 2 or args.new is not None:
                raise Refused(
                    "plugin-eval compare: error: --model compares two models of one matrix: give the matrix's results "
                    "folder and --model twice (plugin-eval compare DIR --model A --model B)"
                )
            args.old, args.new = matrix_sources(args.old, args.model)
        elif args.new is None:
            raise Refused(
                "plugin-eval compare: error: the following arguments are required: NEW (or, for two models of a "
                "model matrix, its results folder and --model A --model B)"
            )
        old = read_document(args.old)
        new = read_document(args.new)
    except (Refused, OptionError) as e:
        print(e, file=sys.stderr)
        return 1
    except (CompareError, MatrixError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return int(e.code or 0)
    out = sys.stderr if args.json == "-" else sys.stdout
    pairwise = PairwiseAsk(args.scripted, args.judge_model, max_cost, args.claude) if args.pairwise else None
    try:
        found = compare_sessions(args.old, args.new, old, new, level, pairwise, lambda s: print(s, file=out))
    except UsageError as e:  # PairwiseRefused, or no Claude Code to ask a judge through
        from ...analysis.pairwise import PairwiseRefused

        print(e if isinstance(e, PairwiseRefused) else f"Error: --pairwise: {e}", file=sys.stderr)
        return 1
    document = found.document()
    worse = found.worse() if args.fail_on_worse else []
    try:
        _write_files(found, document, args.json, args.md, args.html)
    except OSError as e:
        print(f"Error: cannot write {e.filename or ''}: {e.strerror or e} — name a writable path", file=sys.stderr)
        return 1
    if args.json == "-":
        sys.stdout.write(document_text(document))  # stdout holds the document alone
    _print(found, out)
    for path in filter(None, (args.json if args.json != "-" else None, args.md, args.html)):
        print(f"Wrote {path}", file=out)
    if worse:
        print(f"--fail-on-worse: worse in {', '.join(worse)}", file=out)
    return 1 if worse else 0


def _write_files(found: ComparedSessions, document: dict, json_path: str | None, md: str | None, html: str | None):
    if json_path not in (None, "-"):
        write_atomic(Path(json_path).absolute(), document_text(document))
    if md:
        from ...report.markdown import comparison_markdown

        text = comparison_markdown(found.comparison)
        if found.paired:
            from ...report.pairwise import markdown

            text += "\n" + markdown(found.paired)
        write_atomic(Path(md).absolute(), text)
    if html:
        from ...report.html import comparison_page

        write_atomic(Path(html).absolute(), comparison_page(found.comparison, found.paired))


def _print(found: ComparedSessions, out) -> None:
    if found.said is not None:
        print(found.said, file=out)
    terminal = StreamTerminal(out)
    pair = found.models
    write_comparison(terminal, found.comparison, *([f"compared: {pair[0]} → {pair[1]}"] if pair is not None else []))
    if found.paired:
        from ...report.pairwise import write_pairwise

        write_pairwise(terminal, found.paired)
    for line in labelled_lines(found.labelled):
        print(line, file=out)
