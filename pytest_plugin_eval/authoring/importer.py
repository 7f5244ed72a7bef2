"""`plugin-eval import [TARGET]`: skill-creator's `evals/evals.json` of each skill as case folders of ours.

Each eval becomes `<eval dir>/<skill>-<id>/`: `prompt.md` (the prompt, with its expected_output as the case's
`expected_outcome`), a `graders/<name>.md` llm grader per expectation (the rubric the evals.json case is judged
by), and its `files` copied into the case folder and listed under `context.files` in `case.yaml`, so that each run
finds them where the prompt says. When the skill has an `evals/scripted.yaml`, each case gets the scripted.yaml
its eval runs with under --scripted. Folders that exist are left as they are: nothing is overwritten. The case
folders give the verdicts the evals.json gives; from there an author can replace a judged expectation by a regex
or tool grader where it is mechanical — `plugin-eval check` says which look so (`mechanical_hint`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from ..core.paths import display_path
from ..core.yamlio import YamlError, load_yaml
from ..grade.types import grader_types
from ..load.graders import GRADERS_DIR
from ..load.script import SCRIPT_FILENAME
from ..load.skill_evals import (
    GRADER_FOCUS,
    SCRIPTED_FILE,
    EvalsFile,
    EvalsLoadError,
    SkillEval,
    criteria,
    eval_cases,
    evals_files,
    grader_names,
    read_evals,
)
from ..load.suite import plugin_eval_dir


def import_evals(root: Path, eval_dir: str | None = None) -> tuple[list[str], int]:
    """Write the case folders of every evals.json of the plugin at `root`; (lines to print, exit status)."""
    root = root.absolute()
    eval_root = plugin_eval_dir(root, eval_dir)
    paths = evals_files(root)
    if not paths:
        return [f"✗ {display_path(root)}: no skill of the plugin has an evals/evals.json"], 1
    lines, status = [], 0
    for path in paths:
        try:
            file = read_evals(path, root)
            scripts = _raw_scripts(path.parent / SCRIPTED_FILE)
            if scripts is not None:  # checked as a --scripted session would check it
                eval_cases(file, eval_root, grader_types(), scripted=True)
        except EvalsLoadError as e:
            lines += [f"✗ {p.render(root)}" for p in e.problems]
            status = 1
            continue
        for item in file.evals:
            folder = eval_root / f"{file.skill.name}-{item.id}"
            shown = display_path(folder, root) + "/"
            if folder.exists():
                lines.append(f"· {shown} exists: left as it is")
                continue
            write_case(folder, file, item, scripts)
            lines.append(
                f"✓ {shown}: prompt.md, {len(item.expectations)} grader(s)"
                + (f", {len(item.files)} file(s)" if item.files else "")
                + (f", {SCRIPT_FILENAME}" if scripts is not None else "")
            )
    if status == 0:
        lines.append(
            "The evals.json files still run as they are; remove them once the case folders replace them, or the "
            "evals run twice. `plugin-eval check` says which expectations a regex or tool grader could check."
        )
    return lines, status


def write_case(folder: Path, file: EvalsFile, item: SkillEval, scripts: dict | None) -> None:
    (folder / GRADERS_DIR).mkdir(parents=True)
    meta: dict = {"name": f"{file.skill.name}-{item.id}"}
    if item.name:
        meta["description"] = item.name
    if item.expected_output:
        meta["expected_outcome"] = item.expected_output
    if item.files:  # context lives in case.yaml; the name goes with it
        case_yaml = {"schema_version": "1.0", "name": meta.pop("name"), "context": {"files": list(item.files)}}
        (folder / "case.yaml").write_text(_yaml(case_yaml), encoding="utf-8")
        for rel in item.files:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file.skill_dir / rel, folder / rel)
    (folder / "prompt.md").write_text(f"---\n{_yaml(meta)}---\n{item.prompt}\n", encoding="utf-8")
    for name, text in zip(grader_names(item.expectations), item.expectations, strict=True):
        grader = f"---\ntype: llm\nfocus: {GRADER_FOCUS}\n---\n{criteria(text, item.expected_output)}\n"
        (folder / GRADERS_DIR / f"{name}.md").write_text(grader, encoding="utf-8")
    if scripts is not None:
        script = scripts.get(item.id) or scripts.get("default") or {}
        if not any(arm in script for arm in ("with", "without", "all")):
            script = {"all": [item.expected_output or "Done."], **script}
        (folder / SCRIPT_FILENAME).write_text(_yaml(script), encoding="utf-8")


def _raw_scripts(path: Path) -> dict | None:
    """The sibling scripted.yaml by eval id, as written (validated when the evals load with --scripted)."""
    if not path.is_file():
        return None
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YamlError):
        return {}
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def _yaml(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


# ---- which expectations look mechanical ----------------------------------------------------------------------
