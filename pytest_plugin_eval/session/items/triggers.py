"""The pytest nodes of trigger evals: a trigger file collects into one item per query × run.

Node ids are anchored on the file: `evals/triggers.yaml::commit-message/rename-getuser[run-2]`, so `-k
commit-message` picks a skill's queries and `-k rename-getuser` one query; in a model matrix the model comes
first, `…/rename-getuser[haiku-run-2]`. Each item is a with-plugin run of the
query as a case (load/triggers.py), held and stopped at the deciding call (run/trigger.py); its report carries a
TriggerReport to the controller, which reports each query's verdict as a test of its own.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ...core.kinds import Arm
from ...core.paths import display_path
from ...core.problems import Problem
from ...core.run_id import RunId
from ...engine import rules, wire
from ...engine.options import TRIGGER_MARKER
from ...engine.pool import Outcome
from ...engine.trigger_outcomes import report_of
from ...load.case import PROMPT_FILE, CaseLoadError
from ...load.skill_suites import missing_eval_root
from ...load.stray import stray_folders
from ...load.suite import enclosing_plugin
from ...load.trigger_files import skill_folder_files
from ...load.triggers import TriggerLoadError, TriggerQuery, TriggerSet, query_case
from ...results.matrix import case_models
from ...results.trigger_runs import trigger_run_of
from ...results.triggers import TriggerRun, undecidable_notice
from ..eval_session import get_session
from . import skill_evals
from .case import CaseFile, CaseLoadFailure, RunFailed, RunItem, run_items


class TriggerFile(CaseFile):
    """A trigger file (ours or skill-creator's); one that does not load is reported like a case that does not."""

    what = "trigger file"

    def collect(self):
        session = get_session(self.config)
        try:
            sets = session.load_triggers(self.path, self.eval_root)
        except TriggerLoadError as e:
            self.load_error = e
            raise CaseLoadFailure(e) from None
        for trigger_set in sets:
            for query in trigger_set.queries:
                case = query_case(trigger_set, query, scripted=session.options.scripted)
                if not session.selected(case):
                    continue
                models = case_models(trigger_set.models, session.matrix_models)
                yield from run_items(
                    self,
                    case,
                    [
                        replace(run, model=model)
                        for run in trigger_runs(session, trigger_set, query, case)
                        for model in models
                    ],
                    item=TriggerItem,
                    params=lambda run: f"against-run-{run.index}" if run.arm == "against" else f"run-{run.index}",
                    structured_id=False,
                    trigger_set=trigger_set,
                    query=query,
                )


ARMS: tuple[Arm, ...] = ("with", "against")  # a query's arms: this version, and --against's


def trigger_runs(session, trigger_set: TriggerSet, query: TriggerQuery, case) -> list[RunId]:
    """A query's runs (on the session's model) by index: as many as its set asks for with the plugin, and as many
    with --against's version of it (then → now); with --regrade those stored on either arm (reported as they
    were)."""
    if session.stored is not None:
        rel_file, skill = trigger_set.rel_file, trigger_set.skill.qualified_name
        stored = [
            RunId.of(case.dir, arm, run.index)
            for arm in ARMS
            for run in session.stored.trigger_runs(rel_file, skill, query.id, arm)
        ]
        return sorted(stored, key=lambda run: (run.index, ARMS.index(run.arm)))
    arms = ARMS if session.options.against and case.plugin_dirs else ARMS[:1]
    runs = range(1, rules.trigger_runs(trigger_set, session.options) + 1)
    return [RunId.of(case.dir, arm, index) for index in runs for arm in arms]


class TriggerItem(RunItem):
    """One run of one trigger query: fired, not fired, or an error that decides nothing."""

    def __init__(self, *, trigger_set: TriggerSet, query: TriggerQuery, **kwargs):
        super().__init__(**kwargs)
        self.trigger_set = trigger_set
        self.query = query
        self._trigger_run: TriggerRun | None = None
        self.add_marker(TRIGGER_MARKER)

    @property
    def trigger_run(self) -> TriggerRun | None:
        """The run as a trigger run (what its kept trace decides), once it has been made."""
        if self._trigger_run is None and self.result is not None:
            assert self.case.trigger is not None
            self._trigger_run = trigger_run_of(self.result, self.case.trigger)
        return self._trigger_run

    def execute(self, upcoming: pytest.Item | None) -> Outcome:
        if get_session(self.config).stored is not None:
            return Outcome()  # --regrade: a trigger run has no graders to apply again (runtest reports it as it was)
        return super().execute(upcoming)

    def runtest(self) -> None:
        session = get_session(self.config)
        if session.stored is None:
            return super().runtest()
        rel_file, skill = self.trigger_set.rel_file, self.trigger_set.skill.qualified_name
        stored = session.stored.trigger_runs(rel_file, skill, self.query.id, self.arm)
        self._trigger_run = next(run for run in stored if run.index == self.index)
        return None

    def run_report(self):
        return None  # its report is a TriggerReport (trigger_report)

    def carried(self) -> dict[str, Any]:
        trigger = self.trigger_report()
        return {wire.TRIGGER_ATTR: trigger} if trigger is not None else super().carried()

    def trigger_report(self) -> dict | None:
        if self.trigger_run is None:
            return None
        session = get_session(self.config)
        said = list(self.trigger_set.findings)  # a slash-command query left out of the set
        if session.stored is None:  # runs too few to ever decide
            runs = rules.trigger_runs(self.trigger_set, session.options)
            said.append(undecidable_notice(self.trigger_set.name, runs, self.trigger_set.threshold) or "")
        self.trigger_run.notes += [n for n in said if n and n not in self.trigger_run.notes]
        return report_of(session, self.trigger_set, self.query, self.trigger_run, self.run_id).to_json()

    def reportinfo(self):
        on = f" on {self.model}" if self.model is not None else ""
        return self.path, None, f"{self.case.name} [trigger run {self.index}{on}]"

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RunFailed) and self.trigger_run is not None:
            run = self.trigger_run
            lines = [f"{self.case.name} [trigger run {self.index}]: decided nothing", f"  error: {run.error}"]
            if run.trace_path:
                lines.append(f"  trace: {display_path(Path(run.trace_path))}")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style)

    def junit_names(self) -> list[str]:
        label = get_session(self.config).suite_label(self.case.eval_root, self.model)
        return [f"{label}.triggers.{self.trigger_set.name}", f"{self.query.id}-run-{self.index}"]

    def html_extras(self) -> list:
        return []


