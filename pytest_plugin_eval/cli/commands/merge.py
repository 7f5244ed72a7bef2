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

from ...analysis.merge import MergeError
from ...engine.shards import ShardError, merge_matrices, merge_session
from ...report.terminal import StreamTerminal
from ...results.matrix import MatrixError, is_matrix
from ...results.scoring import document_exit_status


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
    top, terminal = Path(args.output_dir).absolute(), StreamTerminal(sys.stdout)
    try:
        if all(is_matrix(Path(source)) for source in args.sources):
            return merge_matrices(args.sources, top, args.json, terminal).exit_status
        return document_exit_status(merge_session(args.sources, top, args.json, terminal))
    except (MergeError, MatrixError, ShardError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
