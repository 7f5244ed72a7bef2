"""How what the plugin costs per task moved between two sessions: per case, each figure's with-plugin median then
and now with the Mann–Whitney interval of the shift (the two sessions' runs are independent samples); for the
suite, the median of the compared cases' changes with the sign test's interval (the cases are the pairs) — the
same methods as a session's own with − without (results/efficiency.py)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import stats
from ..results.comparison import FigureChange
from ..results.efficiency import FIGURES
from ..results.model import CaseResult


def _values(case: CaseResult, figure: str) -> list[float]:
    return [f[figure] for run in case.runs("with") if (f := run.figures) is not None and figure in f]


def case_change(old: CaseResult, new: CaseResult, level: float) -> dict[str, FigureChange]:
    """Figure → its with-plugin median then and now (a figure neither session measured is left out)."""
    out = {}
    for figure in FIGURES:
        before, after = _values(old, figure), _values(new, figure)
        if not before and not after:
            continue
        a, b = stats.median(before), stats.median(after)
        found = stats.shift_interval(after, before, level)
        interval, real = found if found is not None else (None, None)
        out[figure] = FigureChange(a, b, None if a is None or b is None else b - a, interval, real)
    return out


def suite_change(cases: Sequence[dict[str, FigureChange]], level: float) -> dict[str, FigureChange]:
    """Figure → the median case's with-plugin median then and now, and the median of the cases' changes with the
    sign test's interval."""
    out = {}
    for figure in FIGURES:
        changes = [c[figure] for c in cases if figure in c]
        if not changes:
            continue
        diffs = [c.change for c in changes if c.change is not None]
        found = stats.median_interval(diffs, level)
        interval, real = found if found is not None else (None, None)
        out[figure] = FigureChange(
            stats.median([c.old for c in changes if c.old is not None]),
            stats.median([c.new for c in changes if c.new is not None]),
            stats.median(diffs),
            interval,
            real,
        )
    return out
