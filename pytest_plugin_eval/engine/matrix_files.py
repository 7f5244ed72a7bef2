"""A model matrix's files (results/matrix.py): once every model's document of an eval dir is written, its
matrix.json (and, beside the models' reports, matrix.html) in the session's results folder, above the models'
folders. What the terminal and Markdown show of each matrix comes from the `MatrixWritten` returned."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..results.matrix import MATRIX_FILE, Matrix, MatrixModel, Row, combined_status, matrix_rows, model_exit_status
from ..results.model import SuiteResult
from ..results.store import write_atomic, write_json
from .session_view import SessionView
from .trigger_outcomes import set_failures

Saved = Callable[[Path, Callable[[], object]], bool]  # outputs.Outputs.saved: write one file, say if it is lost

MATRIX_PAGE = "matrix.html"


@dataclass
class MatrixWritten:
    matrix: Matrix
    rows: list[Row]
    path: Path | None  # its matrix.json (None: lost)


def write_matrices(session: SessionView, saved: Saved, written: list[Any]) -> list[MatrixWritten]:
    """A matrix per eval dir whose documents (outputs.Written) are a matrix's (one per model)."""
    by_root: dict[Path, list[Any]] = {}
    for w in written:
        if w.model is not None and w.eval_root is not None:
            by_root.setdefault(w.eval_root, []).append(w)
    out = []
    for root, parts in by_root.items():
        folder = session.session_folder(root)
        if folder is None:
            continue
        out.append(write_matrix(session, saved, folder.path, parts))
    return out


def model_status(document: SuiteResult, options) -> int:
    return model_exit_status(document, any(set_failures(s, options) for s in document.triggers))


def write_matrix(session: SessionView, saved: Saved, folder: Path, parts: list[Any]) -> MatrixWritten:
    models = []
    for w in parts:
        assert w.model is not None
        document = w.results_path or (folder / w.label)
        models.append(
            MatrixModel(
                w.model,
                os.path.relpath(document, folder),
                model_status(w.document, session.options),
                w.document.cost_usd,
            )
        )
    matrix = Matrix(
        started_at=session.started_at,
        judge_model=session.judge_model,
        exit_status=combined_status([m.exit_status for m in models]),
        models=models,
    )
    rows = matrix_rows([(w.model or "", w.document) for w in parts])
    path: Path | None = folder / MATRIX_FILE
    assert path is not None
    target = path
    if not saved(target, lambda: write_json(target, matrix.to_json())):
        path = None
    reports = {w.model or "": os.path.relpath(w.report_path, folder) if w.report_path else None for w in parts}
    if any(reports.values()):
        from ..report.matrix import matrix_page

        page = folder / MATRIX_PAGE
        saved(page, lambda: write_atomic(page, matrix_page(matrix, rows, reports)))
    return MatrixWritten(matrix, rows, path)
