"""action.yml, parsed: a composite action whose steps run only the action's own scripts (or the package's commands
through them) and GitHub's own actions, whose every input is declared, used and documented, and whose scripts
call only plugin-eval commands that exist."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.cli.usage import USAGE

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
SCRIPTS = sorted((ROOT / "action").glob("*.sh"))
# The actions a step may use: GitHub's own.
USES = {
    "actions/setup-python@v5",
    "actions/cache/restore@v4",
    "actions/cache/save@v4",
    "actions/download-artifact@v4",
    "actions/upload-artifact@v4",
}
SCRIPT_RUN = re.compile(r'^bash "\$GITHUB_ACTION_PATH/action/([\w-]+\.sh)"$')
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def expressions() -> list[str]:
    return EXPRESSION.findall((ROOT / "action.yml").read_text(encoding="utf-8"))


def test_a_composite_action_with_a_name_and_a_description():
    assert ACTION["runs"]["using"] == "composite"
    assert ACTION["name"] and ACTION["description"]
    assert all(isinstance(step, dict) for step in STEPS)


@pytest.mark.parametrize("index", range(len(STEPS)))
def test_every_step_runs_a_script_of_the_action_or_uses_a_github_action(index):
    step = STEPS[index]
    assert ("run" in step) != ("uses" in step)
    if "uses" in step:
        assert step["uses"] in USES
        return
    assert step["shell"] == "bash"
    command = step["run"].strip()
    found = SCRIPT_RUN.match(command)
    assert found or command == 'exit "${STATUS:-1}"', command
    if found:
        assert (ROOT / "action" / found.group(1)).is_file()
    # A value reaches a script through env, never spliced into the command (no injection through an input).
    assert "${{" not in command


def test_every_input_used_is_declared_and_every_declared_one_is_used():
    declared = set(ACTION["inputs"])
    used = {m for e in expressions() for m in re.findall(r"inputs\.([\w-]+)", e)}
    assert used == declared


def test_every_input_has_a_description_and_a_default_and_is_documented():
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    for name, spec in ACTION["inputs"].items():
        assert spec.get("description"), name
        assert "default" in spec, name  # none is required: the action refuses with a message instead
        assert f"`{name}`" in docs, f"docs/ci.md does not document the input {name}"


def test_every_step_output_read_is_written_by_its_script():
    ids = {step["id"]: step for step in STEPS if "id" in step}
    for e in expressions():
        for step_id, output in re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e):
            script = SCRIPT_RUN.match(ids[step_id]["run"].strip())
            assert script, step_id
            text = (ROOT / "action" / script.group(1)).read_text(encoding="utf-8")
            assert f"{output}=" in text, f"{script.group(1)} never writes {output}"


def test_the_action_outputs_are_described():
    assert all(spec.get("description") and spec.get("value") for spec in ACTION["outputs"].values())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_scripts_parse_and_call_only_commands_plugin_eval_has(script):
    subprocess.run(["bash", "-n", str(script)], check=True)
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", str(script)], check=True)
    text = script.read_text(encoding="utf-8")
    for command in re.findall(r'"\$plugin_eval" ([\w-]+)', text):
        assert f"plugin-eval {command} " in USAGE, command
