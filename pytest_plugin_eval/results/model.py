"""The results document as types: GraderResult ⊂ RunResult ⊂ CaseResult ⊂ SuiteResult.

One document describes a session (schemaVersion 1, camelCase, the reference tool's fields with the same meaning,
and only added fields). Everything that reads results reads these types: the xdist wire, the terminal table, the
HTML page, the hints, `--lf`, `--regrade`. Each type has one `to_json()` and one `from_json()`; fields this
version does not know are kept in `extra` and written back, so reading and writing a document changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
ARMS = ("with", "without")


def _pop_extra(data: dict, known: tuple[str, ...]) -> dict:
    return {k: v for k, v in data.items() if k not in known}


@dataclass
class GraderResult:
    """One grader's verdict on one run. `scored`: it counts in the run's score (not an indicator, not errored,
    not skipped)."""

    name: str
    passed: bool
    weight: float
    explanation: str
    with_only: bool = False
    scored: bool = True
    judge_model: str | None = None  # llm/baseline: the model that judged
    judge_votes: list[bool] | None = None
    evidence: str | None = None  # what the judge read
    cost_usd: float = 0.0  # a judge's cost (written when > 0)
    errored: bool = False  # the grader could not judge (its judge was unavailable)
    skipped: bool = False  # a paid grader skipped by the cost ceiling
    extra: dict = field(default_factory=dict)

    KNOWN = (
        "name",
        "passed",
        "weight",
        "explanation",
        "withOnly",
        "scored",
        "judgeModel",
        "judgeVotes",
        "evidence",
        "costUsd",
        "errored",
        "skipped",
    )

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "name": self.name,
            "passed": self.passed,
            "weight": self.weight,
            "explanation": self.explanation,
            "withOnly": self.with_only,
            "scored": self.scored,
        }
        if self.judge_model is not None:
            out["judgeModel"] = self.judge_model
        if self.judge_votes is not None:
            out["judgeVotes"] = list(self.judge_votes)
        if self.evidence is not None:
            out["evidence"] = self.evidence
        out.update(self.extra)
        if self.cost_usd:
            out["costUsd"] = self.cost_usd
        if self.errored:
            out["errored"] = True
        if self.skipped:
            out["skipped"] = True
        return out

    @classmethod
    def from_json(cls, data: dict) -> GraderResult:
        return cls(
            name=data["name"],
            passed=bool(data["passed"]),
            weight=data.get("weight", 1),
            explanation=data.get("explanation", ""),
            with_only=bool(data.get("withOnly", False)),
            scored=bool(data.get("scored", True)),
            judge_model=data.get("judgeModel"),
            judge_votes=data.get("judgeVotes"),
            evidence=data.get("evidence"),
            cost_usd=data.get("costUsd", 0.0),
            errored=bool(data.get("errored", False)),
            skipped=bool(data.get("skipped", False)),
            extra=_pop_extra(data, cls.KNOWN),
        )


# Run error kinds by what they mean. The harness could not make or read the run: its item fails, and --lf runs it
# again (also one stopped by the user or a lost worker); of those, a failure of the harness itself fails the session.
UNFINISHED_KINDS = ("start", "api", "auth", "harness", "missing_artefacts")
RERUN_KINDS = (*UNFINISHED_KINDS, "interrupted", "worker_lost")
SESSION_FAILING_KINDS = ("start", "harness")


@dataclass
class RunResult:
    """One run of one case in one arm."""

    arm: str  # "with" | "without" (the key of the case's `arms`, not written in the run)
    index: int  # 1-based
    score: float | None
    passed: bool
    turns: int = 0
    cost_usd: float = 0.0  # the agent's, its mocks' and its judges' cost
    judge_cost_usd: float = 0.0
    duration_seconds: float = 0.0
    started_at: str = ""
    error: str | None = None
    # api | auth | start | scaffold | timeout | max_turns | agent | crash | prompt_too_long | interrupted |
    # harness | missing_artefacts | worker_lost (what each means for the session: the kind groups below)
    error_kind: str | None = None
    trace_path: str | None = None
    skipped_paid_graders: bool = False
    graders: list[GraderResult] = field(default_factory=list)
    aborted: dict | None = None  # {server, tool, reason}: a mock stopped the run
    mocks: dict | None = None  # the run's MCP stand-ins and what they answered
    workspace: str | None = None  # kept with --keep-temp
    attempts: int = 1  # >1 when API errors made the harness run it again
    reused: bool = False  # taken from the previous session by --lf
    extra: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # notices for the session, not part of the document

    KNOWN = (
        "score",
        "passed",
        "turns",
        "costUsd",
        "judgeCostUsd",
        "durationSeconds",
        "startedAt",
        "error",
        "tracePath",
        "skippedPaidGraders",
        "graders",
        "errorKind",
        "aborted",
        "mocks",
        "workspace",
        "attempts",
        "index",
        "reused",
    )

    @property
    def failing(self) -> list[GraderResult]:
        """Scored graders that failed."""
        return [g for g in self.graders if g.scored and not g.passed]

    @property
    def infrastructure_error(self) -> bool:
        """The model could not be reached: the run says nothing about the plugin."""
        return self.error_kind in ("api", "auth")

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "score": self.score,
            "passed": self.passed,
            "turns": self.turns,
            "costUsd": self.cost_usd,
            "judgeCostUsd": self.judge_cost_usd,
            "durationSeconds": round(self.duration_seconds, 3),
            "startedAt": self.started_at,
            "error": self.error,
            "tracePath": self.trace_path,
            "skippedPaidGraders": self.skipped_paid_graders,
            "graders": [g.to_json() for g in self.graders],
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
        if self.reused:
            out["reused"] = True
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict, arm: str, position: int = 1) -> RunResult:
        """A run as the document has it; `position` (1-based, in its arm) stands in for a missing `index`."""
        return cls(
            arm=arm,
            index=data.get("index", position),
            score=data.get("score"),
            passed=bool(data.get("passed", False)),
            turns=data.get("turns", 0),
            cost_usd=data.get("costUsd") or 0.0,
            judge_cost_usd=data.get("judgeCostUsd") or 0.0,
            duration_seconds=data.get("durationSeconds") or 0.0,
            started_at=data.get("startedAt", ""),
            error=data.get("error"),
            error_kind=data.get("errorKind"),
            trace_path=data.get("tracePath"),
            skipped_paid_graders=bool(data.get("skippedPaidGraders", False)),
            graders=[GraderResult.from_json(g) for g in data.get("graders") or []],
            aborted=data.get("aborted"),
            mocks=data.get("mocks"),
            workspace=data.get("workspace"),
            attempts=data.get("attempts", 1),
            reused=bool(data.get("reused", False)),
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class GraderInfo:
    """A grader's definition as the document records it."""

    name: str
    type: str
    weight: float
    config: dict
    markdown: str | None = None  # the rubric of llm/baseline graders (graderMarkdown)
    extra: dict = field(default_factory=dict)

    KNOWN = ("name", "type", "weight", "graderMarkdown", "config")

    def to_json(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "weight": self.weight}
        if self.markdown is not None:
            out["graderMarkdown"] = self.markdown
        out["config"] = self.config
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> GraderInfo:
        return cls(
            name=data["name"],
            type=data.get("type", ""),
            weight=data.get("weight", 1),
            config=data.get("config") or {},
            markdown=data.get("graderMarkdown"),
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class CaseAggregates:
    """A case's numbers over its runs. The without-arm fields exist only when that arm ran (`two_arm`).
    `pass_at_k` / `pass_hat_k`: over the with arm's scored runs, k → the estimated chance that at least one /
    all of k runs pass (k = 1 … n; None in a document written before they were added)."""

    score: float | None
    pass_rate: float | None
    stdev_with: float | None = None
    two_arm: bool = False
    score_without: float | None = None
    pass_rate_without: float | None = None
    delta: float | None = None
    stdev_without: float | None = None
    delta_ci: tuple[float, float] | None = None
    delta_significant: bool | None = None
    pass_at_k: dict[int, float | None] | None = None
    pass_hat_k: dict[int, float | None] | None = None
    extra: dict = field(default_factory=dict)

    KNOWN = (
        "score",
        "passRate",
        "scoreWithout",
        "passRateWithout",
        "delta",
        "stdevWith",
        "stdevWithout",
        "deltaCI",
        "deltaSignificant",
        "passAtK",
        "passHatK",
    )

    def to_json(self) -> dict:
        out: dict[str, Any] = {"score": self.score, "passRate": self.pass_rate}
        if self.two_arm:
            out.update(scoreWithout=self.score_without, passRateWithout=self.pass_rate_without, delta=self.delta)
        out["stdevWith"] = self.stdev_with
        if self.two_arm:
            out.update(
                stdevWithout=self.stdev_without,
                deltaCI=list(self.delta_ci) if self.delta_ci is not None else None,
                deltaSignificant=self.delta_significant,
            )
        # JSON object keys are strings: {"1": …, "2": …}.
        if self.pass_at_k is not None:
            out["passAtK"] = {str(k): v for k, v in self.pass_at_k.items()}
        if self.pass_hat_k is not None:
            out["passHatK"] = {str(k): v for k, v in self.pass_hat_k.items()}
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> CaseAggregates:
        ci = data.get("deltaCI")
        return cls(
            score=data.get("score"),
            pass_rate=data.get("passRate"),
            stdev_with=data.get("stdevWith"),
            two_arm="delta" in data,
            score_without=data.get("scoreWithout"),
            pass_rate_without=data.get("passRateWithout"),
            delta=data.get("delta"),
            stdev_without=data.get("stdevWithout"),
            delta_ci=(ci[0], ci[1]) if ci else None,
            delta_significant=data.get("deltaSignificant"),
            pass_at_k=_by_k(data.get("passAtK")),
            pass_hat_k=_by_k(data.get("passHatK")),
            extra=_pop_extra(data, cls.KNOWN),
        )


def _by_k(data: dict | None) -> dict[int, float | None] | None:
    return None if data is None else {int(k): v for k, v in data.items()}


@dataclass
class CaseResult:
    """One case: what it is (from its files, as this session ran it), its runs per arm, and its aggregates."""

    name: str
    dir: str  # relative to the suite root (the eval dir's parent)
    source: str  # prose | case_yaml | mixed
    prompt: str  # promptMarkdown
    runs_per_case: int  # as the case file says (default 3)
    timeout_seconds: int
    max_turns: int
    graders: list[GraderInfo]
    runs_per_arm: int  # what this session ran (--runs wins)
    model: str | None = None  # as the case file says
    effective_model: str | None = None
    tags: tuple[str, ...] = ()
    description: str | None = None
    expected_outcome: str | None = None
    single_arm_reason: str | None = None
    auto_runs: dict | None = None  # --runs auto: {runs, stopped}, how many runs per arm it took and why no more
    warnings: list[str] = field(
        default_factory=list
    )  # what keeps the case from passing as written (a tool not granted)
    arms: dict[str, list[RunResult]] = field(default_factory=lambda: {"with": []})
    aggregates: CaseAggregates = field(default_factory=lambda: CaseAggregates(None, None))
    hints: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    KNOWN = (
        "name",
        "dir",
        "source",
        "promptMarkdown",
        "runsPerCase",
        "timeoutSeconds",
        "maxTurns",
        "model",
        "graders",
        "runsPerArm",
        "effectiveModel",
        "tags",
        "description",
        "expectedOutcome",
        "singleArmReason",
        "autoRuns",
        "warnings",
        "arms",
        "aggregates",
        "hints",
    )

    def runs(self, arm: str | None = None) -> list[RunResult]:
        """The runs of one arm, or of every arm."""
        if arm is not None:
            return self.arms.get(arm, [])
        return [run for runs in self.arms.values() for run in runs]

    @property
    def two_arm(self) -> bool:
        return self.aggregates.two_arm

    @property
    def cost_usd(self) -> float:
        return sum(run.cost_usd for run in self.runs())

    def header_json(self) -> dict:
        """What the case is, without its runs: the fields before `arms`."""
        out: dict[str, Any] = {
            "name": self.name,
            "dir": self.dir,
            "source": self.source,
            "promptMarkdown": self.prompt,
            "runsPerCase": self.runs_per_case,
            "timeoutSeconds": self.timeout_seconds,
            "maxTurns": self.max_turns,
        }
        if self.model is not None:
            out["model"] = self.model
        out["graders"] = [g.to_json() for g in self.graders]
        out["runsPerArm"] = self.runs_per_arm
        if self.effective_model:
            out["effectiveModel"] = self.effective_model
        if self.tags:
            out["tags"] = list(self.tags)
        if self.description is not None:
            out["description"] = self.description
        if self.expected_outcome is not None:
            out["expectedOutcome"] = self.expected_outcome
        if self.single_arm_reason is not None:
            out["singleArmReason"] = self.single_arm_reason
        if self.auto_runs is not None:
            out["autoRuns"] = dict(self.auto_runs)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        out.update(self.extra)
        return out

    def to_json(self) -> dict:
        out = self.header_json()
        out["arms"] = {arm: [run.to_json() for run in runs] for arm, runs in self.arms.items()}
        out["aggregates"] = self.aggregates.to_json()
        if self.hints:
            out["hints"] = list(self.hints)
        return out

    @classmethod
    def from_json(cls, data: dict) -> CaseResult:
        arms = {
            arm: [RunResult.from_json(run, arm, i) for i, run in enumerate(runs, 1)]
            for arm, runs in (data.get("arms") or {"with": []}).items()
        }
        return cls(
            name=data["name"],
            dir=data.get("dir", data["name"]),
            source=data.get("source", ""),
            prompt=data.get("promptMarkdown", ""),
            runs_per_case=data.get("runsPerCase", 3),
            timeout_seconds=data.get("timeoutSeconds", 300),
            max_turns=data.get("maxTurns", 10),
            graders=[GraderInfo.from_json(g) for g in data.get("graders") or []],
            runs_per_arm=data.get("runsPerArm", data.get("runsPerCase", 3)),
            model=data.get("model"),
            effective_model=data.get("effectiveModel"),
            tags=tuple(data.get("tags") or ()),
            description=data.get("description"),
            expected_outcome=data.get("expectedOutcome"),
            single_arm_reason=data.get("singleArmReason"),
            auto_runs=data.get("autoRuns"),
            warnings=list(data.get("warnings") or []),
            arms=arms,
            aggregates=CaseAggregates.from_json(data.get("aggregates") or {}),
            hints=list(data.get("hints") or []),
            extra=_pop_extra(data, cls.KNOWN),
        )

    @classmethod
    def header_from_json(cls, data: dict) -> CaseResult:
        """A case with no runs yet, from its header (`header_json`)."""
        return cls.from_json({**data, "arms": {"with": []}, "aggregates": {}})


@dataclass
class PluginInfo:
    """The plugin under test: its manifest's name and version, its folder, and — when the folder is in a git
    repository — the commit checked out (`gitCommit`) and whether the work tree had uncommitted changes under
    the folder (`gitDirty`; None when that could not be told)."""

    name: str
    path: str
    version: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    extra: dict = field(default_factory=dict)

    KNOWN = ("name", "version", "path", "gitCommit", "gitDirty")

    def to_json(self) -> dict:
        out: dict[str, Any] = {"name": self.name}
        if self.version is not None:
            out["version"] = self.version
        out["path"] = self.path
        if self.git_commit is not None:
            out["gitCommit"] = self.git_commit
        if self.git_dirty is not None:
            out["gitDirty"] = self.git_dirty
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> PluginInfo:
        commit, dirty = data.get("gitCommit"), data.get("gitDirty")
        return cls(
            name=data.get("name", ""),
            path=data.get("path", ""),
            version=data.get("version"),
            git_commit=commit if isinstance(commit, str) else None,
            git_dirty=dirty if isinstance(dirty, bool) else None,
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class SuiteInfo:
    """What was evaluated and how: the document's `suite` field."""

    root: str
    ablation: str
    judge_model_resolved: str | None = None
    threshold: float = 1.0
    concurrency: int = 1
    plugins: list[PluginInfo] = field(default_factory=list)
    model_override: str | None = None
    judge_model: str | None = None  # as asked for (--judge-model)
    case_filter: str | list[str] | None = None
    tag_filters: list[str] | None = None
    scripted: bool = False
    regraded_from: str | None = None
    runs_override: int | None = None
    auto_runs: dict | None = None  # --runs auto: {first, max, width, lookLevel}
    shard: str | None = None  # "K/N": this session ran one share of the suite (--shard)
    merged_from: list[str] | None = None  # the shards' documents `plugin-eval merge` combined
    extra: dict = field(default_factory=dict)

    KNOWN = (
        "root",
        "ablation",
        "shard",
        "mergedFrom",
        "modelOverride",
        "judgeModel",
        "judgeModelResolved",
        "caseFilter",
        "tagFilters",
        "scripted",
        "regradedFrom",
        "threshold",
        "concurrency",
        "runsOverride",
        "autoRuns",
        "plugins",
    )

    def to_json(self) -> dict:
        out: dict[str, Any] = {"root": self.root, "ablation": self.ablation}
        if self.model_override:
            out["modelOverride"] = self.model_override
        if self.judge_model:
            out["judgeModel"] = self.judge_model
        if self.judge_model_resolved is not None:
            out["judgeModelResolved"] = self.judge_model_resolved
        if self.case_filter is not None:
            out["caseFilter"] = self.case_filter
        if self.tag_filters:
            out["tagFilters"] = list(self.tag_filters)
        if self.scripted:
            out["scripted"] = True
        if self.regraded_from is not None:
            out["regradedFrom"] = self.regraded_from
        out["threshold"] = self.threshold
        out["concurrency"] = self.concurrency
        if self.runs_override:
            out["runsOverride"] = self.runs_override
        if self.auto_runs is not None:
            out["autoRuns"] = dict(self.auto_runs)
        if self.shard is not None:
            out["shard"] = self.shard
        if self.merged_from is not None:
            out["mergedFrom"] = list(self.merged_from)
        out["plugins"] = [p.to_json() for p in self.plugins]
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> SuiteInfo:
        return cls(
            root=data.get("root", ""),
            ablation=data.get("ablation", "none"),
            judge_model_resolved=data.get("judgeModelResolved"),
            threshold=data.get("threshold", 1.0),
            concurrency=data.get("concurrency", 1),
            plugins=[PluginInfo.from_json(p) for p in data.get("plugins") or []],
            model_override=data.get("modelOverride"),
            judge_model=data.get("judgeModel"),
            case_filter=data.get("caseFilter"),
            tag_filters=data.get("tagFilters"),
            scripted=bool(data.get("scripted", False)),
            regraded_from=data.get("regradedFrom"),
            auto_runs=data.get("autoRuns"),
            runs_override=data.get("runsOverride"),
            shard=data.get("shard"),
            merged_from=data.get("mergedFrom"),
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class SuiteAggregates:
    cases_total: int
    cases_passed: int
    overall_score: float
    overall_pass_rate: float
    two_arm: bool = False
    mean_delta: float | None = None
    extra: dict = field(default_factory=dict)

    KNOWN = ("casesTotal", "casesPassed", "overallScore", "overallPassRate", "meanDelta")

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "casesTotal": self.cases_total,
            "casesPassed": self.cases_passed,
            "overallScore": self.overall_score,
            "overallPassRate": self.overall_pass_rate,
        }
        if self.two_arm:
            out["meanDelta"] = self.mean_delta
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> SuiteAggregates:
        return cls(
            cases_total=data.get("casesTotal", 0),
            cases_passed=data.get("casesPassed", 0),
            overall_score=data.get("overallScore", 0),
            overall_pass_rate=data.get("overallPassRate", 0),
            two_arm="meanDelta" in data,
            mean_delta=data.get("meanDelta"),
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class LoadErrorEntry:
    """A case that did not load: its name (or folder), its folder, and every problem with file and key."""

    case: str
    dir: str
    message: str
    problems: list[dict] = field(default_factory=list)  # [{file, key, message}]
    extra: dict = field(default_factory=dict)

    KNOWN = ("case", "dir", "message", "problems")

    def to_json(self) -> dict:
        return {"case": self.case, "dir": self.dir, "message": self.message, "problems": self.problems, **self.extra}

    @classmethod
    def from_json(cls, data: dict) -> LoadErrorEntry:
        return cls(
            case=data.get("case", ""),
            dir=data.get("dir", ""),
            message=data.get("message", ""),
            problems=list(data.get("problems") or []),
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class SkippedRun:
    """A run that was never started (the cost ceiling had been reached)."""

    case: str
    dir: str
    arm: str
    index: int
    reason: str
    extra: dict = field(default_factory=dict)

    KNOWN = ("case", "dir", "arm", "index", "reason")

    def to_json(self) -> dict:
        return {
            "case": self.case,
            "dir": self.dir,
            "arm": self.arm,
            "index": self.index,
            "reason": self.reason,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict) -> SkippedRun:
        return cls(
            case=data["case"],
            dir=data["dir"],
            arm=data["arm"],
            index=data["index"],
            reason=data["reason"],
            extra=_pop_extra(data, cls.KNOWN),
        )


@dataclass
class SuiteResult:
    """The results document of one session."""

    claude_version: str
    started_at: str
    duration_seconds: float
    suite: SuiteInfo
    cases: list[CaseResult]
    aggregates: SuiteAggregates
    cost_usd: float = 0.0
    partial: bool = False
    partial_reason: str | None = None  # why it is partial: interrupted, cost_ceiling, auth_failed, api_error…
    load_errors: list[LoadErrorEntry] = field(default_factory=list)
    skipped_runs: list[SkippedRun] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    schema_version: int = SCHEMA_VERSION
    extra: dict = field(default_factory=dict)

    KNOWN = (
        "schemaVersion",
        "claudeVersion",
        "startedAt",
        "durationSeconds",
        "costUsd",
        "partial",
        "partialReason",
        "suite",
        "cases",
        "aggregates",
        "loadErrors",
        "skippedRuns",
        "notices",
    )

    @property
    def two_arm(self) -> bool:
        """Whether any case ran both arms (then tables show WITH, W/OUT and Δ)."""
        return any(case.two_arm for case in self.cases)

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "schemaVersion": self.schema_version,
            "claudeVersion": self.claude_version,
            "startedAt": self.started_at,
            "durationSeconds": round(self.duration_seconds),
            "costUsd": self.cost_usd,
            "partial": self.partial,
        }
        if self.partial_reason is not None:
            out["partialReason"] = self.partial_reason
        out["suite"] = self.suite.to_json()
        out["cases"] = [case.to_json() for case in self.cases]
        out["aggregates"] = self.aggregates.to_json()
        out["loadErrors"] = [error.to_json() for error in self.load_errors]
        if self.skipped_runs:
            out["skippedRuns"] = [run.to_json() for run in self.skipped_runs]
        if self.notices:
            out["notices"] = list(self.notices)
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict) -> SuiteResult:
        return cls(
            claude_version=data.get("claudeVersion", "unknown"),
            started_at=data.get("startedAt", ""),
            duration_seconds=data.get("durationSeconds", 0),
            suite=SuiteInfo.from_json(data.get("suite") or {}),
            cases=[CaseResult.from_json(c) for c in data.get("cases") or []],
            aggregates=SuiteAggregates.from_json(data.get("aggregates") or {}),
            cost_usd=data.get("costUsd") or 0.0,
            partial=bool(data.get("partial", False)),
            partial_reason=data.get("partialReason"),
            load_errors=[LoadErrorEntry.from_json(e) for e in data.get("loadErrors") or []],
            skipped_runs=[SkippedRun.from_json(r) for r in data.get("skippedRuns") or []],
            notices=list(data.get("notices") or []),
            schema_version=data.get("schemaVersion", SCHEMA_VERSION),
            extra=_pop_extra(data, cls.KNOWN),
        )
