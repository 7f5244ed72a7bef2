"""The runs the controller records for a worker: which run an item's node id names."""

from __future__ import annotations

from pytest_plugin_eval.engine.lost import run_of


def test_an_items_node_id_names_its_arm_and_run():
    assert run_of("evals/greets/prompt.md::greets[with-plugin-2]") == ("with", 2)
    assert run_of("evals/a[b]/case.yaml::a[b][no-plugin-11]") == ("without", 11)
