"""Which run: the value the stages name a run by, and its spelling in node ids."""

from __future__ import annotations

from pathlib import Path

from pytest_plugin_eval.core.kinds import ablated, ablated_component, loads_plugin
from pytest_plugin_eval.core.run_id import RunId, arm_label, arm_of_label


def test_a_run_is_one_value_keyed_by_its_case_on_its_model(tmp_path: Path):
    one = RunId.of(tmp_path / "c", "with", 2, "haiku")
    assert one == RunId(str((tmp_path / "c").resolve()), "with", 2, "haiku")
    assert one.case_key != RunId.of(tmp_path / "c", "with", 2).case_key
    assert one.case_key == RunId.of(tmp_path / "c", "without", 1, "haiku").case_key
    assert len({one, RunId.of(tmp_path / "c", "with", 2, "haiku")}) == 1


def test_every_arm_has_a_node_label_that_reads_back():
    for arm in ("with", "without", "against", ablated("hooks"), ablated("x-3")):
        assert arm_of_label(arm_label(arm)) == arm
    assert RunId("c", ablated("review"), 3).label == "ablate-review-3"
    assert RunId("c", "without", 1).label == "no-plugin-1"
    assert RunId("c", ablated("review"), 3).folder_name == "ablate-review-3"


def test_which_arms_load_a_plugin():
    assert [loads_plugin(a) for a in ("with", "without", "against", ablated("s"))] == [True, False, True, True]
    assert (ablated_component("ablate:s"), ablated_component("with")) == ("s", None)
