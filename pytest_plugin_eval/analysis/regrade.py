"""`--regrade RESULTS_DIR`: today's graders over the runs stored in a results folder, without the agent.

A results folder keeps every run's trace, its working tree as it left it (what it created or modified first,
within a size budget), what it changed, and the list of the files it created (run.artefacts). Regrading rebuilds
each run's output from those and grades it again with the case's current graders: free graders run locally,
judges are called, the agent is not. A grader can be fixed or tightened without paying for the agent again, and
an unchanged one gives the run's verdict — file targets included. Folders kept before the working tree was
(no changes.json) hold only the created files, and regrade as they did.

Regrade reads the folder it is given and nothing else: a run's artefacts are `runs/<case in eval dir>/<arm>-<n>/`
under it, whatever the document's `tracePath` says (a copied or moved folder regrades its own copy). A run whose
trace is missing or unreadable cannot be regraded: it is a run error (`errorKind: "missing_artefacts"`), not
scored — never a pass with no graders, nor a failure of the plugin. A document that is not a results document is
refused before anything runs, with what is wrong and where (`results_folder_problem`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.kinds import Arm, ErrorKind
from ..core.run_id import RunId, run_folder_name
from ..grade.engine import GradingStopped, grade, graders_for
from ..load.case import Case
from ..results.jsonmap import json_kind
from ..results.matrix import matrix_folder_hint
from ..results.model import RunResult, SuiteResult
from ..results.record import grader_results
from ..results.scoring import judge_cost, run_score
from ..results.store import RESULTS_FILE, RUNS_DIR, ResultsFolder, document_problem
from ..results.triggers import TriggerRun
from ..run.artefacts import RunFolder
from ..run.output import RunOutput
from ..run.refusals import refused_tools

# Runs that were never graded stay as they were.
UNGRADED_KINDS = (
    "api",
    "auth",
    "start",
    "scaffold",
    "interrupted",
    "harness",
    "missing_artefacts",
    "sandbox",
    "tool_refused",  # --strict-tools: not scored when made, so not now either
)
MISSING: ErrorKind = "missing_artefacts"  # the errorKind of a run whose stored trace is missing or unreadable


@dataclass(frozen=True)
class StoredRun:
    run: RunResult  # the run as the results document has it
    folder: RunFolder  # its artefacts
    mocks_served: bool = True  # a run of its case had mock stand-ins (False: --mocks off, or nothing mocked)
    results: Path | None = None  # the results folder it is stored in (messages name files relative to it)


class StoredResults:
    """A results folder: its document, and its runs by `RunId` (its case named by its dir in the document,
    relative to the suite)."""

    def __init__(self, folder: Path, document: SuiteResult | None = None):
        """`document`: the folder's, already read and checked (else it is read here; ValueError if it is not a
        results document)."""
        self.folder = ResultsFolder(Path(folder).absolute())
        if document is None:
            problem = results_folder_problem(Path(folder))
            if problem is not None:
                raise ValueError(f"--regrade {folder}: {problem}")
            document = self.folder.read()
        self.document: SuiteResult = document
        self.runs: dict[RunId, StoredRun] = {}
        for case in self.document.cases:
            # The document does not say whether --mocks was off: a case's runs carry `mocks` when stand-ins ran.
            served = any(run.mocks is not None for run in case.runs())
            for run in case.runs():
                kept = self._artefacts(run, case.dir)
                self.runs[RunId(case.dir, run.arm, run.index)] = StoredRun(run, kept, served, self.folder.path)

    def _artefacts(self, run: RunResult, case_dir: str) -> RunFolder:
        """The run's folder in *this* results folder: runs/<case in eval dir>/<arm>-<n>/. The case folder below
        the eval dir is the case's `dir` without its leading part(s) (the eval dir, which may be nested): the one
        the stored tracePath ends with, else the first that exists, else the dir without its first part."""
        parts = Path(case_dir).parts
        below = [parts[k:] for k in range(len(parts)) if parts[k:]]  # longest first
        leaf = run_folder_name(run.arm, run.index)
        traced = Path(run.trace_path).parts if isinstance(run.trace_path, str) else ()
        for rel in below:
            if traced[-(len(rel) + 3) :] == (RUNS_DIR, *rel, leaf, "trace.jsonl"):
                return self.folder.run_folder(os.path.join(*rel), run.arm, run.index)
        for rel in below:
            folder = self.folder.run_folder(os.path.join(*rel), run.arm, run.index)
            if folder.path.is_dir():
                return folder
        return self.folder.run_folder(os.path.join(*(parts[1:] or parts)), run.arm, run.index)

    def trigger_runs(self, file: str, skill: str, query_id: str, arm: Arm = "with") -> list[TriggerRun]:
        """The stored runs of one trigger query on one arm (`with`, or `against`: its `againstRuns`), by its set's
        file relative to the suite and the skill's qualified name: a trigger run has no graders to apply again, so
        --regrade reports it as it was."""
        for trigger_set in self.document.triggers:
            if (trigger_set.file, trigger_set.skill) != (file, skill):
                continue
            for query in trigger_set.queries:
                if query.id == query_id:
                    return list(query.against_runs if arm == "against" else query.runs)
        return []

    def runs_of(self, case_dir: str) -> list[RunId]:
        """The stored runs of one case, in order: the with arm's first, then by index."""
        return sorted(
            (run for run in self.runs if run.case == case_dir), key=lambda run: (run.arm != "with", run.index)
        )


