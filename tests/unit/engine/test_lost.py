"""The runs the controller records for a worker: which run an item's node id names."""

from __future__ import annotations

from pytest_plugin_eval.core.kinds import ablated
from pytest_plugin_eval.core.run_id import NodeRun
from pytest_plugin_eval.engine.lost import run_of


def test_an_items_node_id_names_its_arm_and_run():
    assert run_of("evals/greets/prompt.md::greets[with-plugin-2]") == NodeRun("with", 2, None)
    assert run_of("evals/a[b]/case.yaml::a[b][no-plugin-11]") == NodeRun("without", 11, None)
    assert run_of("evals/a/prompt.md::a[haiku-against-3]") == NodeRun("against", 3, "haiku")
    assert run_of("evals/a/prompt.md::a[ablate-hooks-1]") == NodeRun(ablated("hooks"), 1, None)
    assert run_of("evals/a/prompt.md::a[haiku-ablate-x-3-2]") == NodeRun(ablated("x-3"), 2, "haiku")
