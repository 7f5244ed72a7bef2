"""What the controller has learnt from the reports so far: per eval dir, the cases with their runs, the load errors
and the runs not started; which run items each case has and which are done; and the session's notices. Plain
data, filled in by session/gatherer.py and read by documents.py."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..core.run_id import NODE_PARAMS
from ..results.model import CaseResult, LoadErrorEntry, RunResult, SkippedRun, SuiteInfo
from ..results.triggers import TriggerSetResult

# A run item's node id is <case file>::<case name>[with-plugin-2] (or [no-plugin-1]); in a model matrix
# <case file>::<case name>[<model>-with-plugin-2] (core/run_id.py).
RUN_PARAMS = NODE_PARAMS
SLOT_MODEL = "::["  # a case on one model of a matrix: <case file>::[<model>]


def case_file_of(nodeid: str) -> str | None:
    """The case file of a run item's node id (None for any other node id)."""
    return nodeid.split("::", 1)[0] if RUN_PARAMS.search(nodeid) else None


def case_slot_of(nodeid: str) -> str | None:
    """What a run item's case verdict is reported for: its case file, in a matrix with its model
    (`<case file>::[haiku]`). None for any other node id."""
    match = RUN_PARAMS.search(nodeid)
    if match is None:
        return None
    case_file = nodeid.split("::", 1)[0]
    return case_file if match["model"] is None else f"{case_file}{SLOT_MODEL}{match['model']}]"


def slot_file(slot: str) -> str:
    """The case file of a verdict's slot."""
    return slot.split(SLOT_MODEL, 1)[0]


def slot_model(slot: str) -> str | None:
    """The model (as node ids spell it) of a verdict's slot; None outside a matrix."""
    return slot.split(SLOT_MODEL, 1)[1][:-1] if SLOT_MODEL in slot else None


@dataclass
class SuiteRuns:
    """What the reports say about the cases of one eval dir."""

    eval_root: str
    model: str | None = None  # a model matrix's model whose runs these are (None: the session's one model)
    cases: dict[str, CaseResult] = field(default_factory=dict)  # case dir → the case, runs added
    load_errors: dict[str, LoadErrorEntry] = field(default_factory=dict)  # case dir → its load error
    skipped: list[SkippedRun] = field(default_factory=list)  # runs not started (cost ceiling)
    suite: SuiteInfo | None = None
    # (file, skill) → the trigger set, queries and runs added (session/trigger_gatherer.py)
    trigger_sets: dict[tuple[str, str], TriggerSetResult] = field(default_factory=dict)

    @property
    def collected_anything(self) -> bool:
        """Something was collected from this eval dir (else it gets no results folder, as with the reference
        tool)."""
        return bool(self.cases or self.load_errors or self.skipped or self.trigger_sets)

    @property
    def sorted_trigger_sets(self) -> list[TriggerSetResult]:
        return sorted(self.trigger_sets.values(), key=lambda s: (s.file, s.skill))


@dataclass
class Collected:
    """What the controller learns from the reports, per eval dir."""

    # (eval root, model) → its runs: a suite per eval dir, in a model matrix one per eval dir and model
    suites: dict[tuple[str, str | None], SuiteRuns] = field(default_factory=dict)
    # each notice once per what it is about: an eval dir (its plugin; in a matrix, every model's document of it: they
    # speak of the whole matrix), or None for the whole session (every document carries those)
    said: list[tuple[str, str | None]] = field(default_factory=list)
    models: tuple[str, ...] = ()  # the model matrix (--model A,B): each eval dir gets a suite per model

    def of(self, eval_root: str, model: str | None = None) -> SuiteRuns:
        """The suite of an eval dir (on one model of a matrix). An eval dir first seen in a matrix gets every
        model's suite at once, in the order of --model, whatever model's report came first."""
        if (eval_root, model) not in self.suites:
            for each in self.models if model is not None and self.models else (model,):
                self.suites.setdefault((eval_root, each), SuiteRuns(eval_root, each))
        return self.suites[(eval_root, model)]

    def of_every_model(self, eval_root: str) -> list[SuiteRuns]:
        """The eval dir's suites: one, or in a matrix one per model (what applies to every model goes in each)."""
        return [self.of(eval_root, model) for model in (self.models or (None,))]

    def notice(self, text: str, about: SuiteRuns | None = None) -> None:
        """Say `text` of the eval dir of the suite it is `about` (None: of the whole session)."""
        said = (text, None if about is None else about.eval_root)
        if said not in self.said:
            self.said.append(said)

    def notices_of(self, suite: SuiteRuns) -> list[str]:
        """What a suite's document says: the session's notices and its eval dir's, in the order they were said."""
        mine = {None, suite.eval_root}
        return list(dict.fromkeys(text for text, about in self.said if about in mine))

    @property
    def notices(self) -> list[str]:
        """Every notice of the session, each once, whatever it is about."""
        return list(dict.fromkeys(text for text, _ in self.said))

    @property
    def runs(self) -> list[RunResult]:
        return [run for suite in self.suites.values() for case in suite.cases.values() for run in case.runs()]


@dataclass
class CaseItems:
    """Which run items each case file has, which of them are done, and which case verdicts were reported."""

    expected: dict[str, set[str]] = field(default_factory=dict)  # case file → node ids of its runs
    done: dict[str, set[str]] = field(default_factory=dict)
    # case slot (case_slot_of) → (eval root, case dir, label, model)
    where: dict[str, tuple[str, str, str, str | None]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)

    def expect(self, nodeids) -> None:
        for nodeid in map(str, nodeids):
            case_file = case_slot_of(nodeid)
            if case_file is not None:
                self.expected.setdefault(case_file, set()).add(nodeid)

    def finished(self, nodeid: str) -> str | None:
        """The case file (a matrix: case slot) whose last run `nodeid` was, if it was."""
        case_file = case_slot_of(nodeid)
        if case_file is None or case_file not in self.expected:
            return None
        self.done.setdefault(case_file, set()).add(nodeid)
        return case_file if self.done[case_file] >= self.expected[case_file] else None


def merge_suite(a: SuiteInfo | None, b: SuiteInfo) -> SuiteInfo:
    """The first suite seen, with the plugins of later ones added."""
    if a is None:
        return b
    paths = {p.path for p in a.plugins}
    return dataclasses.replace(a, plugins=a.plugins + [p for p in b.plugins if p.path not in paths])