# ---- the document --------------------------------------------------------------------------------------------


def results_folder_problem(folder: Path, scripted: bool | None = None) -> str | None:
    """What keeps `folder` from being regraded — no document, one that is not JSON, or not a results document
    (the first wrong value, named by its path in the document), or runs made with --scripted regraded without it
    (their judges would ask a real model; checked when `scripted` says whether this session is) — or None."""
    path = Path(folder) / RESULTS_FILE
    if not path.is_file():
        hint = matrix_folder_hint(Path(folder)) or "name a results folder such as evals/results/<timestamp>"
        return f"no {RESULTS_FILE} there — {hint}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        return f"{RESULTS_FILE} cannot be read ({e})"
    except RecursionError:
        return f"{RESULTS_FILE} is nested too deeply to be a results document"
    except ValueError as e:  # json.JSONDecodeError says where: "line 12 column 5 (char 301)"
        return f"{RESULTS_FILE} is not valid JSON — truncated or damaged? ({e})"
    problem = document_problem(data) or regrade_problem(data)
    if problem is not None:
        said = "" if problem.startswith("not a results document") else "not a results document: "
        return f"{RESULTS_FILE} is {said}{problem}"
    try:
        SuiteResult.from_json(data)
    except Exception as e:  # whatever the shape checks above did not foresee
        return f"{RESULTS_FILE} is not a results document: {type(e).__name__}: {e}"
    if scripted is False and (data.get("suite") or {}).get("scripted"):
        return (
            "its runs were made with --scripted; regrade them with --scripted too, so that the judges answer from "
            "each case's scripted.yaml rather than a real model"
        )
    return None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def regrade_problem(data: dict[str, Any]) -> str | None:
    """What regrading needs of a results document beyond being one (results.store.document_problem, the one
    check of its shape, has passed): cases named, each in a folder inside the suite, runs numbered from 1 and each
    stored once — as `path: what is wrong`."""
    seen: set[RunId] = set()
    for i, case in enumerate(data.get("cases") or []):
        where = f"cases[{i}]"
        for key in ("name", "dir"):
            if key in case or key == "name":
                value = case.get(key)
                if not isinstance(value, str) or not value.strip():
                    return f"{where}.{key}: must be a non-empty string (got {json_kind(value)})"
        case_dir = str(case.get("dir", case["name"]))
        if Path(case_dir).is_absolute() or ".." in Path(case_dir).parts:
            return f"{where}.dir: must be a folder relative to the suite, with no .. (got {case_dir!r})"
        for arm, runs in (case.get("arms") or {}).items():
            for n, run in enumerate(runs or [], 1):
                problem = run_problem(run)
                if problem is not None:
                    return f"{where}.arms.{arm}[{n - 1}]{problem}"
                stored = RunId(case_dir, arm, int(run.get("index", n)))
                if stored in seen:
                    return f"{where}.arms.{arm}[{n - 1}].index: run {stored.index} of the {arm} arm appears twice"
                seen.add(stored)
    return None


def run_problem(run: Any) -> str | None:
    """`.key: what is wrong` for the first field of a stored run regrading cannot use, or None (the run's shape
    is results.store.document_problem's to check)."""
    index = run.get("index", 1)
    if isinstance(index, bool) or not isinstance(index, int) or index < 1:
        return f".index: must be a whole number ≥ 1 (got {json_kind(index)} {index!r})"
    for key in ("score", "costUsd", "judgeCostUsd", "durationSeconds"):
        value = run.get(key)
        if value is not None and not _number(value):
            return f".{key}: must be a number or null (got {json_kind(value)})"
    for key in ("error", "errorKind", "tracePath", "startedAt"):
        value = run.get(key)
        if value is not None and not isinstance(value, str):
            return f".{key}: must be a string or null (got {json_kind(value)})"
    for key in ("aborted", "mocks"):
        value = run.get(key)
        if value is not None and not isinstance(value, dict):
            return f".{key}: must be an object or null (got {json_kind(value)})"
    for key in ("turns", "attempts"):
        value = run.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return f".{key}: must be a whole number (got {json_kind(value)})"
    for g, grader in enumerate(run.get("graders") or []):
        if not isinstance(grader.get("name"), str) or "passed" not in grader:
            return f".graders[{g}]: needs a name (a string) and passed"
    return None