class EvalDir(pytest.Directory):
    """A plugin's eval dir, which also collects the skill-creator files kept in the plugin's skill folders (trigger
    files, output evals): they belong to this suite (its results folder), not to an eval dir of their own."""

    def collect(self):
        # Its files, as pytest's own Dir collects them (Dir.collect reads only what every Directory has).
        yield from pytest.Dir.collect(self)  # type: ignore[arg-type]
        for problem in stray_folders(self.path):  # a folder with a case's parts but no prompt.md: said, not lost
            assert problem.file is not None
            yield StrayFolder.from_parent(self, path=problem.file / PROMPT_FILE, eval_root=self.path, problem=problem)
        plugin = enclosing_plugin(self.path)
        if plugin is None or self.path.parent != plugin:
            return
        yield from skill_folder_items(self, plugin, self.path)


class StrayFolder(CaseFile):
    """A folder of the eval dir with a case's parts but neither prompt.md nor case.yaml: a case that does not load
    (a collection error and a `loadErrors` entry), anchored on the prompt.md it lacks."""

    def __init__(self, *, problem: Problem, **kwargs):
        super().__init__(**kwargs)
        self.problem = problem

    def collect(self):
        self.load_error = CaseLoadError(self.path.parent, [self.problem])
        raise CaseLoadFailure(self.load_error)


class SkillSuiteDir(pytest.Directory):
    """A plugin folder with no eval dir whose skill folders hold skill-creator files: they are its suite, with the
    results folder the eval dir would have (load/skill_suites.py)."""

    eval_root: Path

    def collect(self):
        yield from pytest.Dir.collect(self)  # type: ignore[arg-type]
        yield from skill_folder_items(self, self.path, self.eval_root)


def skill_folder_items(parent: pytest.Directory, plugin: Path, eval_root: Path):
    """The trigger files and output evals (evals/evals.json) of the plugin's skill folders."""
    for path in skill_folder_files(plugin):
        yield TriggerFile.from_parent(parent, path=path, eval_root=eval_root)
    yield from skill_evals.collect(parent, plugin, eval_root)


def collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """The trigger sets of a trigger file in an eval dir (those in a skill's folder come with its suite: EvalDir)."""
    eval_root = get_session(parent.config).trigger_file_root(file_path)
    if eval_root is None:
        return None
    return TriggerFile.from_parent(parent, path=file_path, eval_root=eval_root)


def eval_dir(path: Path, parent: pytest.Collector) -> pytest.Directory | None:
    """An eval dir (not a Python package) is collected by EvalDir."""
    session = get_session(parent.config)
    if session.eval_root(path) == path and not (path / "__init__.py").exists():
        return EvalDir.from_parent(parent, path=path)
    virtual = missing_eval_root(path, session.options.eval_dir)
    if virtual is not None and virtual in session.eval_roots:
        folder = SkillSuiteDir.from_parent(parent, path=path)
        folder.eval_root = virtual
        return folder
    return None
