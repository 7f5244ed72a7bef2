"""The pytest nodes of trigger evals: a trigger file collects into one item per query × run.

Node ids are anchored on the file: `evals/triggers.yaml::commit-message/rename-getuser[run-2]`, so `-k
commit-message` picks a skill's queries and `-k rename-getuser` one query. Each item is a with-plugin run of the
query as a case (load/triggers.py), held and stopped at the deciding call (run/trigger.py); its report carries a
TriggerReport to the controller, which reports each query's verdict as a test of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from ..core.paths import display_path
from ..load.case import Case
from ..load.suite import SKILL_FILE, enclosing_plugin
from ..load.triggers import TriggerLoadError, TriggerQuery, TriggerSet, query_case, skill_folder_files
from ..results.model import SuiteInfo
from ..results.trigger_runs import trigger_run_of
from ..results.triggers import QueryResult, TriggerRun, TriggerSetResult
from .collect import CaseFile, CaseLoadFailure, RunFailed, RunItem
from .options import TRIGGER_MARKER
from .state import get_session

TRIGGER_ATTR = "plugin_eval_trigger"  # on the call report of a trigger item


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
                for index in range(1, session.trigger_runs(trigger_set) + 1):
                    yield TriggerItem.from_parent(
                        self,
                        name=f"{case.name}[run-{index}]",
                        case=case,
                        arm="with",
                        index=index,
                        trigger_set=trigger_set,
                        query=query,
                    )


class TriggerItem(RunItem):
    """One run of one trigger query: fired, not fired, or an error that decides nothing."""

    def __init__(self, *, trigger_set: TriggerSet, query: TriggerQuery, **kwargs):
        super().__init__(**kwargs)
        self.trigger_set = trigger_set
        self.query = query
        self.trigger_run: TriggerRun | None = None
        self.add_marker(TRIGGER_MARKER)

    def runtest(self) -> None:
        try:
            super().runtest()
        finally:
            if self.result is not None:
                assert self.case.trigger is not None
                self.trigger_run = trigger_run_of(self.result, self.case.trigger)

    def run_report(self):
        return None  # its report is a TriggerReport (trigger_report)

    def trigger_report(self) -> dict | None:
        if self.trigger_run is None and self.result is not None:
            assert self.case.trigger is not None
            self.trigger_run = trigger_run_of(self.result, self.case.trigger)
        if self.trigger_run is None:
            return None
        session = get_session(self.config)
        return TriggerReport(
            eval_root=str(self.case.eval_root),
            label=session.suite_label(self.case.eval_root),
            trigger_set=set_header(self.trigger_set, session.options.model),
            query=QueryResult(self.query.id, self.query.query, self.query.should_fire),
            run=self.trigger_run,
            suite=session.suite_info(self.case),
            position=self.trigger_set.queries.index(self.query),
        ).to_json()

    def reportinfo(self):
        return self.path, None, f"{self.case.name} [trigger run {self.index}]"

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RunFailed) and self.trigger_run is not None:
            run = self.trigger_run
            lines = [f"{self.case.name} [trigger run {self.index}]: decided nothing", f"  error: {run.error}"]
            if run.trace_path:
                lines.append(f"  trace: {display_path(Path(run.trace_path))}")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style)

    def junit_names(self) -> list[str]:
        label = get_session(self.config).suite_label(self.case.eval_root)
        return [f"{label}.triggers.{self.trigger_set.name}", f"{self.query.id}-run-{self.index}"]

    def html_extras(self) -> list:
        return []


def set_header(trigger_set: TriggerSet, model_override: str | None) -> TriggerSetResult:
    skill = trigger_set.skill
    return TriggerSetResult(
        skill=skill.qualified_name,
        name=skill.name,
        kind=skill.kind,
        description=skill.description,
        file=trigger_set.rel_file,
        format=trigger_set.format,
        threshold=trigger_set.threshold,
        runs_per_query=trigger_set.runs,
        max_turns=trigger_set.max_turns,
        model=model_override or trigger_set.model,
    )


@dataclass
class TriggerReport:
    eval_root: str
    label: str
    trigger_set: TriggerSetResult  # the set's header (no queries)
    query: QueryResult  # the query's header (no runs)
    run: TriggerRun
    suite: SuiteInfo
    position: int = 0  # the query's place in its set

    def to_json(self) -> dict:
        header = self.trigger_set.to_json()
        query = self.query.to_json()
        return {
            "evalRoot": self.eval_root,
            "label": self.label,
            "set": header,
            "query": query,
            "run": self.run.to_json(),
            "notes": list(self.run.notes),
            "suite": self.suite.to_json(),
            "position": self.position,
        }

    @classmethod
    def from_json(cls, data: dict) -> TriggerReport:
        run = TriggerRun.from_json(data["run"])
        run.notes = list(data.get("notes", ()))
        return cls(
            eval_root=data["evalRoot"],
            label=data.get("label", ""),
            trigger_set=TriggerSetResult.from_json(data["set"]),
            query=QueryResult.from_json(data["query"]),
            run=run,
            suite=SuiteInfo.from_json(data["suite"]),
            position=data.get("position", 0),
        )


def is_trigger_case(case: Case) -> bool:
    return case.trigger is not None


class EvalDir(pytest.Directory):
    """A plugin's eval dir, which also collects the skill-creator trigger files kept in the plugin's skill
    folders: they belong to this suite (its results folder), not to an eval dir of their own."""

    def collect(self):
        yield from pytest.Dir.collect(self)  # its files, as pytest's own Dir collects them
        plugin = enclosing_plugin(self.path)
        if plugin is None or self.path.parent != plugin:
            return
        for path in skill_folder_files(plugin):
            yield TriggerFile.from_parent(self, path=path, eval_root=self.path)


def in_skill_folder(path: Path) -> bool:
    """A skill-creator file kept in a skill's folder (`<skill>/…` or `<skill>/evals/…`)."""
    return (path.parent / SKILL_FILE).is_file() or (
        path.parent.name == "evals" and (path.parent.parent / SKILL_FILE).is_file()
    )


def trigger_word(run: dict) -> str:
    """What pytest's line for a finished trigger run says."""
    if run.get("fired") is None:
        return f"decided nothing · {run.get('errorKind')}"
    consulted = f" ({run['skill']})" if run.get("skill") and not run.get("fired") else ""
    return ("fired" if run["fired"] else "not fired" + consulted) + f" · {run.get('decidedBy')}"