# ---- one run -------------------------------------------------------------------------------------------------


def artefacts_problem(stored: StoredRun) -> str | None:
    """Why the stored run's artefacts cannot be graded — its trace missing, unreadable, or not a trace — or None."""
    folder, old = stored.folder, stored.run
    trace = folder.trace
    shown = os.path.relpath(trace, stored.results) if stored.results is not None else str(trace)
    if not trace.is_file():
        return f"{shown} is missing — the run cannot be regraded"
    try:
        text = trace.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return f"{shown} cannot be read ({e})"
    lines = [(number, line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
    if not lines:
        # A child that crashed or timed out before it said anything leaves an empty trace; a finished run cannot.
        return None if old.error_kind in ("crash", "timeout") else f"{shown} is empty"
    for position, (number, line) in enumerate(lines, 1):
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            event = None
        if not isinstance(event, dict):
            if position == len(lines) > 1 and old.error_kind is not None:
                continue  # a child stopped mid-line (a timeout, a crash) leaves half a last line
            return f"{shown} is not a Claude Code trace: line {number} is not a JSON object"
    return None


def regrade_run(
    case: Case,
    stored: StoredRun,
    two_arm: bool,
    judge: Any,
    artefacts: RunFolder,
    stop: Any = None,
    judge_allowed: Callable[[], bool] = lambda: True,
) -> RunResult:
    """Grade a stored run with the case's current graders, keeping a copy of its artefacts in `artefacts`. Runs
    that never reached the model stay ungraded, as they were; a run whose artefacts are missing or unreadable is
    a `missing_artefacts` error (not scored); one the harness fails on is a `harness` error. `stop` (a
    threading.Event) set while grading leaves the run `interrupted`. `judge_allowed()` false (the session's cost
    ceiling, for a reused run) skips a paid grader as it would begin, as a fresh run's are skipped."""
    old = stored.run
    agent_cost = old.cost_usd - old.judge_cost_usd
    result = dataclasses.replace(
        old,
        cost_usd=agent_cost,
        judge_cost_usd=0.0,
        graders=[],
        trace_path=None,
        skipped_paid_graders=False,
        workspace=None,
        attempts=1,
        reused=False,
        extra={},
    )
    try:
        if stored.folder.path.is_dir():
            stored.folder.copy_to(artefacts)
        result.trace_path = str(artefacts.trace) if artefacts.trace.exists() else None
        if old.error_kind in UNGRADED_KINDS or old.aborted:
            return result  # it was never graded: its score stays as it was
        problem = artefacts_problem(stored)
        output: RunOutput | None = None
        if problem is None:
            try:  # what the graders read, rebuilt from the kept files
                output = stored.folder.output(old.arm)
            except (OSError, ValueError, RecursionError) as e:
                problem = f"its kept files cannot be read ({type(e).__name__}: {e})"
        if problem is not None or output is None:
            return dataclasses.replace(result, score=None, passed=False, error=problem, error_kind=MISSING)
        with_only = case.mocks_all_shadow and stored.mocks_served  # as the run itself decided (run.execute)
        specs = graders_for(case.graders, old.arm, two_arm, with_only)
        graded = grade(specs, output, judge, judge_allowed, stop=stop)
    except GradingStopped:
        return dataclasses.replace(
            result,
            score=None,
            passed=False,
            error="interrupted: the session was stopped while the run was regraded",
            error_kind="interrupted",
        )
    except Exception as e:  # a harness fault must not lose the run, nor pass for the plugin's failure
        frames = traceback.extract_tb(e.__traceback__)
        where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno}, in {frames[-1].name})" if frames else ""
        message = f"harness error: {type(e).__name__}: {e}{where}"
        return dataclasses.replace(result, score=None, passed=False, error=message, error_kind="harness")
    graders = grader_results(graded)
    score, cost = run_score(graders), judge_cost(graders)
    return dataclasses.replace(
        result,
        graders=graders,
        score=score,
        passed=score == 1.0,
        judge_cost_usd=cost,
        cost_usd=agent_cost + cost,
        skipped_paid_graders=any(g.skipped for g in graders),
        refused_tools=refused_tools(output.transcript),  # read again: a document older than refusedTools gets them
    )
