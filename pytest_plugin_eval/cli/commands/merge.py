"""`plugin-eval merge DIR…`: the results folders of a sharded suite (`--shard K/N` in N CI jobs) as one session.

    plugin-eval merge shard-1/ shard-2/ [--output-dir merged/] [--json merged.json]

Writes one results folder (engine.shards: the combined document, each run's artefacts copied in, the HTML report),
prints the table, and exits with the status one unsharded session would have had. The shards of a model matrix
(`--model A,B --shard K/N`) merge model by model into a matrix folder of their own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...analysis.merge import MergeError, merge_shards
from ...engine.shards import ShardError, merge_matrices, write_merged
from ...report.terminal import StreamTerminal, write_summary
from ...results.matrix import MatrixError, is_matrix
from ...results.scoring import document_exit_status
from ...results.store import ResultsFolder, write_json


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
    if all(is_matrix(Path(source)) for source in args.sources):
        try:
            matrix = merge_matrices(
                args.sources, Path(args.output_dir).absolute(), args.json, StreamTerminal(sys.stdout)
            )
        except (MatrixError, ShardError) as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
        return matrix.exit_status
    try:
        merged = merge_shards(args.sources)
    except MergeError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    out = ResultsFolder(Path(args.output_dir).absolute())
    write_merged(merged, out)
    if args.json:
        write_json(Path(args.json).absolute(), merged.to_json())
    write_summary(StreamTerminal(sys.stdout), merged, out.results_file, out.report_file)
    return document_exit_status(merged)
