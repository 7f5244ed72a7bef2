"""A suite's past sessions: the results folders under `<eval dir>/results/`, read back and summarised.

`scan` finds the folders, newest first, and reads their documents — at most `limit` of them, so a long history
never slows a session down; a folder that holds no results document, or one this version cannot read, is a
`Skipped` entry with the reason, never an error. `summarize` makes a `HistoryRow` of a session (what
`plugin-eval history` lists), and `trend` picks, for the report of one session, the earlier sessions each of its
cases can be compared with.

Comparable — what the trend draws as one line — means, for a case: the same eval dir (its results folder), the
same agent model (the case's effective model; the scripted endpoint is a model of its own), the same resolved
judge model, the same ablation, and the same case as `--lf` would reuse it (`rerun.same_case`: prompt, graders,
max turns, timeout, the case file's model). Reading back from the newest session, a session run with other
settings is passed over (it was another experiment), and so is one without the case; the first session where
the case itself differs ends its history — the case's history starts over when its graders change. The suite
line takes the sessions where every case of this session is comparable and no other case ran. Regraded sessions
(their runs are an earlier session's, counted there) and shards (a part of a session) are never points.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.errors import InvalidSpec
from .efficiency import Efficiency
from .jsonmap import EXTRA, Document, key
from .matrix import MATRIX_FILE, MatrixError, read_matrix
from .model import SCHEMA_VERSION, SuiteResult
from .plugin_changes import plugin_changes
from .rerun import same_case
from .store import RESULTS_FILE, InvalidDocument, parse_document

HISTORY_LIMIT = 20  # the past sessions a report's trend reads
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024  # a larger file is not read for the history


@dataclass(frozen=True)
class PastSession:
    folder: Path
    document: SuiteResult


@dataclass(frozen=True)
class Skipped(Document):
    """A results folder passed over, and why (a row of `history --json`'s skipped)."""

    folder: Path = field(metadata=key("folder", write=str, read=Path))
    reason: str = field(metadata=key("reason"))


@dataclass(frozen=True)
class Scan:
    sessions: list[PastSession]  # newest first (by startedAt)
    skipped: list[Skipped]
    not_read: int = 0  # older results folders left alone past the limit


class Unreadable(InvalidSpec, ValueError):
    """A file that is not a results document this version reads; the message says why."""


def read_document(file: Path) -> SuiteResult:
    """A results document, checked to be one (schemaVersion 1, a suite and its cases). Raises Unreadable."""
    try:
        if file.stat().st_size > MAX_DOCUMENT_BYTES:
            raise Unreadable(f"larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB: not read")
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as e:
        raise Unreadable(f"cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise Unreadable(f"not JSON ({e})") from None
    if isinstance(data, dict) and "schemaVersion" not in data:
        raise Unreadable("not a results document (no schemaVersion)")
    try:
        return parse_document(data, file.name)
    except InvalidDocument as e:
        raise Unreadable(str(e).removeprefix(f"{file.name}: ")) from None


def scan(
    results_dirs: Iterable[Path],
    limit: int | None = HISTORY_LIMIT,
    exclude: Iterable[Path] = (),
    matrices: bool = False,
) -> Scan:
    """The sessions under each results folder (`<eval dir>/results/`): its sub-folders holding a results
    document, the `limit` most recently written first (None: all), then sorted newest first by their start.
    Sub-folders in `exclude` (the session being written) are left out; plain files are not sessions. With
    `matrices`, each model of a model matrix's folder is a session of its own (its folder: the model's)."""
    left_out = {Path(p).absolute() for p in exclude}
    candidates: list[tuple[float, str, Path]] = []
    skipped: list[Skipped] = []
    for results_dir in results_dirs:
        try:
            entries = list(os.scandir(results_dir))
        except OSError:
            continue
        for entry in entries:
            folder = Path(entry.path).absolute()
            if folder in left_out or not entry.is_dir():
                continue
            try:
                written = (folder / RESULTS_FILE).stat().st_mtime
            except FileNotFoundError:
                if matrices and (folder / MATRIX_FILE).is_file():
                    candidates += _matrix_models(folder, skipped)
                    continue
                why = f"no {RESULTS_FILE} (not a results folder, or its session is running)"
                if (folder / MATRIX_FILE).is_file():  # each model's document is in a folder of its own
                    why = "a model matrix (--model A,B): each model's document is in a sub-folder, not listed here"
                skipped.append(Skipped(folder, why))
                continue
            except OSError as e:
                skipped.append(Skipped(folder, f"{RESULTS_FILE} cannot be read ({e.strerror or e})"))
                continue
            candidates.append((written, folder.name, folder))
    candidates.sort(reverse=True)
    sessions: list[PastSession] = []
    read = 0
    for _, _, folder in candidates:
        if limit is not None and len(sessions) >= limit:
            break
        read += 1
        try:
            sessions.append(PastSession(folder, read_document(folder / RESULTS_FILE)))
        except Unreadable as e:
            skipped.append(Skipped(folder, f"{RESULTS_FILE}: {e}"))
    sessions.sort(key=lambda s: (str(s.document.started_at or ""), s.folder.name), reverse=True)
    skipped.sort(key=lambda s: s.folder.name, reverse=True)
    return Scan(sessions, skipped, len(candidates) - read)


def _matrix_models(folder: Path, skipped: list[Skipped]) -> list[tuple[float, str, Path]]:
    """The models' folders of a matrix's folder that hold their document, as scan's candidates."""
    try:
        matrix, _ = read_matrix(folder)
    except MatrixError as e:
        skipped.append(Skipped(folder, str(e)))
        return []
    out = []
    for entry in matrix.models:
        document = folder / entry.document
        try:
            out.append((document.stat().st_mtime, folder.name, document.parent))
        except OSError as e:
            skipped.append(Skipped(document.parent, f"{RESULTS_FILE} cannot be read ({e.strerror or e})"))
    return out


# ---- one line per session ----------------------------------------------------------------------------------


def model_of(document: SuiteResult) -> str:
    """The agent model a session ran: `scripted`, the --model override, the cases' effective models, else
    `default` (Claude Code's own)."""
    if document.suite.scripted:
        return "scripted"
    if document.suite.model_override:
        return str(document.suite.model_override)
    models = sorted({str(c.effective_model) for c in document.cases if c.effective_model})
    return ",".join(models) if models else "default"


def note_of(document: SuiteResult) -> str | None:
    """A word for a session that is not a plain one: regraded, merged (shards combined), shard (a share) or lf
    (`--lf`: some runs taken from the session before)."""
    suite = document.suite
    if suite.regraded_from is not None:
        return "regraded"
    if suite.merged_from is not None:
        return "merged"
    if suite.shard is not None:
        return "shard"
    if any(run.reused for case in document.cases for run in case.runs()):
        return "lf"
    return None


def _right_of(counts: tuple[int, int] | None) -> dict[str, int] | None:
    return None if counts is None else {"right": counts[0], "of": counts[1]}


def _read_right_of(data: Any) -> tuple[int, int] | None:
    return None if data is None else (int(data["right"]), int(data["of"]))


@dataclass(frozen=True)
class HistoryRow(Document):
    """A past session as `plugin-eval history` lists it (a row of `--json`'s sessions)."""

    folder: str = field(metadata=key("folder"))
    started_at: str = field(metadata=key("startedAt"))
    plugin: str = field(metadata=key("plugin"))  # the plugins' names
    version: str | None = field(metadata=key("version"))
    git_commit: str | None = field(metadata=key("gitCommit"))
    git_dirty: bool | None = field(metadata=key("gitDirty"))
    model: str = field(metadata=key("model"))
    judge_model: str | None = field(metadata=key("judgeModel"))
    cases: int = field(metadata=key("cases"))
    overall_score: float | None = field(metadata=key("overallScore"))
    mean_delta: float | None = field(metadata=key("meanDelta"))  # None: no case ran both arms
    cost_usd: float = field(metadata=key("costUsd"))
    partial: bool = field(metadata=key("partial"))
    partial_reason: str | None = field(metadata=key("partialReason"))
    # the distinct runs per arm of its cases, ascending
    runs_per_arm: tuple[int, ...] = field(metadata=key("runsPerArm"))
    note: str | None = field(metadata=key("note"))
    shard: str | None = field(default=None, metadata=key("shard", omit="none"))
    # (decided as labelled, of) over its trigger sets
    trigger_queries: tuple[int, int] | None = field(
        default=None, metadata=key("triggerQueries", omit="none", write=_right_of, read=_read_right_of)
    )
    # the suite's: the median case's figures per arm, with − without
    efficiency: Efficiency | None = field(default=None, metadata=key("efficiency", omit="none"))
    extra: dict = field(default_factory=dict, metadata=EXTRA)  # keys written beside the row (pluginChanges)

    def median_case(self, figure: str) -> dict[str, float]:
        """The median case's `figure` per arm (empty when the session did not measure it)."""
        found = self.efficiency.get(figure) if self.efficiency is not None else None
        return dict(found.medians) if found is not None else {}


def summarize(session: PastSession) -> HistoryRow:
    document = session.document
    in_matrix = (session.folder.parent / MATRIX_FILE).is_file()  # one model's document of a model matrix
    model = model_of(document)
    if in_matrix and document.suite.scripted and document.suite.model_override:
        model = f"scripted:{document.suite.model_override}"  # the scripted endpoint answers each model apart
    plugins = document.suite.plugins
    first = plugins[0] if plugins else None
    agg = document.aggregates
    return HistoryRow(
        folder=str(session.folder),
        started_at=str(document.started_at or ""),
        plugin=", ".join(str(p.name) for p in plugins) or "no plugin",
        version=str(first.version) if first and first.version is not None else None,
        git_commit=first.git_commit if first else None,
        git_dirty=first.git_dirty if first else None,
        model=model,
        judge_model=document.suite.judge_model_resolved,
        cases=len(document.cases),
        overall_score=_number(agg.overall_score) if document.cases else None,
        mean_delta=_number(agg.mean_delta) if agg.two_arm else None,
        cost_usd=_number(document.cost_usd) or 0.0,
        partial=document.partial,
        partial_reason=document.partial_reason,
        runs_per_arm=tuple(sorted({c.runs_per_arm for c in document.cases if isinstance(c.runs_per_arm, int)})),
        note=note_of(document) or ("matrix" if in_matrix else None),
        shard=document.suite.shard,
        trigger_queries=_trigger_queries(document),
        efficiency=agg.efficiency,
    )


def _trigger_queries(document: SuiteResult) -> tuple[int, int] | None:
    try:
        sets = document.triggers
    except (KeyError, TypeError, ValueError):  # a past document of another shape: no figure
        return None
    queries = [(s, q) for s in sets for q in s.queries]
    return (sum(1 for s, q in queries if q.correct(s.threshold)), len(queries)) if queries else None


def changes_since_previous(sessions: list[PastSession]) -> list[list[str]]:
    """For each session (newest first), what changed in the plugin since the session listed below it."""
    plugins = [s.document.suite.plugins for s in sessions]
    return [plugin_changes(plugins[i + 1], newer) if i + 1 < len(plugins) else [] for i, newer in enumerate(plugins)]


@dataclass(frozen=True)
class HistoryDocument(Document):
    """`plugin-eval history --json`: the sessions (newest first, each with what changed in the plugin since the
    one below it, as `pluginChanges`), the folders passed over and how many older ones were not read."""

    schema_version: int = field(default=SCHEMA_VERSION, metadata=key("schemaVersion"))
    _: KW_ONLY
    sessions: list[HistoryRow] = field(metadata=key("sessions"))
    skipped: list[Skipped] = field(metadata=key("skipped"))
    not_read: int = field(metadata=key("notRead"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


def history_document(scan_result: Scan) -> HistoryDocument:
    changes = changes_since_previous(scan_result.sessions)
    rows = [
        replace(summarize(s), extra={"pluginChanges": c}) for s, c in zip(scan_result.sessions, changes, strict=True)
    ]
    return HistoryDocument(sessions=rows, skipped=list(scan_result.skipped), not_read=scan_result.not_read)


def history_json(scan_result: Scan) -> dict:
    return history_document(scan_result).to_json()


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# ---- the trend of a session's cases --------------------------------------------------------------------------


@dataclass(frozen=True)
class TrendPoint:
    started_at: str
    version: str | None
    git_commit: str | None
    git_dirty: bool | None
    score: float | None  # WITH (the suite line: the overall score)
    delta: float | None  # Δ (the suite line: the mean Δ)
    partial: bool = False
    current: bool = False  # the session the report is about


@dataclass(frozen=True)
class CaseTrend:
    dir: str
    name: str
    points: list[TrendPoint]  # oldest first; the current session last

    @property
    def earlier(self) -> int:
        return len(self.points) - 1


@dataclass(frozen=True)
class Trend:
    suite: list[TrendPoint]  # overall score and mean Δ, oldest first; the current session last
    cases: list[CaseTrend]  # in the document's order

    @property
    def has_history(self) -> bool:
        """Some line has an earlier point than the current session."""
        return len(self.suite) > 1 or any(c.earlier for c in self.cases)


def _settings(document: SuiteResult) -> tuple:
    suite = document.suite
    return (suite.scripted, suite.judge_model_resolved, suite.ablation)


def _case_model(document: SuiteResult, effective: str | None) -> str | None:
    return "scripted" if document.suite.scripted else effective


def _point(document: SuiteResult, score: Any, delta: Any, current: bool = False) -> TrendPoint:
    first = document.suite.plugins[0] if document.suite.plugins else None
    return TrendPoint(
        started_at=document.started_at,
        version=first.version if first else None,
        git_commit=first.git_commit if first else None,
        git_dirty=first.git_dirty if first else None,
        score=_number(score),
        delta=_number(delta),
        partial=document.partial,
        current=current,
    )


def _earlier(current: SuiteResult, past: Iterable[SuiteResult]) -> list[SuiteResult]:
    """The past sessions that may be points, newest first: started before this one, with this one's settings,
    neither regraded nor a shard."""
    out = [
        d
        for d in past
        if isinstance(d.started_at, str)
        and d.started_at
        and d.started_at < current.started_at
        and d.suite.regraded_from is None
        and d.suite.shard is None
        and _settings(d) == _settings(current)
    ]
    return sorted(out, key=lambda d: d.started_at, reverse=True)


def trend(current: SuiteResult, past: Iterable[SuiteResult]) -> Trend:
    """Each case's WITH and Δ, and the suite's overall score and mean Δ, over the earlier sessions comparable
    with `current` (see the module's docstring), oldest first, `current` last. `past`: documents of the same
    eval dir, in any order (`scan(...).sessions`)."""
    earlier = _earlier(current, past)
    cases = []
    for case in current.cases:
        model = _case_model(current, case.effective_model)
        points = []
        for document in earlier:
            old = next((c for c in document.cases if c.dir == case.dir), None)
            if old is None or _case_model(document, old.effective_model) != model:
                continue
            if not same_case(old, case):
                break  # the case changed: its history starts after this session
            if _number(old.aggregates.score) is not None:
                points.append(_point(document, old.aggregates.score, old.aggregates.delta))
        points.reverse()
        points.append(_point(current, case.aggregates.score, case.aggregates.delta, current=True))
        cases.append(CaseTrend(case.dir, case.name, points))
    suite_points = []
    if current.cases:
        mine = {c.dir: c for c in current.cases}
        for document in earlier:
            theirs = {c.dir: c for c in document.cases}
            if any(d in theirs and not same_case(theirs[d], c) for d, c in mine.items()):
                break
            if set(theirs) != set(mine) or model_of(document) != model_of(current):
                continue
            agg = document.aggregates
            suite_points.append(_point(document, agg.overall_score, agg.mean_delta if agg.two_arm else None))
        suite_points.reverse()
        agg = current.aggregates
        suite_points.append(_point(current, agg.overall_score, agg.mean_delta if agg.two_arm else None, current=True))
    return Trend(suite_points, cases)
