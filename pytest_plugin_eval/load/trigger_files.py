"""Where a suite's trigger files are: one set of rules that the pytest collection (file by file, through its
hooks) and `plugin-eval check` (walking the eval dir, `find_trigger_files`) both follow, so check loads exactly the
sets a session runs."""

from __future__ import annotations

import os
from pathlib import Path

from .case import is_case_dir
from .skills import components_of
from .suite import NOT_CASE_DIRS, RESERVED_DIR, SKILL_FILE, is_skill_evals_folder

YAML_NAME = "triggers.yaml"
YAML_SUFFIX = ".triggers.yaml"
JSON_NAMES = ("trigger-eval.json", "trigger-evals.json", "trigger_eval.json", "trigger_evals.json")


def is_trigger_file(path: Path) -> bool:
    return path.name == YAML_NAME or path.name.endswith(YAML_SUFFIX) or path.name in JSON_NAMES


def skill_folder_of(path: Path) -> Path | None:
    """The skill folder holding `path`, directly or in its `evals/` (where skill-creator keeps its files)."""
    if path.parent.name == "evals":  # a skill's own evals/, not the plugin's eval dir beside a root SKILL.md
        return path.parent.parent if is_skill_evals_folder(path.parent) else None
    return path.parent if (path.parent / SKILL_FILE).is_file() else None


def skill_folder_files(plugin_root: Path) -> list[Path]:
    """skill-creator files kept in a skill's folder (`<skill>/trigger-eval.json`, `<skill>/evals/…`)."""
    found = []
    for component in components_of(plugin_root):
        if component.kind != "skill":
            continue
        folders = [component.path.parent]
        if is_skill_evals_folder(component.path.parent / "evals"):  # at the root, evals/ is the eval dir
            folders.append(component.path.parent / "evals")
        for folder in folders:
            found += [folder / name for name in JSON_NAMES if (folder / name).is_file()]
    return found


def skipped_folder(folder: Path) -> bool:
    """A folder below an eval dir that is never searched for cases or trigger files."""
    return folder.name in NOT_CASE_DIRS or folder.name == RESERVED_DIR


def in_eval_dir_walk(path: Path) -> bool:
    """A trigger file that the eval dir's own walk collects: not a case's file, and not a skill-creator file in a
    skill's folder (those come with their plugin's suite: `skill_folder_files`)."""
    return is_trigger_file(path) and not is_case_dir(path.parent) and skill_folder_of(path) is None


def find_trigger_files(plugin_root: Path, eval_root: Path) -> list[Path]:
    """The suite's trigger files, as a session collects them: the eval dir's, then those in skill folders."""
    found = []
    for folder, subdirs, names in os.walk(eval_root):
        subdirs[:] = sorted(d for d in subdirs if not skipped_folder(Path(folder) / d))
        found += [Path(folder) / n for n in sorted(names) if in_eval_dir_walk(Path(folder) / n)]
    return found + skill_folder_files(plugin_root)
