"""A plugin whose only suite is skill-creator's files in its skill folders (`skills/<name>/evals/evals.json`,
`skills/<name>/trigger-eval.json`), with no eval dir of its own: those files are still its suite, collected from
the plugin folder, and their results go where the eval dir's would (`<eval dir>/results/`)."""

from __future__ import annotations

from pathlib import Path

from .suite import eval_dir_name, is_plugin_dir


def skill_folder_suite(plugin_root: Path) -> list[Path]:
    """The skill-creator files of the plugin's skill folders (trigger files, then output evals)."""
    from .skill_evals import evals_files
    from .trigger_files import skill_folder_files

    return [*skill_folder_files(plugin_root), *evals_files(plugin_root)]


def missing_eval_root(folder: Path, eval_dir: str | None) -> Path | None:
    """The eval dir `folder` would have, when `folder` is a plugin without one whose skill folders hold a suite."""
    if not is_plugin_dir(folder):
        return None
    eval_root = folder / eval_dir_name(folder, eval_dir)
    if eval_root.exists() or not skill_folder_suite(folder):
        return None
    return eval_root
