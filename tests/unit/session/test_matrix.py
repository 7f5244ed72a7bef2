"""A model matrix on the pytest side: node ids with the model, the verdict slots they are gathered in, each eval
dir's suites per model, and the combined exit status the matrix document states."""

from __future__ import annotations

from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.collected import Collected, case_file_of, case_slot_of, slot_file, slot_model
from pytest_plugin_eval.engine.lost import TRIGGER_RUN, run_of
from pytest_plugin_eval.session.items.case import run_params
from pytest_plugin_eval.session.trigger_gatherer import TRIGGER_PARAMS, TriggerGather

HAIKU_RUN = "evals/a/prompt.md::a[claude-haiku-4-5-no-plugin-2]"


def test_a_matrix_run_names_its_model_first():
    assert run_params(RunId("c", "with", 1), "with-plugin-1") == "with-plugin-1"
    haiku = RunId("c", "with", 1, "claude-haiku-4-5")
    assert run_params(haiku, "with-plugin-1") == "claude-haiku-4-5-with-plugin-1"
    assert run_params(RunId("c", "with", 2, "eu.anthropic:claude/x"), "run-2") == "eu.anthropic-claude-x-run-2"


def test_a_runs_verdict_slot_is_its_case_file_and_model():
    assert case_file_of(HAIKU_RUN) == "evals/a/prompt.md"
    assert case_slot_of(HAIKU_RUN) == "evals/a/prompt.md::[claude-haiku-4-5]"
    assert (slot_file(case_slot_of(HAIKU_RUN)), slot_model(case_slot_of(HAIKU_RUN))) == (
        "evals/a/prompt.md",
        "claude-haiku-4-5",
    )
    plain = "evals/a/prompt.md::a[with-plugin-1]"
    assert (case_slot_of(plain), slot_model(case_slot_of(plain))) == ("evals/a/prompt.md", None)
    assert case_slot_of("tests/test_x.py::test_y") is None
    assert (run_of(HAIKU_RUN).arm, run_of(HAIKU_RUN).index) == ("without", 2)
    assert (run_of(plain).arm, run_of(plain).index) == ("with", 1)


def test_trigger_runs_of_a_matrix_are_known_by_their_params():
    nodeid = "evals/triggers.yaml::greet/hello[claude-haiku-4-5-run-3]"
    assert TRIGGER_PARAMS.search(nodeid)["model"] == "claude-haiku-4-5"
    assert TRIGGER_RUN.match(nodeid)["index"] == "3"
    gather = TriggerGather(Collected())
    gather.expect([nodeid, "evals/triggers.yaml::greet/hello[run-1]", "evals/triggers.yaml::greet/hello[sonnet-run-1]"])
    assert gather.expected == {
        "evals/triggers.yaml::greet/hello[claude-haiku-4-5]",
        "evals/triggers.yaml::greet/hello",
        "evals/triggers.yaml::greet/hello[sonnet]",
    }


def test_an_eval_dir_of_a_matrix_gets_every_models_suite_in_order():
    collected = Collected(models=("a", "b"))
    assert collected.of("/x/evals", "b").model == "b"
    assert list(collected.suites) == [("/x/evals", "a"), ("/x/evals", "b")]
    assert [s.model for s in collected.of_every_model("/x/evals")] == ["a", "b"]
    assert [s.model for s in Collected().of_every_model("/x/evals")] == [None]
