"""What a trigger run's report carries to the controller: the arm and a matrix's model are its RunId's."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.engine.trigger_outcomes import report_of
from pytest_plugin_eval.load.triggers import load_trigger_file, query_case
from pytest_plugin_eval.results.triggers import TriggerRun


def trigger_set(root: Path):
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Greet people.\n---\nbody\n")
    (root / "evals").mkdir()
    (root / "evals" / "triggers.yaml").write_text("skills:\n  greet:\n    should_fire: [say hi to Bob]\n")
    [loaded] = load_trigger_file(root / "evals" / "triggers.yaml", root / "evals")
    return loaded


def test_a_trigger_runs_report_takes_its_arm_and_model_from_its_run_id(tmp_path):
    seen = []
    session = SimpleNamespace(
        options=EvalOptions(models=("haiku", "opus")),
        suite_label=lambda root, model: seen.append(("label", model)) or f"evals@{model}",
        suite_info=lambda case, model: seen.append(("suite", model)),
    )
    triggers = trigger_set(tmp_path / "p")
    [query] = triggers.queries
    run_id = RunId.of(query_case(triggers, query).dir, "against", 2, "haiku")
    report = report_of(session, triggers, query, TriggerRun(2, True), run_id)
    assert (report.arm, report.model, report.label) == ("against", "haiku", "evals@haiku")
    assert seen == [("label", "haiku"), ("suite", "haiku")]
    assert report.trigger_set.model == "haiku"
