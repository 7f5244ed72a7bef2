"""The closed sets of values in a results document (core/kinds.py, results/model.py) agree with the code that
uses them: the arm tuple, the groups of run error kinds, the partial reasons the scoring rules give, and the list
the docs give readers of the document (docs/results.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from pytest_plugin_eval.core.kinds import ARMS, Ablated, Ablation, Arm, ErrorKind, Source
from pytest_plugin_eval.engine.options import ABLATIONS
from pytest_plugin_eval.results.model import (
    RERUN_KINDS,
    SESSION_FAILING_KINDS,
    UNFINISHED_KINDS,
    PartialReason,
    RunResult,
)
from pytest_plugin_eval.results.scoring import partial_reason

RESULTS_PAGE = Path(__file__).resolve().parents[3] / "docs" / "results.md"


def test_arms_and_ablations_are_their_literals():
    named, ablation = get_args(Arm)
    assert get_args(named) == (*ARMS, "against") and ablation is Ablated
    assert get_args(Ablation) == ABLATIONS


def test_kind_groups_hold_only_error_kinds():
    kinds = set(get_args(ErrorKind))
    assert len(kinds) == 16
    assert set(SESSION_FAILING_KINDS) <= set(UNFINISHED_KINDS) <= set(RERUN_KINDS) <= kinds


def test_every_partial_reason_the_scoring_gives_is_a_literal():
    given = {partial_reason([], "SIGINT", False), partial_reason([], None, True)}
    for kind in get_args(ErrorKind):
        given.add(partial_reason([RunResult("with", 1, score=None, passed=False, error_kind=kind)], None, False))
    given.discard(None)
    assert given < set(get_args(PartialReason))  # judge_error comes from a grader, not a run's kind


def test_the_results_page_lists_each_closed_set():
    text = " ".join(RESULTS_PAGE.read_text(encoding="utf-8").split())
    for name, literal in (("errorKind", ErrorKind), ("partialReason", PartialReason)):
        listed = re.search(rf"`{name}` (is )?one of ((?:`\w+`(?:,? (?:or )?)?)+)", text)
        assert listed, name
        assert re.findall(r"`(\w+)`", listed.group(2)) == list(get_args(literal)), name
    # "python" and "trigger" cases (eval_agent.run, a trigger query) are never cases of a document
    assert all(f"`{source}`" in text for source in get_args(Source) if source not in ("", "python", "trigger"))
