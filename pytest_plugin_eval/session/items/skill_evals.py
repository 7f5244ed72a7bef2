"""The pytest nodes of skill-creator's output evals: an `evals/evals.json` in a skill's folder collects into one
run item per eval × arm × run, anchored on the file (`skills/csv-report/evals/evals.json::csv-report/1[with-plugin-2]`),
run and reported like a case folder's (load/skill_evals.py makes each eval a Case)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...load.skill_evals import EvalsLoadError, eval_cases, evals_files, read_evals
from ...load.suite import resolve_plugin
from .case import CaseFile, CaseLoadFailure, run_items


class EvalsFile(CaseFile):
    """A skill's evals.json; one that does not load is reported like a case that does not."""

    what = "skill-creator evals file"

    def collect(self):
        session = self.eval_session
        try:
            evals = read_evals(self.path, resolve_plugin(self.path.parent, self.eval_root))
            cases = eval_cases(evals, self.eval_root, session.grader_types(), scripted=session.options.scripted)
        except EvalsLoadError as e:
            self.load_error = e
            raise CaseLoadFailure(e) from None
        for case in cases:
            if not session.selected(case):
                continue
            yield from run_items(self, case, session.matrix_runs(case))


def collect(parent: pytest.Directory, plugin: Path, eval_root: Path):
    """The evals files of the plugin's skill folders, collected with its eval dir (whose results they share)."""
    for path in evals_files(plugin):
        yield EvalsFile.from_parent(parent, path=path, eval_root=eval_root)
