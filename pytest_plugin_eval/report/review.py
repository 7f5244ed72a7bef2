"""The review page's view: every run of a results folder, one shown at a time, with what a person needs to label
each grader verdict — the prompt, the transcript as a conversation, the files the run left, each grader's verdict
with the judge's votes, reasons and the rubric — and the data the page's script works from (the runs, the labels
so far, where to save them).

The page's script keeps the labels: in `server` mode it sends each change to `plugin-eval review`'s server
(publish/review_server.py), which writes labels.json; in `static` mode (`--export`) it keeps them in the browser's local
storage and offers them as a labels.json download. Either way the file is read by results.labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..results.labels import JUDGED_TYPES, Labels, rubric_hash
from ..results.model import CaseResult, GraderInfo, RunResult, SuiteResult
from ..run.artefacts import RunFolder
from .conversation import Trace, trace
from .page import GraderVerdict, grader_verdict
from .view import cut, score

FILE_CHARS = 20_000  # one file's text shown on the page
FILES_SHOWN = 40  # files listed per run
Mode = Literal["server", "static"]


@dataclass(frozen=True)
class RunFile:
    path: str
    text: str | None  # None: binary, or too large to show
    note: str = ""


@dataclass(frozen=True)
class ReviewGrader:
    verdict: GraderVerdict
    type: str
    judged: bool
    rubric: str | None


@dataclass(frozen=True)
class ReviewRun:
    id: str  # the element id: run-<n>
    case: str
    arm: str
    index: int
    passed: bool
    title: str
    facts: str
    error: str | None
    prompt: str
    graders: list[ReviewGrader]
    files: list[RunFile]
    files_note: str
    transcript: Trace


@dataclass(frozen=True)
class ReviewPage:
    title: str
    folder: str
    mode: Mode
    runs: list[ReviewRun]
    cases: list[str]
    data: str  # the script's data, JSON (escaped for a <script> element)


def run_files(folder: Path | None) -> tuple[list[RunFile], str]:
    """The files the run's working tree was kept with (run/artefacts' `files/`), text shown, binaries named."""
    if folder is None or not folder.is_dir():
        return [], "no files were kept for this run"
    paths = sorted(p for p in folder.rglob("*") if p.is_file())
    shown = []
    for path in paths[:FILES_SHOWN]:
        rel = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        if b"\x00" in data[:8192]:
            shown.append(RunFile(rel, None, f"binary, {len(data):,} bytes"))
            continue
        text = data.decode("utf-8", errors="replace")
        note = f" (cut at {FILE_CHARS:,} of {len(text):,} characters)" if len(text) > FILE_CHARS else ""
        shown.append(RunFile(rel, cut(text, FILE_CHARS), note))
    note = f"{len(paths) - FILES_SHOWN} more file(s) not shown" if len(paths) > FILES_SHOWN else ""
    return shown, note


def _facts(run: RunResult) -> str:
    facts = [f"score {score(run.score)}", "passed" if run.passed else "not perfect", f"{run.turns} turns"]
    return " · ".join(facts)


def _grader_data(info: GraderInfo | None, verdict: GraderVerdict, judged: bool) -> dict[str, Any]:
    return {
        "name": verdict.name,
        "type": info.type if info else "",
        "judged": judged,
        "judgePassed": None if verdict.mark == "na" else verdict.mark == "pass",
        "judgeModel": verdict.judge_model,
        "split": bool(verdict.votes) and len(set(verdict.votes or [])) > 1,
        "rubricHash": rubric_hash(info) if info else None,
    }


def review_page(
    document: SuiteResult, folder: Path, labels: Labels, folder_of: Any, mode: Mode = "server"
) -> ReviewPage:
    """`folder_of(case, run)`: the run's folder of kept artefacts (run.artefacts.RunFolder), or None."""
    runs: list[ReviewRun] = []
    data: list[dict[str, Any]] = []
    for case in document.cases:
        infos = {g.name: g for g in case.graders}
        for run in case.runs():
            runs.append(_run(case, run, infos, folder_of(case, run), len(runs) + 1))
            data.append(
                {
                    "id": runs[-1].id,
                    "case": case.name,
                    "arm": run.arm,
                    "run": run.index,
                    "passed": run.passed,
                    "graders": [_grader_data(infos.get(g.verdict.name), g.verdict, g.judged) for g in runs[-1].graders],
                }
            )
    script = {"mode": mode, "folder": str(folder), "runs": data, "labels": labels.to_json()["labels"]}
    # `</` would end the <script> element early: JSON may write it as `<\/`
    text = json.dumps(script, ensure_ascii=False).replace("</", "<\\/")
    title = ", ".join(p.name for p in document.suite.plugins) or Path(document.suite.root).name or "eval"
    return ReviewPage(
        title=title,
        folder=str(folder),
        mode=mode,
        runs=runs,
        cases=[case.name for case in document.cases],
        data=text,
    )


def _run(case: CaseResult, run: RunResult, infos: dict[str, GraderInfo], kept: RunFolder | None, n: int) -> ReviewRun:
    graders = []
    for result in run.graders:
        info = infos.get(result.name)
        kind = info.type if info else ""
        graders.append(
            ReviewGrader(grader_verdict(result), kind, kind in JUDGED_TYPES, info.markdown if info else None)
        )
    shown, note = run_files(kept.files if kept else None)
    # the trace where this folder keeps it (the folder may have moved since the session wrote tracePath)
    trace_path = str(kept.trace) if kept and kept.trace.is_file() else run.trace_path
    error = f"{run.error_kind}: {run.error}" if run.error and run.error_kind else run.error
    return ReviewRun(
        id=f"run-{n}",
        case=case.name,
        arm=run.arm,
        index=run.index,
        passed=run.passed,
        title=f"{case.name} · {run.arm}-{run.index}",
        facts=_facts(run),
        error=error,
        prompt=case.prompt,
        graders=graders,
        files=shown,
        files_note=note,
        transcript=trace(trace_path, case.prompt, (run.conversation or {}).get("messages")),  # who wrote each
    )
