"""The session's side of --reuse-baseline (engine/reuse.py), on a stand-in session: the notice of a fresh run
whose stored runs were refused."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_plugin_eval.analysis.baseline import Decision
from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.reuse import BaselineReuse


def reuse_refusing(run: RunId, why: str) -> BaselineReuse:
    """A BaselineReuse whose decision for `run`'s case and arm is already made: nothing taken, for `why`."""
    options = SimpleNamespace(reuse_baseline=True)
    reuse = BaselineReuse(SimpleNamespace(options=options, stored=None))
    reuse._conditions[(run.case_key, run.arm)] = {"model": run.model}
    reuse._decisions[(run.case_key, run.arm)] = Decision({}, why)
    return reuse


CASE = SimpleNamespace(name="greets", trigger=None)


def test_a_refusal_names_the_case():
    run = RunId("/s/evals/greets", "without", 1)
    assert reuse_refusing(run, "prompt changed").notes_for_fresh(CASE, run) == [
        "greets: without-plugin runs not reused (prompt changed): run afresh"
    ]


def test_on_a_matrix_each_models_refusal_names_its_model():
    """A matrix's notices are the session's, in every model's document: two refusals of one case must say which
    model each is about."""
    run = RunId("/s/evals/greets", "against", 1, model="haiku")
    assert reuse_refusing(run, "made on another version of the plugin").notes_for_fresh(CASE, run) == [
        "greets on haiku: --against runs not taken from stored with-plugin runs "
        "(made on another version of the plugin): run afresh"
    ]
