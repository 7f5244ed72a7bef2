"""The one walk of a suite on disk, outside a pytest session: every case folder of the eval dir, the evals.json
files of the plugin's skills and its trigger files, each loaded or its load error kept with where it was read.
`plugin-eval check` and `tune` read a suite through it; a session collects the same files as pytest items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .case import Case, CaseLoadError, find_case_dirs, load_case
from .graders import GraderKind
from .skill_evals import eval_cases, evals_files, read_evals
from .trigger_files import find_trigger_files
from .triggers import TriggerLoadError, TriggerSet, load_trigger_file


@dataclass
class SuiteOnDisk:
    """What the walk found. `where`: a case's folder, or the evals.json it is read from."""

    root: Path
    eval_root: Path
    cases: list[tuple[Case, Path]] = field(default_factory=list)
    case_errors: list[tuple[Path, CaseLoadError]] = field(default_factory=list)
    trigger_files: list[tuple[Path, list[TriggerSet]]] = field(default_factory=list)
    trigger_errors: list[tuple[Path, TriggerLoadError]] = field(default_factory=list)

    @property
    def trigger_sets(self) -> list[TriggerSet]:
        return [s for _, sets in self.trigger_files for s in sets]


def read_suite(
    root: Path,
    eval_root: Path,
    kinds: Mapping[str, GraderKind] | None,
    trigger_skill: str | None = None,
) -> SuiteOnDisk:
    """Load the suite of the plugin at `root` whose eval dir is `eval_root`: its cases with the grader types
    `kinds` (None: the trigger files alone), and its trigger files (`trigger_skill`: the skill of skill-creator
    trigger entries that name none)."""
    suite = SuiteOnDisk(root, eval_root)
    if kinds is not None:
        for case_dir in find_case_dirs(eval_root):
            try:
                suite.cases.append((load_case(case_dir, eval_root, kinds), case_dir))
            except CaseLoadError as e:
                suite.case_errors.append((case_dir, e))
        # skill-creator's evals.json files in the skill folders are cases of the suite too, as a session collects them
        for path in evals_files(root):
            try:
                suite.cases += [(case, path) for case in eval_cases(read_evals(path, root), eval_root, kinds)]
            except CaseLoadError as e:
                suite.case_errors.append((path, e))
    for path in find_trigger_files(root, eval_root):
        try:
            suite.trigger_files.append((path, load_trigger_file(path, eval_root, trigger_skill)))
        except TriggerLoadError as e:
            suite.trigger_errors.append((path, e))
    return suite
