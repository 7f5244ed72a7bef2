"""A model matrix's case × model table (results/matrix.py): for the terminal, Markdown (and GitHub's step summary)
and the HTML matrix page. A case's cell is its WITH score with Δ and Δ's 95% interval (one arm: the score); a
trigger set's is its fire rate (should-fire queries that fire, should-not-fire ones that fire); every cell ends in
its cost. Each model's own summary, report and document are as a session of that model alone has them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import display_path
from ..results.matrix import Cell, Matrix, Row
from . import view

NOT_RUN = "not run"


def cell_text(cell: Cell | None, *, cost: bool = True) -> str:
    """`1.00 Δ +0.50 [+0.10, +0.90] $0.01`, `fires 3/3 · false 0/2 $0.01`, or `not run`."""
    if cell is None:
        return NOT_RUN
    if cell.recall is not None and cell.false_fire is not None:
        text = f"fires {cell.recall.count}/{cell.recall.of} · false {cell.false_fire.count}/{cell.false_fire.of}"
    else:
        text = view.score(cell.score)
        if cell.two_arm:
            text += f" Δ {view.signed(cell.delta)}"
            if cell.delta_ci is not None:
                low, high = cell.delta_ci
                text += f" [{view.signed(low)}, {view.signed(high)}]"
    mark = "" if cell.passed is None else (" ✓" if cell.passed else " ✗")
    return f"{text}{mark}" + (f" {view.usd(cell.cost_usd)}" if cost else "")


def table(models: Sequence[str], rows: Sequence[Row]) -> list[list[str]]:
    """Head and rows: a column per model."""
    out = [["CASE", *models]]
    out += [[row.name, *(cell_text(row.cells.get(model)) for model in models)] for row in rows]
    return out


def verdict_line(matrix: Matrix) -> str:
    """Each model's verdict, exit status and cost, and the invocation's."""
    parts = [f"{m.model}: {m.verdict} (exit {m.exit_status}, {view.usd(m.cost_usd)})" for m in matrix.models]
    return " · ".join(parts) + f" → exit {matrix.exit_status}"


def terminal_lines(matrix: Matrix, rows: Sequence[Row], path: Path | None, ceiling: float | None) -> list[str]:
    """The table, aligned, then the verdicts and where the matrix document is."""
    cells = table([m.model for m in matrix.models], rows)
    widths = [max(len(line[i]) for line in cells) + 2 for i in range(len(cells[0]))]
    lines = ["".join(f"{text:<{widths[i]}}" for i, text in enumerate(line)).rstrip() for line in cells]
    lines += ["", verdict_line(matrix)]
    if ceiling is not None:
        spent = sum(m.cost_usd for m in matrix.models)
        lines.append(f"cost ceiling ${ceiling:g} for the whole matrix: ${spent:.4f} spent")
    if path is not None:
        lines.append(f"Matrix: {display_path(path)}")
    return lines


def write_matrix(terminal, matrix: Matrix, rows: Sequence[Row], path: Path | None, ceiling: float | None) -> None:
    terminal.write_sep("=", f"plugin eval · model matrix ({len(matrix.models)} models)")
    for line in terminal_lines(matrix, rows, path, ceiling):
        terminal.write_line(line)


def markdown(matrix: Matrix, rows: Sequence[Row]) -> str:
    """The matrix as a Markdown section (templates/matrix.md.j2): the table, then each model's verdict."""
    from .markdown import Table
    from .md import render_markdown

    head, *body = table([m.model for m in matrix.models], rows)
    return render_markdown("matrix.md.j2", rows=Table(head, body), verdict=verdict_line(matrix))


@dataclass(frozen=True)
class MatrixColumn:
    model: str
    link: str | None  # its report, relative to the page


@dataclass(frozen=True)
class MatrixRow:
    name: str
    cells: list[str]


@dataclass(frozen=True)
class MatrixPage:
    """What templates/matrix.html.j2 shows."""

    columns: list[MatrixColumn]
    rows: list[MatrixRow]
    verdicts: list[str]
    exit_status: int


def matrix_view(matrix: Matrix, rows: Sequence[Row], reports: dict[str, str | None]) -> MatrixPage:
    """The page's view: the table, each model's column head linking to its own report (`reports`: model → its
    report's path relative to the page), each model's verdict."""
    models = [m.model for m in matrix.models]
    return MatrixPage(
        columns=[MatrixColumn(model, reports.get(model)) for model in models],
        rows=[MatrixRow(row.name, [cell_text(row.cells.get(model)) for model in models]) for row in rows],
        verdicts=[f"{m.model}: {m.verdict} (exit {m.exit_status}, {view.usd(m.cost_usd)})" for m in matrix.models],
        exit_status=matrix.exit_status,
    )


def matrix_page(matrix: Matrix, rows: Sequence[Row], reports: dict[str, str | None]) -> str:
    """The HTML matrix page."""
    from .html import render_page

    return render_page("matrix.html.j2", page=matrix_view(matrix, rows, reports)) + "\n"
