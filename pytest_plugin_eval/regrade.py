"""`--regrade RESULTS_DIR`: today's graders over the runs stored in a results folder, without the agent.

A results folder keeps every run's trace, the files it created and the list of them. Regrading rebuilds each
run's output from those and grades it again with the case's current graders: free graders run locally, judges
are called, the agent is not. A grader can be fixed or tightened without paying for the agent again. File
targets see the files the run created (pre-existing scaffold files are not kept).
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import scoring
from .results import RunResult
from .transcript import RunOutput, Transcript

CREATED_FILES = "created-files.json"
MOCK_CALLS = "mock-calls.jsonl"


@dataclass(frozen=True)
class StoredRun:
    data: dict           # the run as the results document has it
    folder: Path         # its artefacts: trace.jsonl, files/, created-files.json

    @property
    def trace(self) -> Path:
        return self.folder / "trace.jsonl"


class StoredResults:
    """A results folder: its document, and its runs by (case dir, arm, index)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder).absolute()
        path = self.folder / "aggregate-result.json"
        try:
            self.document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"--regrade {folder}: no readable aggregate-result.json there ({e})") from None
        self.runs: dict[tuple[str, str, int], StoredRun] = {}
        for case in self.document.get("cases", []):
            for arm, runs in case["arms"].items():
                for position, run in enumerate(runs, start=1):
                    index = run.get("index", position)
                    self.runs[(case["dir"], arm, index)] = StoredRun(run, self._artefacts(run, case["dir"], arm, index))

    def _artefacts(self, run: dict, case_dir: str, arm: str, index: int) -> Path:
        trace = run.get("tracePath")
        if trace and Path(trace).parent.is_dir():
            return Path(trace).parent
        rel = Path(*Path(case_dir).parts[1:])  # the case folder below the eval dir
        return self.folder / "runs" / rel / f"{arm}-{index}"

    def runs_of(self, case_dir: str) -> list[tuple[str, int]]:
        """(arm, index) of the stored runs of one case, in order."""
        return sorted(((arm, index) for d, arm, index in self.runs if d == case_dir),
                      key=lambda key: (key[0] != "with", key[1]))


def stored_output(stored: StoredRun, arm: str) -> RunOutput:
    try:
        created = tuple(json.loads((stored.folder / CREATED_FILES).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        created = ()
    calls_file = stored.folder / MOCK_CALLS
    calls = None
    if calls_file.exists():
        calls = tuple(json.loads(line) for line in calls_file.read_text(encoding="utf-8").splitlines() if line.strip())
    return RunOutput(transcript=Transcript.from_file(stored.trace), cwd=stored.folder / "files",
                     created_files=created, arm=arm, mock_calls=calls)


def regrade_run(plan, stored: StoredRun) -> RunResult:
    """Grade a stored run with the plan's case's current graders. Runs that never reached the model stay
    ungraded, as they were."""
    from .runner import grade, judge_cost_of, score_of  # runner imports this module
    case, data = plan.case, stored.data
    plan.artefacts.mkdir(parents=True, exist_ok=True)
    trace = plan.artefacts / "trace.jsonl"
    if stored.trace.exists():
        shutil.copyfile(stored.trace, trace)
    if (stored.folder / "files").is_dir():
        shutil.copytree(stored.folder / "files", plan.artefacts / "files", dirs_exist_ok=True)
    for name in (CREATED_FILES, MOCK_CALLS):
        if (stored.folder / name).exists():
            shutil.copyfile(stored.folder / name, plan.artefacts / name)
    agent_cost = data.get("costUsd", 0.0) - data.get("judgeCostUsd", 0.0)
    result = RunResult(case=case.name, case_dir=case.rel_dir, arm=plan.arm, index=plan.index, score=None,
                       passed=False, turns=data.get("turns", 0), cost_usd=agent_cost,
                       duration_seconds=data.get("durationSeconds", 0.0), started_at=data.get("startedAt", ""),
                       error=data.get("error"), error_kind=data.get("errorKind"),
                       trace_path=str(trace) if trace.exists() else None, aborted=data.get("aborted"),
                       mocks=data.get("mocks"))
    if data.get("errorKind") in ("api", "auth", "start", "scaffold") or data.get("aborted") or not stored.trace.exists():
        result.score = data.get("score")  # it was never graded: it stays as it was
        return result
    outcomes = grade(scoring.graders_for(case.graders, plan.arm, plan.two_arm), stored_output(stored, plan.arm),
                     plan.judge)
    score, judge_cost = score_of(outcomes), judge_cost_of(outcomes)
    result.graders, result.score, result.passed = outcomes, score, score == 1.0
    result.judge_cost_usd, result.cost_usd = judge_cost, agent_cost + judge_cost
    return result
