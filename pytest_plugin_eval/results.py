"""Results as plain data: one run's result, and the results document (schemaVersion 1, camelCase).

The document keeps every field of `claude plugin eval`'s JSON with the same meaning, and only adds fields:
`loadErrors`, `errorKind`, `partialReason` for every partial cause, the effective `runsPerArm` and `model`
next to the case file's values, `tags`, spread and confidence intervals.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import scoring

SCHEMA_VERSION = 1


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def timestamp_dirname(iso: str) -> str:
    """`2026-11-29T19:14:00.123Z` → `2026-11-29T19-14-00-123Z` (safe as a folder name)."""
    return iso.replace(":", "-").replace(".", "-")


@dataclass
class GraderOutcome:
    name: str
    passed: bool
    weight: float
    explanation: str
    with_only: bool
    scored: bool
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"name": self.name, "passed": self.passed, "weight": self.weight, "explanation": self.explanation,
               "withOnly": self.with_only, "scored": self.scored}
        out.update(self.details)
        return out


@dataclass
class RunResult:
    """One run of one case in one arm. Plain data: it travels on the pytest report (also across xdist)."""
    case: str
    case_dir: str           # relative to the suite, as the JSON's cases[].dir
    arm: str
    index: int              # 1-based
    score: float | None
    passed: bool
    turns: int = 0
    cost_usd: float = 0.0
    judge_cost_usd: float = 0.0
    duration_seconds: float = 0.0
    started_at: str = ""
    error: str | None = None
    error_kind: str | None = None
    trace_path: str | None = None
    skipped_paid_graders: bool = False
    graders: list[GraderOutcome] = field(default_factory=list)
    aborted: dict | None = None
    mocks: dict | None = None
    workspace: str | None = None  # kept with --keep-temp
    attempts: int = 1             # >1 when API errors made the harness run it again
    notes: list[str] = field(default_factory=list)  # session notices this run raised (not in the run's JSON)

    def to_json(self) -> dict:
        out = {
            "score": self.score, "passed": self.passed, "turns": self.turns, "costUsd": self.cost_usd,
            "judgeCostUsd": self.judge_cost_usd, "durationSeconds": round(self.duration_seconds, 3),
            "startedAt": self.started_at, "error": self.error, "tracePath": self.trace_path,
            "skippedPaidGraders": self.skipped_paid_graders, "graders": [g.to_json() for g in self.graders],
        }
        if self.error_kind:
            out["errorKind"] = self.error_kind
        if self.aborted is not None:
            out["aborted"] = self.aborted
        if self.mocks is not None:
            out["mocks"] = self.mocks
        if self.workspace:
            out["workspace"] = self.workspace
        if self.attempts > 1:
            out["attempts"] = self.attempts
        out["index"] = self.index
        return out

    def to_data(self) -> dict:
        return asdict(self)

    @classmethod
    def from_data(cls, data: dict) -> "RunResult":
        data = dict(data)
        data["graders"] = [GraderOutcome(**g) for g in data.get("graders", [])]
        return cls(**data)

    @property
    def failing(self) -> list[GraderOutcome]:
        return [g for g in self.graders if g.scored and not g.passed]


def write_atomic(path: Path, text: str) -> None:
    """Write a file atomically (a temp file beside it, then a rename): a kill mid-write never leaves half a
    file behind. The file gets the usual permissions (mkstemp alone would make it owner-only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path: Path, document: dict) -> None:
    write_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def arms_of(runs: list[RunResult]) -> dict[str, list[dict]]:
    """Run documents per arm, in run order ("with" always present, "without" when it ran)."""
    arms: dict[str, list[dict]] = {"with": []}
    for arm in ("with", "without"):
        chosen = sorted((r for r in runs if r.arm == arm), key=lambda r: r.index)
        if chosen:
            arms[arm] = [r.to_json() for r in chosen]
    return arms


def case_from_arms(header: dict, arms: dict[str, list[dict]]) -> dict:
    """A case's JSON: its header (from the case file), its runs per arm, and the aggregates over them."""
    doc = dict(header)
    doc["arms"] = arms
    doc["aggregates"] = scoring.case_aggregates(arms)
    return doc


def case_document(header: dict, runs: list[RunResult]) -> dict:
    return case_from_arms(header, arms_of(runs))


def suite_document(*, claude_version: str, started_at: str, duration: float, suite: dict, cases: list[dict],
                   threshold: float, partial_reason: str | None, load_errors: list[dict],
                   notices: list[str], skipped: list[dict] | None = None) -> dict:
    cost = sum(run["costUsd"] for case in cases for runs in case["arms"].values() for run in runs)
    doc = {
        "schemaVersion": SCHEMA_VERSION, "claudeVersion": claude_version, "startedAt": started_at,
        "durationSeconds": round(duration), "costUsd": cost, "partial": partial_reason is not None,
    }
    if partial_reason is not None:
        doc["partialReason"] = partial_reason
    doc["suite"] = suite
    doc["cases"] = cases
    doc["aggregates"] = scoring.suite_aggregates(cases, threshold)
    doc["loadErrors"] = load_errors
    if skipped:
        doc["skippedRuns"] = skipped
    if notices:
        doc["notices"] = notices
    return doc
