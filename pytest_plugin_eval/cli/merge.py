"""`plugin-eval merge DIR…`: the results folders of a sharded suite (`--shard K/N` in N CI jobs) as one session.

    plugin-eval merge shard-1/ shard-2/ [--output-dir merged/] [--json merged.json]

Writes one results folder — the combined document, each run's artefacts copied in (their paths rewritten to the
copies), and the HTML report — prints the table, and exits with the status one unsharded session would have had.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..report.terminal import StreamTerminal, write_summary
from ..results.merge import MergeError, merge
from ..results.model import SuiteResult
from ..results.scoring import document_exit_status
from ..results.store import RESULTS_FILE, ResultsFolder, read_results, write_json
from ..run.artefacts import RunFolder


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="plugin-eval merge", description="Combine the results of --shard jobs.")
    parser.add_argument("sources", nargs="+", metavar="DIR", help="results folders (or aggregate-result.json files)")
    parser.add_argument(
        "--output-dir",
        default="merged-results",
        metavar="DIR",
        help="where the combined results folder goes (default merged-results)",
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the combined document here")
    return parser


def merge_command(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    documents, folders = [], []
    for source in args.sources:
        path = Path(source)
        file = path / RESULTS_FILE if path.is_dir() else path
        try:
            documents.append(read_results(file))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"Error: {source}: not a readable results document ({e})", file=sys.stderr)
            return 1
        folders.append(file.parent)
    try:
        merged = merge(documents, [str(f) for f in folders])
    except MergeError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    out = ResultsFolder(Path(args.output_dir).absolute())
    keep_artefacts(merged, out)
    write_json(out.results_file, merged.to_json())
    from ..report.html import write_report

    write_report(merged, out.report_file)
    if args.json:
        write_json(Path(args.json).absolute(), merged.to_json())
    write_summary(StreamTerminal(sys.stdout), merged, out.results_file, out.report_file)
    return document_exit_status(merged)


def keep_artefacts(document: SuiteResult, out: ResultsFolder) -> None:
    """Copy each run's kept files next to the combined document, and point its tracePath at the copy."""
    for case in document.cases:
        in_eval_dir = str(Path(*Path(case.dir).parts[1:])) if len(Path(case.dir).parts) > 1 else case.dir
        for run in case.runs():
            if not run.trace_path or not Path(run.trace_path).exists():
                continue
            copy = out.run_folder(in_eval_dir, run.arm, run.index)
            RunFolder(Path(run.trace_path).parent).copy_to(copy)
            run.trace_path = str(copy.trace)
