"""Folders of an eval dir that look like a case but are none: they hold a case's parts (graders/, scripted.yaml)
and neither prompt.md nor case.yaml (a misnamed `prompt.txt`), so nothing of them would run. A session reports
each as a case that does not load, as `plugin-eval check` does; never a silent loss."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.problems import Problem
from .case import CASE_FILE, PROMPT_FILE, is_case_dir
from .graders import GRADERS_DIR
from .script import SCRIPT_FILENAME
from .suite import NOT_CASE_DIRS, RESERVED_DIR


def stray_folders(eval_root: Path) -> list[Problem]:
    """One problem per such folder, naming the file the case needs (and a near name found instead)."""
    out = []
    for folder, subdirs, files in os.walk(eval_root):
        here = Path(folder)
        subdirs[:] = sorted(d for d in subdirs if d not in NOT_CASE_DIRS and not d.startswith("."))
        if here != eval_root and here.name == RESERVED_DIR:
            subdirs[:] = []
            continue
        if is_case_dir(here):
            subdirs[:] = [d for d in subdirs if d != GRADERS_DIR]
            continue
        if GRADERS_DIR in subdirs or SCRIPT_FILENAME in files:
            near = sorted(f for f in files if f.lower().startswith("prompt") and f != PROMPT_FILE)
            found = f" ({near[0]} is not read: rename it {PROMPT_FILE})" if near else ""
            out.append(
                Problem(
                    here,
                    "",
                    f"is not a case (no {PROMPT_FILE} or {CASE_FILE}), so its graders never run — write the prompt "
                    f"in {PROMPT_FILE}{found}",
                )
            )
            subdirs[:] = [d for d in subdirs if d != GRADERS_DIR]
    return out
