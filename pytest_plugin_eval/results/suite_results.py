"""Where a suite's past sessions are kept: the results folder a plugin folder, an eval dir or a results folder names
(what `plugin-eval history` lists)."""

from __future__ import annotations

from pathlib import Path

from ..load.suite import eval_dir_name, is_plugin_dir
from .store import RESULTS_DIR


def results_dirs(target: Path, eval_dir: str | None = None) -> list[Path]:
    """The results folder(s) of a plugin folder (its eval dir's), an eval dir, or a results folder itself."""
    target = target.absolute()
    plugin = target if is_plugin_dir(target) else None
    evals = target / eval_dir_name(plugin, eval_dir) / RESULTS_DIR
    if evals.is_dir() or eval_dir:
        return [evals] if evals.is_dir() else []
    if (target / RESULTS_DIR).is_dir():
        return [target / RESULTS_DIR]
    if target.name == RESULTS_DIR and target.is_dir():
        return [target]
    return []
