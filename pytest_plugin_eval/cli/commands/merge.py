"""`plugin-eval merge DIR…`: the results folders of a sharded suite (`--shard K/N` in N CI jobs) as one session.

    plugin-eval merge shard-1/ shard-2/ [--output-dir merged/] [--json merged.json]

Writes one results folder — the combined document, each run's artefacts copied in (their paths rewritten to the
copies), and the HTML report — prints the table, and exits with the status one unsharded session would have had.
The shards of a model matrix (`--model A,B --shard K/N`) merge model by model into a matrix folder of their own
(each model's combined document in its folder, and matrix.json).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...analysis.merge import MergeError, merge
from ...report.terminal import StreamTerminal, write_summary
from ...results.matrix import (
    MATRIX_FILE,
    Matrix,
    MatrixError,
    MatrixModel,
    combined_status,
    is_matrix,
    matrix_rows,
    model_dirname,
    model_exit_status,
    read_matrix,
)
from ...results.model import SuiteResult
from ...results.scoring import document_exit_status
from ...results.store import RESULTS_FILE, ResultsFolder, read_results, write_json
from ...run.artefacts import RunFolder


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
        return merge_matrices(args)
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
    write_merged(merged, out)
    if args.json:
        write_json(Path(args.json).absolute(), merged.to_json())
    write_summary(StreamTerminal(sys.stdout), merged, out.results_file, out.report_file)
    return document_exit_status(merged)


def write_merged(merged: SuiteResult, out: ResultsFolder) -> None:
    keep_artefacts(merged, out)
    write_json(out.results_file, merged.to_json())
    from ...report.html import write_report

    write_report(merged, out.report_file)


def merge_matrices(args: argparse.Namespace) -> int:
    """The shards of a model matrix: each model's documents merged into <output>/<model>/, and the matrix."""
    try:
        matrices = [read_matrix(Path(source)) for source in args.sources]
    except MatrixError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    models = list(dict.fromkeys(m.model for matrix, _ in matrices for m in matrix.models))
    top = Path(args.output_dir).absolute()
    entries: list[MatrixModel] = []
    parts: list[tuple[str, SuiteResult]] = []
    terminal = StreamTerminal(sys.stdout)
    for model in models:
        files = [folder / m.document for matrix, folder in matrices for m in matrix.models if m.model == model]
        try:
            merged = merge([read_results(f) for f in files], [str(f.parent) for f in files])
        except (OSError, ValueError, KeyError, TypeError) as e:  # MergeError is a ValueError
            print(f"Error: {model}: {e}", file=sys.stderr)
            return 1
        out = ResultsFolder(top / model_dirname(model))
        write_merged(merged, out)
        write_summary(terminal, merged, out.results_file, out.report_file, f"{model}", notices=not parts)
        status = model_exit_status(merged, any(s.wrong for s in merged.triggers))
        entries.append(MatrixModel(model, str(out.results_file.relative_to(top)), status, merged.cost_usd))
        parts.append((model, merged))
    first = matrices[0][0]
    matrix = Matrix(first.started_at, first.judge_model, combined_status([e.exit_status for e in entries]), entries)
    write_json(top / MATRIX_FILE, matrix.to_json())
    if args.json:
        write_json(Path(args.json).absolute(), {"schemaVersion": 1, "suites": [d.to_json() for _, d in parts]})
    from ...report.matrix import write_matrix

    write_matrix(terminal, matrix, matrix_rows(parts), top / MATRIX_FILE, None)
    return matrix.exit_status


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
