"""What travels on pytest reports from the process that ran an item to the controller: plain JSON, so that it
crosses pytest-xdist's channel unchanged. One run's report carries the run, its case's header, the suite it
belongs to and the notices it raised; a collection report carries a load error; a skipped item its record."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..results.model import CaseResult, LoadErrorEntry, RunResult, SkippedRun, SuiteInfo
from ..results.triggers import QueryResult, TriggerRun, TriggerSetResult

RUN_ATTR = "plugin_eval"  # on the call report of a run item
SKIP_ATTR = "plugin_eval_skip"  # on the report of a run the cost ceiling kept from starting
UNNEEDED_ATTR = "plugin_eval_unneeded"  # --runs auto: on the report of a run its case did not need (the reason)
LOAD_ERROR_ATTR = "plugin_eval_load_error"  # on the collection report of a case that did not load
TRIGGER_ATTR = "plugin_eval_trigger"  # on the call report of a trigger run


@dataclass
class RunReport:
    case: CaseResult  # the case's header (no runs)
    run: RunResult
    suite: SuiteInfo  # root, ablation and plugins of the case's suite
    eval_root: str
    label: str = ""  # the plugin's name, as JUnit and the terminal name the suite
    notices: list[str] = field(default_factory=list)
    model: str | None = None  # a model matrix's model of the run (None: the session's one model)

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "label": self.label,
            "case": self.case.header_json(),
            "arm": self.run.arm,
            "run": self.run.to_json(),
            "notes": list(self.run.notes),
            "suite": self.suite.to_json(),
            "evalRoot": self.eval_root,
            "notices": list(self.notices),
        }

    @classmethod
    def from_json(cls, data: dict) -> RunReport:
        run = RunResult.from_json(data["run"], data["arm"])
        run.notes = list(data.get("notes", ()))
        return cls(
            case=CaseResult.header_from_json(data["case"]),
            run=run,
            suite=SuiteInfo.from_json(data["suite"]),
            eval_root=data["evalRoot"],
            label=data.get("label", ""),
            notices=list(data.get("notices", ())),
            model=data.get("model"),
        )


@dataclass
class LoadErrorReport:
    entry: LoadErrorEntry
    eval_root: str

    def to_json(self) -> dict:
        return {"entry": self.entry.to_json(), "evalRoot": self.eval_root}

    @classmethod
    def from_json(cls, data: dict) -> LoadErrorReport:
        return cls(LoadErrorEntry.from_json(data["entry"]), data["evalRoot"])


@dataclass
class SkipReport:
    run: SkippedRun
    eval_root: str
    model: str | None = None

    def to_json(self) -> dict:
        return {"run": self.run.to_json(), "evalRoot": self.eval_root, "model": self.model}

    @classmethod
    def from_json(cls, data: dict) -> SkipReport:
        return cls(SkippedRun.from_json(data["run"]), data["evalRoot"], data.get("model"))


@dataclass
class TriggerReport:
    """A trigger run, with its set's and its query's headers (their other runs are on other reports)."""

    eval_root: str
    label: str
    trigger_set: TriggerSetResult  # the set's header (no queries)
    query: QueryResult  # the query's header (no runs)
    run: TriggerRun
    suite: SuiteInfo
    position: int = 0  # the query's place in its set
    model: str | None = None  # a model matrix's model of the run
    arm: str = "with"  # against: a run of --against's version

    def to_json(self) -> dict:
        header = self.trigger_set.to_json()
        query = self.query.to_json()
        return {
            "arm": self.arm,
            "model": self.model,
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
            model=data.get("model"),
            arm=data.get("arm", "with"),
        )
