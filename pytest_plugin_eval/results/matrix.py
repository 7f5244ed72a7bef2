"""A model matrix (`--model A,B,…`): one session's evaluation of a suite on several models. Each model's results
are a complete results document of their own (schemaVersion 1, in a folder named after the model, read by every
reader as a one-model session's), and `matrix.json` beside those folders says which models ran, where each
model's document is, its verdict, exit status and cost:

    evals/results/<timestamp>/
      matrix.json                  the matrix (this module)
      <model>/aggregate-result.json   each model's results document, report and runs (store.py's layout)

Pure: the matrix document, the models a case runs on, and the case × model table the reports draw.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import UsageError
from .jsonmap import Document, computed, key
from .model import SuiteResult
from .scoring import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_TERMINATED,
    document_failed,
    exit_status,
)
from .store import RESULTS_FILE
from .triggers import Rate

if TYPE_CHECKING:
    from .comparison import Comparison

MATRIX_FILE = "matrix.json"
MATRIX_KIND = "plugin-eval/model-matrix"
VERDICTS = {EXIT_OK: "passed", EXIT_FAILED: "failed", EXIT_PARTIAL: "partial"}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class MatrixError(UsageError):
    """A matrix folder (or its matrix.json) that cannot be read, or a model it does not hold."""


def matrix_folder_hint(folder: Path) -> str | None:
    """For a model matrix's folder named where one session's results are wanted: which folders in it to name
    instead (None: it is not a matrix's folder)."""
    if not (folder / MATRIX_FILE).is_file():
        return None
    models = sorted(str(sub) for sub in folder.iterdir() if (sub / RESULTS_FILE).is_file())
    return f"a model matrix's folder holds one results folder per model: name one of them ({', '.join(models)})"


def model_dirname(model: str) -> str:
    """The folder a model's results go in: its name, with what a folder name cannot hold (`/`, `:`) as `-`."""
    name = _UNSAFE.sub("-", model).strip(".-")
    return name or "model"


def case_models(restrict: tuple[str, ...], models: tuple[str | None, ...]) -> tuple[str | None, ...]:
    """The models a case (or trigger set) runs on: with `models:`, those of the matrix it names (outside a
    matrix, `models:` restricts nothing: the session's one model runs every case)."""
    if not restrict or models == (None,):
        return models
    return tuple(model for model in models if model in restrict)


def restriction_notice(name: str, restrict: tuple[str, ...], models: tuple[str | None, ...]) -> str | None:
    """What to say of a case whose `models:` names a model the matrix does not run (a note: the case runs on the
    others; none left, it runs on none)."""
    if not restrict or models == (None,):
        return None
    missing = [model for model in restrict if model not in models]
    if not missing:
        return None
    kept = case_models(restrict, models)
    where = f"runs on {', '.join(str(m) for m in kept)} only" if kept else "runs on none of them"
    return f"{name}: models: names {', '.join(missing)}, not in --model {','.join(str(m) for m in models)}; it {where}"


# The invocation's exit status over the models: the first of these any model has, else 0.
PRECEDENCE = (EXIT_TERMINATED, EXIT_INTERRUPTED, EXIT_PARTIAL, EXIT_FAILED)


def combined_status(statuses: list[int]) -> int:
    """1 if any model's verdict fails, 2 if any is partial (an interruption above both), else 0."""
    return next((status for status in PRECEDENCE if status in statuses), EXIT_OK)


def model_exit_status(document: SuiteResult, triggers_failed: bool = False) -> int:
    """The exit status a session of this model alone would have had (the controller's rule, on one document)."""
    interrupted = "SIGINT" if document.partial_reason == "interrupted" else None
    failed = (
        not (document.cases or document.triggers)
        or bool(document.load_errors)
        or (bool(document.cases) and document_failed(document))
        or triggers_failed
    )
    return exit_status(interrupted=interrupted, partial=document.partial, failed=failed)


@dataclass
class MatrixModel(Document):
    """One model of a matrix: where its document is (relative to the matrix's folder) and what it came to."""

    model: str = field(metadata=key("model"))
    document: str = field(metadata=key("document"))
    _verdict: None = field(
        default=None, init=False, compare=False, metadata=computed("verdict", lambda entry: entry.verdict)
    )
    exit_status: int = field(metadata=key("exitStatus", missing=0, read=int))
    cost_usd: float = field(metadata=key("costUsd", missing=0.0, write=lambda usd: round(usd, 6)))

    @property
    def verdict(self) -> str:
        return VERDICTS.get(self.exit_status, "interrupted")


@dataclass
class Matrix(Document):
    """The matrix document: the models in the order given, and the invocation's exit status over them."""

    _kind: None = field(default=None, init=False, compare=False, metadata=computed("kind", lambda matrix: MATRIX_KIND))
    _schema: None = field(default=None, init=False, compare=False, metadata=computed("schemaVersion", lambda matrix: 1))
    started_at: str = field(metadata=key("startedAt", missing="", read=str))
    judge_model: str | None = field(metadata=key("judgeModel", missing=None))
    exit_status: int = field(metadata=key("exitStatus", missing=0, read=int))
    _cost: None = field(
        default=None,
        init=False,
        compare=False,
        metadata=computed("costUsd", lambda matrix: round(sum(m.cost_usd for m in matrix.models), 6)),
    )
    models: list[MatrixModel] = field(default_factory=list, metadata=key("models"))

    def entry(self, model: str) -> MatrixModel:
        for entry in self.models:
            if entry.model == model:
                return entry
        names = ", ".join(m.model for m in self.models)
        raise MatrixError(f"the matrix has no model {model!r}; its models are {names}")


def is_matrix(path: Path) -> bool:
    """A matrix's folder, or its matrix.json."""
    path = Path(path)
    return path.name == MATRIX_FILE or (path.is_dir() and (path / MATRIX_FILE).is_file())


def read_matrix(path: Path) -> tuple[Matrix, Path]:
    """The matrix in a folder (or its matrix.json), and its folder. Raises MatrixError."""
    path = Path(path)
    file = path if path.name == MATRIX_FILE else path / MATRIX_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise MatrixError(f"{file}: not a readable matrix document ({e})") from None
    if not isinstance(data, dict) or data.get("kind") != MATRIX_KIND:
        raise MatrixError(f"{file}: not a model matrix document (no kind {MATRIX_KIND!r})")
    return Matrix.from_json(data), file.parent


def same_matrix(old: Path, new: Path) -> tuple[str, str] | None:
    """The models of two results documents (or their folders) that are two models of one matrix; else None."""
    files = [path / RESULTS_FILE if path.is_dir() else path for path in (old, new)]
    folders = {file.resolve().parent.parent for file in files}
    if len(folders) != 1 or not is_matrix(next(iter(folders))):
        return None
    try:
        matrix, folder = read_matrix(next(iter(folders)))
    except MatrixError:
        return None
    by_document = {(folder / m.document).resolve(): m.model for m in matrix.models}
    models = [by_document.get(file.resolve()) for file in files]
    return (models[0], models[1]) if models[0] and models[1] and models[0] != models[1] else None


def of_two_models(comparison: Comparison, old: str, new: str) -> tuple[Comparison, str]:
    """A comparison of two models of one matrix, and what to say of it: the model is the difference asked
    about (not a warning); anything else that differs still is one."""
    others = [w for w in comparison.warnings if w.kind != "model"]
    said = f"model matrix: {old} → {new} — "
    if not others:
        said += "they differ in the model only (one session: same plugin, cases, runs, judge and Claude Code)"
    else:
        said += "they differ in the model, and as the warnings below say"
    return replace(comparison, warnings=others), said


# ---- the case × model table ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One case (or trigger set) on one model."""

    score: float | None = None
    delta: float | None = None
    delta_ci: tuple[float, float] | None = None
    two_arm: bool = False
    passed: bool | None = None  # the case's verdict (None: no with-plugin run)
    recall: Rate | None = None  # trigger sets: should-fire queries that fire
    false_fire: Rate | None = None  # and should-not-fire queries that fire
    cost_usd: float = 0.0


@dataclass
class Row:
    kind: str  # "case" or "triggers"
    name: str
    cells: dict[str, Cell] = field(default_factory=dict)  # model → its cell (absent: not run on that model)


def matrix_rows(documents: list[tuple[str, SuiteResult]]) -> list[Row]:
    """A row per case and trigger set of any model's document, in the order they first appear; a cell per model
    that ran it."""
    rows: dict[tuple[str, str], Row] = {}
    for model, document in documents:
        threshold = document.suite.threshold
        for case in document.cases:
            agg = case.aggregates
            row = rows.setdefault(("case", case.dir), Row("case", case.name))
            row.cells[model] = Cell(
                score=agg.score,
                delta=agg.delta,
                delta_ci=agg.delta_ci,
                two_arm=case.two_arm,
                passed=None if not case.runs("with") else agg.score is not None and agg.score >= threshold,
                cost_usd=case.cost_usd,
            )
        for trigger_set in document.triggers:
            row = rows.setdefault(("triggers", f"{trigger_set.file}\0{trigger_set.skill}"), Row("triggers", ""))
            row.name = f"triggers: {trigger_set.name}"
            row.cells[model] = Cell(
                recall=trigger_set.recall,
                false_fire=trigger_set.false_fire_rate,
                passed=not trigger_set.wrong,
                cost_usd=trigger_set.cost_usd,
            )
    return list(rows.values())
