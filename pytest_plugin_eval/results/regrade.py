"""`--regrade RESULTS_DIR`: today's graders over the runs stored in a results folder, without the agent.

A results folder keeps every run's trace, its working tree as it left it (what it created or modified first,
within a size budget), what it changed, and the list of the files it created (run.artefacts). Regrading rebuilds
each run's output from those and grades it again with the case's current graders: free graders run locally,
judges are called, the agent is not. A grader can be fixed or tightened without paying for the agent again, and
an unchanged one gives the run's verdict — file targets included. Folders kept before the working tree was
(no changes.json) hold only the created files, and regrade as they did.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..grade.engine import grade, graders_for
from ..load.case import Case
from ..run.artefacts import RunFolder
from .model import RunResult, SuiteResult
from .record import grader_results
from .scoring import judge_cost, run_score
from .store import ResultsFolder

# Runs that were never graded stay as they were.
UNGRADED_KINDS = ("api", "auth", "start", "scaffold")


@dataclass(frozen=True)
class StoredRun:
    run: RunResult  # the run as the results document has it
    folder: RunFolder  # its artefacts
    mocks_served: bool = True  # a run of its case had mock stand-ins (False: --mocks off, or nothing mocked)


class StoredResults:
    """A results folder: its document, and its runs by (case dir, arm, index)."""

    def __init__(self, folder: Path):
        self.folder = ResultsFolder(Path(folder).absolute())
        try:
            self.document: SuiteResult = self.folder.read()
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"--regrade {folder}: no readable aggregate-result.json there ({e})") from None
        self.runs: dict[tuple[str, str, int], StoredRun] = {}
        for case in self.document.cases:
            # The document does not say whether --mocks was off: a case's runs carry `mocks` when stand-ins ran.
            served = any(run.mocks is not None for run in case.runs())
            for run in case.runs():
                self.runs[(case.dir, run.arm, run.index)] = StoredRun(run, self._artefacts(run, case.dir), served)

    def _artefacts(self, run: RunResult, case_dir: str) -> RunFolder:
        if run.trace_path and Path(run.trace_path).parent.is_dir():
            return RunFolder(Path(run.trace_path).parent)
        in_eval_dir = str(Path(*Path(case_dir).parts[1:]))  # the case folder below the eval dir
        return self.folder.run_folder(in_eval_dir, run.arm, run.index)

    def runs_of(self, case_dir: str) -> list[tuple[str, int]]:
        """(arm, index) of the stored runs of one case, in order."""
        return sorted(
            ((arm, index) for d, arm, index in self.runs if d == case_dir), key=lambda key: (key[0] != "with", key[1])
        )


def regrade_run(case: Case, stored: StoredRun, two_arm: bool, judge: Any, artefacts: RunFolder) -> RunResult:
    """Grade a stored run with the case's current graders, keeping a copy of its artefacts in `artefacts`. Runs
    that never reached the model stay ungraded, as they were."""
    old = stored.run
    stored.folder.copy_to(artefacts)
    agent_cost = old.cost_usd - old.judge_cost_usd
    result = dataclasses.replace(
        old,
        cost_usd=agent_cost,
        judge_cost_usd=0.0,
        graders=[],
        trace_path=str(artefacts.trace) if artefacts.trace.exists() else None,
        skipped_paid_graders=False,
        workspace=None,
        attempts=1,
        reused=False,
        extra={},
    )
    if old.error_kind in UNGRADED_KINDS or old.aborted or not stored.folder.trace.exists():
        return result  # it was never graded: its score stays as it was
    with_only = case.mocks_all_shadow and stored.mocks_served  # as the run itself decided (run.execute)
    graded = grade(graders_for(case.graders, old.arm, two_arm, with_only), stored.folder.output(old.arm), judge)
    graders = grader_results(graded)
    score, cost = run_score(graders), judge_cost(graders)
    return dataclasses.replace(
        result, graders=graders, score=score, passed=score == 1.0, judge_cost_usd=cost, cost_usd=agent_cost + cost
    )
