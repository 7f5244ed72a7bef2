"""Measuring a description (tune/measure.py): the plugin copy carries the candidate and no results, and the
inner session's document gives rates in which errors are no "no"."""

from __future__ import annotations

from pathlib import Path

from pytest_plugin_eval.load.triggers import load_trigger_file
from pytest_plugin_eval.tune.measure import Measurer, read_measured

from .test_loop import plugin


def run(fired, skill="greeter:greet", cost=0.01):
    return {"fired": fired, "skill": skill if fired else None, "costUsd": cost}


def test_copy_has_the_candidate_and_leaves_results_and_git_out(tmp_path):
    root = plugin(tmp_path)
    (root / "evals" / "results" / "old").mkdir(parents=True)
    (root / ".git").mkdir()
    skill_md = root / "skills" / "greet" / "SKILL.md"
    (root / "skills" / "greet" / "results").mkdir()  # a skill's own folder of that name is the plugin's
    m = Measurer(root, skill_md, tmp_path / "work", [], (root / "evals" / "results",))
    copy = m.copy(tmp_path / "work" / "c" / "p", "New words: here")
    assert (copy / "skills" / "greet" / "SKILL.md").read_text() == (
        '---\nname: greet\ndescription: "New words: here"\n---\nbody\n'
    )
    assert skill_md.read_text().startswith("---\nname: greet\ndescription: Greets.\n")  # the plugin untouched
    assert (copy / "evals" / "triggers.yaml").exists()
    assert not (copy / "evals" / "results").exists() and not (copy / ".git").exists()
    assert (copy / "skills" / "greet" / "results").is_dir()


def test_rates_leave_errors_out(tmp_path):
    root = plugin(tmp_path)
    (trigger_set,) = [s for s in load_trigger_file(root / "evals" / "triggers.yaml", root / "evals")]
    doc = {
        "costUsd": 0.05,
        "triggers": [
            {
                "name": "greet",
                "file": "evals/triggers.yaml",
                "queries": [
                    {"id": "f0", "runs": [run(True), run(None), run(False)]},
                    {"id": "f1", "runs": [run(None)]},
                    {"id": "m0", "runs": [run(True, "greeter:other")]},
                    {"id": "m9", "runs": [run(True)]},  # not asked for
                ],
            }
        ],
    }
    m = read_measured(doc, trigger_set, Path("c/evals/triggers.yaml"), Path("c"), ["f0", "f1", "m0"], 2)
    assert m.rates == {"f0": 0.5, "m0": 1.0}  # f1 decided nothing: no rate, not a 0
    assert m.fires["f0"] == (1, 2) and m.errors == 2 and m.runs == 5 and m.skipped == 1
    assert m.taken_by["m0"] == {"greeter:other": 1} and m.taken_by["f0"] == {"greeter:greet": 1, "none": 1}
    assert m.cost_usd == 0.05 and not m.complete and not m.ceiling_hit
    doc["partialReason"] = "cost_ceiling"
    assert read_measured(doc, trigger_set, Path("c/evals/triggers.yaml"), Path("c"), ["f0"], 2).ceiling_hit
