"""`plugin-eval merge`'s workflow: the results folders of a sharded suite (`--shard K/N` in N CI jobs) written as
one session's — the combined document (analysis.merge), each run's artefacts copied in (their paths rewritten to the
copies) and the HTML report; the shards of a model matrix merged model by model into a matrix folder of their own
(each model's combined document in its folder, and matrix.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..analysis.merge import MergeError, merge_shards
from ..core.errors import UsageError
from ..report.terminal import write_summary
from ..results.matrix import (
    MATRIX_FILE,
    Matrix,
    MatrixModel,
    combined_status,
    matrix_rows,
    model_dirname,
    model_exit_status,
    read_matrix,
)
from ..results.model import SuiteResult
from ..results.store import ResultsFolder, write_json
from ..results.suites import SuitesDocument
from ..run.artefacts import RunFolder


class ShardError(UsageError, ValueError):
    """A shard that does not merge: the message names it (a model of a matrix: `model: why`)."""


def write_merged(merged: SuiteResult, out: ResultsFolder) -> None:
    keep_artefacts(merged, out)
    write_json(out.results_file, merged.to_json())
    from ..report.html import write_report

    write_report(merged, out.report_file)


def merge_session(sources: list[str], top: Path, json_path: str | None, terminal: Any) -> SuiteResult:
    """The shards of one session merged into the results folder `top` (the document, each run's artefacts, the
    report; also `json_path`), its summary written to `terminal`. Raises MergeError for shards that do not merge."""
    merged = merge_shards(sources)
    out = ResultsFolder(top)
    write_merged(merged, out)
    if json_path:
        write_json(Path(json_path).absolute(), merged.to_json())
    write_summary(terminal, merged, out.results_file, out.report_file)
    return merged


def merge_matrices(sources: list[str], top: Path, json_path: str | None, terminal: Any) -> Matrix:
    """The shards of a model matrix: each model's documents merged into top/<model>/ (its summary written to
    `terminal`), and the matrix. Raises MatrixError for a folder that is not a matrix's, ShardError for a model
    whose shards do not merge."""
    matrices = [read_matrix(Path(source)) for source in sources]
    models = list(dict.fromkeys(m.model for matrix, _ in matrices for m in matrix.models))
    entries: list[MatrixModel] = []
    parts: list[tuple[str, SuiteResult]] = []
    for model in models:
        files = [folder / m.document for matrix, folder in matrices for m in matrix.models if m.model == model]
        try:
            merged = merge_shards([str(f) for f in files])
        except MergeError as e:
            raise ShardError(f"{model}: {e}") from None
        out = ResultsFolder(top / model_dirname(model))
        write_merged(merged, out)
        write_summary(terminal, merged, out.results_file, out.report_file, f"{model}", notices=not parts)
        status = model_exit_status(merged, any(s.wrong for s in merged.triggers))
        entries.append(MatrixModel(model, str(out.results_file.relative_to(top)), status, merged.cost_usd))
        parts.append((model, merged))
    first = matrices[0][0]
    matrix = Matrix(first.started_at, first.judge_model, combined_status([e.exit_status for e in entries]), entries)
    write_json(top / MATRIX_FILE, matrix.to_json())
    if json_path:
        write_json(Path(json_path).absolute(), SuitesDocument(suites=[d for _, d in parts]))
    from ..report.matrix import write_matrix

    write_matrix(terminal, matrix, matrix_rows(parts), top / MATRIX_FILE, None)
    return matrix


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
