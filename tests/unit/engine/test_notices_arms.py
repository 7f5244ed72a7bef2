"""The report header says which arms beyond with and without the session will run, before anything is spent."""

from __future__ import annotations

from pytest_plugin_eval.engine.notices import header_lines
from pytest_plugin_eval.engine.options import EvalOptions


def test_the_header_names_the_other_arms():
    lines = header_lines([], EvalOptions(against="main", ablate=("review", "hooks")))
    assert lines == [
        "plugin-eval: more arms: against (main), ablate:review, ablate:hooks — each runs every case as often as "
        "the with arm (docs/arms.md)"
    ]
    assert header_lines([], EvalOptions()) == []
