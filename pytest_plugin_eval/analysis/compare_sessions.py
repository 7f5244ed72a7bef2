"""`plugin-eval compare`'s workflow over two stored sessions: their comparison (compare.py), two models of one
matrix compared as such, the pairwise judgment when asked (pairwise.py), each side's judges measured against the
labels in its folder, the compare document, and the cases that make `--fail-on-worse` fail."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..results.calibration import Calibration
from ..results.comparison import WORSE, Comparison
from ..results.matrix import read_matrix, same_matrix
from ..results.model import SuiteResult
from ..results.pairwise import PairwiseComparison
from .compare import compare


@dataclass(frozen=True)
class PairwiseAsk:
    """`--pairwise` and its options."""

    scripted: bool = False
    judge_model: str | None = None
    max_cost_usd: float | None = None
    claude: str | None = None  # the Claude Code binary a judge asks through (--claude)


@dataclass
class ComparedSessions:
    comparison: Comparison
    models: tuple[str, str] | None = None  # two models of one matrix
    said: str | None = None  # what comparing two models of a matrix says
    paired: PairwiseComparison | None = None
    labelled: dict[str, Calibration] = field(default_factory=dict)  # side → its judges against its labels

    def document(self) -> dict[str, Any]:
        """The compare document (`compare --json`)."""
        out = self.comparison.to_json() | ({"pairwise": self.paired.to_json()} if self.paired else {})
        if self.labelled:
            out["judgeAgreement"] = {side: result.to_json()["graders"] for side, result in self.labelled.items()}
        return out

    def worse(self) -> list[str]:
        """What `--fail-on-worse` names: cases and trigger queries that got worse, and where the pairwise judge
        preferred OLD's outputs beyond the interval."""
        names = [c.name for c in self.comparison.worse] + self.comparison.worse_queries
        paired = self.paired
        if paired is not None:
            names += [f"{c.name} (pairwise)" for c in paired.cases if c.tally.verdict(paired.level) == WORSE]
            names += ["pairwise overall"] if paired.tally.verdict(paired.level) == WORSE else []
        return names


def matrix_sources(folder: str, models: list[str]) -> tuple[str, str]:
    """`DIR --model A --model B`: the two models' documents in the matrix DIR."""
    matrix, found = read_matrix(Path(folder))
    a, b = (matrix.entry(model) for model in models)
    return str(found / a.document), str(found / b.document)


def judge_agreement(sides: dict[str, tuple[str, SuiteResult]]) -> dict[str, Calibration]:
    """Side → the calibration of its results folder by the labels.json in it (results.calibration), for the sides
    that have labels."""
    from ..results.calibration import folder_calibration

    out = {}
    for side, (source, document) in sides.items():
        folder = Path(source) if Path(source).is_dir() else Path(source).parent
        found = folder_calibration(folder, document)
        if found is not None and any(g.n for g in found.graders):
            out[side] = found
    return out


def compare_sessions(
    old_source: str,
    new_source: str,
    old: SuiteResult,
    new: SuiteResult,
    level: float,
    pairwise: PairwiseAsk | None,
    say: Callable[[str], None],
) -> ComparedSessions:
    """Raises pairwise.PairwiseRefused, or UsageError when there is no Claude Code to ask a judge through."""
    comparison = compare(old, new, old_source=old_source, new_source=new_source, level=level)
    pair = same_matrix(Path(old_source), Path(new_source))
    said = None
    if pair is not None:  # two models of one session: the model is what differs, not a reason to distrust
        from ..results.matrix import of_two_models

        comparison, said = of_two_models(comparison, *pair)
    paired = None
    if pairwise is not None:
        from .pairwise import run_pairwise

        paired = run_pairwise(
            comparison,
            old_source,
            new_source,
            pairwise.scripted,
            pairwise.judge_model,
            pairwise.max_cost_usd,
            say,
            pairwise.claude,
        )
    labelled = judge_agreement({"OLD": (old_source, old), "NEW": (new_source, new)})
    return ComparedSessions(comparison, pair, said, paired, labelled)
