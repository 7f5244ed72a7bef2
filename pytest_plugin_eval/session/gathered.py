"""What the controller has learnt from the reports so far: per eval dir, the cases with their runs, the load errors
and the runs not started; which run items each case has and which are done; and the session's notices. Plain
data, filled in by gather.py and read by documents.py."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from ..results.model import CaseResult, LoadErrorEntry, RunResult, SkippedRun, SuiteInfo
from ..results.triggers import TriggerSetResult

# A run item's node id is <case file>::<case name>[with-plugin-2] (or [no-plugin-1]).
RUN_PARAMS = re.compile(r"\[(?:with-plugin|no-plugin)-\d+\]$")


def case_file_of(nodeid: str) -> str | None:
    """The case file of a run item's node id (None for any other node id)."""
    return nodeid.split("::", 1)[0] if RUN_PARAMS.search(nodeid) else None


@dataclass
class SuiteRuns:
    """What the reports say about the cases of one eval dir."""

    eval_root: str
    cases: dict[str, CaseResult] = field(default_factory=dict)  # case dir → the case, runs added
    load_errors: dict[str, LoadErrorEntry] = field(default_factory=dict)  # case dir → its load error
    skipped: list[SkippedRun] = field(default_factory=list)  # runs not started (cost ceiling)
    suite: SuiteInfo | None = None
    # (file, skill) → the trigger set, queries and runs added (trigger_gather.py)
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

    suites: dict[str, SuiteRuns] = field(default_factory=dict)  # eval root → its runs
    notices: list[str] = field(default_factory=list)

    def of(self, eval_root: str) -> SuiteRuns:
        return self.suites.setdefault(eval_root, SuiteRuns(eval_root))

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    @property
    def runs(self) -> list[RunResult]:
        return [run for suite in self.suites.values() for case in suite.cases.values() for run in case.runs()]


@dataclass
class CaseItems:
    """Which run items each case file has, which of them are done, and which case verdicts were reported."""

    expected: dict[str, set[str]] = field(default_factory=dict)  # case file → node ids of its runs
    done: dict[str, set[str]] = field(default_factory=dict)
    where: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # case file → (eval root, case dir, label)
    reported: set[str] = field(default_factory=set)

    def expect(self, nodeids) -> None:
        for nodeid in map(str, nodeids):
            case_file = case_file_of(nodeid)
            if case_file is not None:
                self.expected.setdefault(case_file, set()).add(nodeid)

    def finished(self, nodeid: str) -> str | None:
        """The case file whose last run `nodeid` was, if it was."""
        case_file = case_file_of(nodeid)
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
