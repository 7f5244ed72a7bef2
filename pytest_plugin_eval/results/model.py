"""The results document as types: GraderResult ⊂ RunResult ⊂ CaseResult ⊂ SuiteResult.

One document describes a session (schemaVersion 1, camelCase, the reference tool's fields with the same meaning,
and only added fields). Everything that reads results reads these types: the xdist wire, the terminal table, the
HTML page, the hints, `--lf`, `--regrade`. Each field declares its JSON key, when it is left out and what it reads
as when absent (`jsonmap`); the fields are in the document's key order (those after `_: KW_ONLY` are passed by
keyword). Fields this version does not know are kept in `extra` and written back, so reading and writing a
document changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from ..core.kinds import Ablation, Arm, ErrorKind, Source
from .efficiency import Efficiency, Tokens, figures_of
from .findings import Finding
from .jsonmap import EXTRA, Document, SameAs, key, present, read, write
from .triggers import TriggerSetResult

SCHEMA_VERSION = 1

# Why a session's document is partial (the first that applies: `scoring.partial_reason`).
PartialReason = Literal[
    "interrupted",
    "cost_ceiling",
    "worker_lost",
    "auth_failed",
    "api_error",
    "missing_artefacts",
    "sandbox_failed",
    "judge_error",
    "trigger_run_error",
    "tool_refused",
]
SkipReason = Literal["cost_ceiling"]

# Run error kinds by what they mean. The harness could not make or read the run (or, with --strict-tools, Claude
# Code refused it a tool): its item fails, and --lf runs it again (also one stopped by the user or a lost worker);
# of those, a failure of the harness itself fails the session.
UNFINISHED_KINDS: tuple[ErrorKind, ...] = (
    "start",
    "api",
    "auth",
    "harness",
    "missing_artefacts",
    "sandbox",
    "tool_refused",
)
RERUN_KINDS: tuple[ErrorKind, ...] = (*UNFINISHED_KINDS, "interrupted", "worker_lost")
SESSION_FAILING_KINDS: tuple[ErrorKind, ...] = ("start", "harness")


def _or_zero(value: Any) -> Any:
    return value or 0.0


@dataclass
class GraderResult(Document):
    """One grader's verdict on one run. `scored`: it counts in the run's score (not an indicator, not errored,
    not skipped)."""

    name: str = field(metadata=key("name"))
    passed: bool = field(metadata=key("passed"))
    weight: float = field(metadata=key("weight", missing=1))
    explanation: str = field(metadata=key("explanation", missing=""))
    _: KW_ONLY
    with_only: bool = field(default=False, metadata=key("withOnly"))
    scored: bool = field(default=True, metadata=key("scored"))
    # llm/baseline: the model that judged, its votes, and what it read
    judge_model: str | None = field(default=None, metadata=key("judgeModel", omit="none"))
    judge_votes: list[bool] | None = field(default=None, metadata=key("judgeVotes", omit="none"))
    evidence: str | None = field(default=None, metadata=key("evidence", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
    cost_usd: float = field(default=0.0, metadata=key("costUsd", omit="falsy"))  # a judge's cost
    # the grader could not judge (its judge was unavailable) / a paid grader skipped by the cost ceiling
    errored: bool = field(default=False, metadata=key("errored", omit="falsy"))
    skipped: bool = field(default=False, metadata=key("skipped", omit="falsy"))


@dataclass
class RunResult(Document):
    """One run of one case in one arm."""

    arm: Arm  # the key of the case's `arms` it is under, not written in the run
    _: KW_ONLY
    score: float | None = field(metadata=key("score", missing=None))
    passed: bool = field(metadata=key("passed", missing=False))
    turns: int = field(default=0, metadata=key("turns"))
    cost_usd: float = field(default=0.0, metadata=key("costUsd", read=_or_zero))  # the agent's, mocks', judges'
    judge_cost_usd: float = field(default=0.0, metadata=key("judgeCostUsd", read=_or_zero))
    duration_seconds: float = field(
        default=0.0, metadata=key("durationSeconds", read=_or_zero, write=lambda s: round(s, 3))
    )
    started_at: str = field(default="", metadata=key("startedAt"))
    error: str | None = field(default=None, metadata=key("error"))
    trace_path: str | None = field(default=None, metadata=key("tracePath"))
    skipped_paid_graders: bool = field(default=False, metadata=key("skippedPaidGraders"))
    graders: list[GraderResult] = field(default_factory=list, metadata=key("graders"))
    error_kind: ErrorKind | None = field(default=None, metadata=key("errorKind", omit="falsy"))
    # {server, tool, reason}: a mock stopped the run / the run's MCP stand-ins and what they answered
    aborted: dict[str, Any] | None = field(default=None, metadata=key("aborted", omit="none"))
    mocks: dict[str, Any] | None = field(default=None, metadata=key("mocks", omit="none"))
    # [{tool, why}]: the calls Claude Code refused in this run, in trace order (run/refusals.py)
    refused_tools: list[dict[str, str]] = field(default_factory=list, metadata=key("refusedTools", omit="falsy"))
    workspace: str | None = field(default=None, metadata=key("workspace", omit="falsy"))  # kept with --keep-temp
    # A conversation's user side (run/conversation.py): {messages: [{by, text}], questions: [{question, header,
    # answer, by}], userCostUsd, userCapped} — who wrote each user message (prompt, scripted, simulated), each
    # answer, and whether the simulated user reached its max_user_turns.
    conversation: dict[str, Any] | None = field(default=None, metadata=key("conversation", omit="none"))
    # >1 when API errors made the harness run it again
    attempts: int = field(default=1, metadata=key("attempts", omit=lambda n: not n > 1))
    index: int = field(kw_only=False, metadata=key("index"))  # 1-based, in its arm
    reused: bool = field(default=False, metadata=key("reused", omit="falsy"))  # taken from the last session (--lf)
    # What a fresh run depended on (run/conditions.py; a run that loads the plugin adds `plugin`, its content), so
    # that a later session can tell whether it may stand for a run of its own (--reuse-baseline: without-plugin
    # runs, and with-plugin runs for --against's version); and, when it does, where the agent made it:
    # {session: that session's startedAt, index, agentCostUsd} — it was graded again in this session, not run.
    conditions: dict[str, Any] | None = field(default=None, metadata=key("conditions", omit="none"))
    reused_from: dict[str, Any] | None = field(default=None, metadata=key("reusedFrom", omit="none"))
    # What the agent spent (results/efficiency.py): tool_use blocks (subagents' included), tokens by kind from the
    # trace's result line, and the agent's own wall time (prompt to exit, no grading). None: not measured (a run
    # that never reached a trace, or one recorded before these were).
    tool_calls: int | None = field(default=None, metadata=key("toolCalls", omit="none"))
    tokens: Tokens | None = field(default=None, metadata=key("tokens", omit="none"))
    agent_seconds: float | None = field(
        default=None, metadata=key("agentSeconds", omit="none", write=lambda s: None if s is None else round(s, 3))
    )
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
    notes: list[str] = field(default_factory=list)  # notices for the session, not part of the document

    @property
    def figures(self) -> dict[str, float] | None:
        """What the run spent, by efficiency figure (`efficiency.FIGURES`); None for a run that says nothing of
        the plugin's cost: not measured, or one the harness could not make or the model not answer."""
        if self.tool_calls is None or self.error_kind in RERUN_KINDS or self.error_kind == "scaffold":
            return None
        # a reused without-plugin run cost its agent in the session that made it
        agent_cost = (self.reused_from or {}).get("agentCostUsd", self.cost_usd - self.judge_cost_usd)
        return figures_of(
            turns=self.turns,
            tool_calls=self.tool_calls,
            tokens=self.tokens or Tokens(),
            cost_usd=agent_cost if isinstance(agent_cost, (int, float)) else 0.0,
            seconds=self.agent_seconds,
        )

    @property
    def failing(self) -> list[GraderResult]:
        """Scored graders that failed."""
        return [g for g in self.graders if g.scored and not g.passed]

    @property
    def infrastructure_error(self) -> bool:
        """The model could not be reached: the run says nothing about the plugin."""
        return self.error_kind in ("api", "auth")

    GIVEN = frozenset({"index"})  # a missing index is the run's position in its arm

    @classmethod
    def from_json(cls, data: Mapping[str, Any], arm: Arm = "with", position: int = 1) -> RunResult:
        """A run as the document has it under `arm`; `position` (1-based, in its arm) stands in for a missing
        `index`."""
        return read(cls, data, arm=arm, index=data.get("index", position))


@dataclass
class GraderInfo(Document):
    """A grader's definition as the document records it."""

    name: str = field(metadata=key("name"))
    type: str = field(metadata=key("type", missing=""))
    weight: float = field(metadata=key("weight", missing=1))
    _: KW_ONLY
    markdown: str | None = field(default=None, metadata=key("graderMarkdown", omit="none"))  # llm/baseline rubric
    config: dict[str, Any] = field(kw_only=False, metadata=key("config"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


def _pair(ci: Any) -> tuple[float, float] | None:
    return (ci[0], ci[1]) if ci else None


@dataclass
class Marginal(Document):
    """The with-plugin arm against another arm of the same runs (--against, --ablate): that arm's mean score, and
    Δ = WITH − it with a paired interval (run n against run n). For the suite (`component` set under
    `aggregates.ablations`), over every case's pairs."""

    score: float | None = field(metadata=key("score", missing=None))
    delta: float | None = field(metadata=key("delta", missing=None))
    _: KW_ONLY
    delta_ci: tuple[float, float] | None = field(default=None, metadata=key("deltaCI", omit="none", read=_pair))
    pairs: int = field(default=0, metadata=key("pairs", missing=0))
    component: str | None = field(default=None, metadata=key("component", omit="none"))
    cases: int | None = field(default=None, metadata=key("cases", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @property
    def worse(self) -> bool:
        """WITH is worse than the other arm: the interval lies below 0."""
        return self.delta_ci is not None and self.delta_ci[1] < 0

    @property
    def better(self) -> bool:
        return self.delta_ci is not None and self.delta_ci[0] > 0


@dataclass
class CaseAggregates(Document):
    """A case's numbers over its runs. The without-arm fields exist only when that arm ran (`two_arm`).
    `pass_at_k` / `pass_hat_k`: over the with arm's scored runs, k → the estimated chance that at least one /
    all of k runs pass (k = 1 … n; None in a document written before they were added)."""

    score: float | None = field(metadata=key("score", missing=None))
    pass_rate: float | None = field(metadata=key("passRate", missing=None))
    _: KW_ONLY
    two_arm: bool = field(default=False, metadata=present("delta"))
    score_without: float | None = field(default=None, metadata=key("scoreWithout", when="two_arm"))
    pass_rate_without: float | None = field(default=None, metadata=key("passRateWithout", when="two_arm"))
    delta: float | None = field(default=None, metadata=key("delta", when="two_arm"))
    stdev_with: float | None = field(default=None, metadata=key("stdevWith"))
    stdev_without: float | None = field(default=None, metadata=key("stdevWithout", when="two_arm"))
    delta_ci: tuple[float, float] | None = field(default=None, metadata=key("deltaCI", when="two_arm", read=_pair))
    delta_significant: bool | None = field(default=None, metadata=key("deltaSignificant", when="two_arm"))
    # JSON object keys are strings: {"1": …, "2": …}.
    pass_at_k: dict[int, float | None] | None = field(default=None, metadata=key("passAtK", omit="none"))
    pass_hat_k: dict[int, float | None] | None = field(default=None, metadata=key("passHatK", omit="none"))
    # what each arm's runs spent (turns, tokens, cost, seconds…), their medians and with − without
    efficiency: Efficiency | None = field(default=None, metadata=key("efficiency", omit="none"))
    # --against: the other version's arm (WITH − AGAINST); --ablate: component → WITH − the plugin without it
    delta_against: Marginal | None = field(default=None, metadata=key("deltaAgainst", omit="none"))
    ablations: dict[str, Marginal] = field(default_factory=dict, metadata=key("ablations", omit="falsy"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


def _arms(arms: Any) -> dict[Arm, list[RunResult]]:
    """Each arm's runs; a run's place in its arm stands in for a missing `index`."""
    return {
        arm: [RunResult.from_json(run, arm, i) for i, run in enumerate(runs, 1)]
        for arm, runs in (arms or {"with": []}).items()
    }


@dataclass
class CaseResult(Document):
    """One case: what it is (from its files, as this session ran it), its runs per arm, and its aggregates."""

    name: str = field(metadata=key("name"))
    dir: str = field(metadata=key("dir", missing=SameAs("name")))  # relative to the suite root
    source: Source = field(metadata=key("source", missing=""))
    prompt: str = field(metadata=key("promptMarkdown", missing=""))
    runs_per_case: int = field(metadata=key("runsPerCase", missing=3))  # as the case file says
    timeout_seconds: int = field(metadata=key("timeoutSeconds", missing=300))
    max_turns: int = field(metadata=key("maxTurns", missing=10))
    _: KW_ONLY
    model: str | None = field(default=None, metadata=key("model", omit="none"))  # as the case file says
    graders: list[GraderInfo] = field(kw_only=False, metadata=key("graders"))
    # what this session ran (--runs wins)
    runs_per_arm: int = field(kw_only=False, metadata=key("runsPerArm", missing=SameAs("runs_per_case")))
    effective_model: str | None = field(default=None, metadata=key("effectiveModel", omit="falsy"))
    tags: tuple[str, ...] = field(default=(), metadata=key("tags", omit="falsy"))
    description: str | None = field(default=None, metadata=key("description", omit="none"))
    expected_outcome: str | None = field(default=None, metadata=key("expectedOutcome", omit="none"))
    single_arm_reason: str | None = field(default=None, metadata=key("singleArmReason", omit="none"))
    # --runs auto: {runs, stopped}, how many runs per arm it took and why no more
    auto_runs: dict[str, Any] | None = field(default=None, metadata=key("autoRuns", omit="none"))
    # what keeps the case from passing as written (a tool not granted)
    warnings: list[str] = field(default_factory=list, metadata=key("warnings", omit="falsy"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
    arms: dict[Arm, list[RunResult]] = field(default_factory=lambda: {"with": []}, metadata=key("arms", read=_arms))
    aggregates: CaseAggregates = field(default_factory=lambda: CaseAggregates(None, None), metadata=key("aggregates"))
    hints: list[str] = field(default_factory=list, metadata=key("hints", omit="falsy"))

    def runs(self, arm: Arm | None = None) -> list[RunResult]:
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

    def header_json(self) -> dict[str, Any]:
        """What the case is, without its runs: the fields before `arms`."""
        return write(self, stop="arms")

    @classmethod
    def header_from_json(cls, data: Mapping[str, Any]) -> CaseResult:
        """A case with no runs yet, from its header (`header_json`)."""
        return cls.from_json({**data, "arms": {"with": []}, "aggregates": {}})


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bool_or_none(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _descriptions(value: Any) -> dict[str, str | None] | None:
    """Skill name → description; a description that is not text reads as none."""
    if not isinstance(value, dict):
        return None
    return {str(name): text if isinstance(text, str) else None for name, text in value.items()}


@dataclass
class PluginInfo(Document):
    """The plugin under test: its manifest's name and version, its folder, and — when the folder is in a git
    repository — the commit checked out (`gitCommit`) and whether the work tree had uncommitted changes under
    the folder (`gitDirty`; None when that could not be told); what the runs saw of it: each skill's
    `description` by its qualified name (`skillDescriptions`; None: a skill without one) and a hash of its files
    outside the eval dir (`contentHash`), so two sessions of one commit still tell a description change apart."""

    name: str = field(metadata=key("name", missing=""))
    _: KW_ONLY
    version: str | None = field(default=None, metadata=key("version", omit="none"))
    path: str = field(kw_only=False, metadata=key("path", missing=""))
    git_commit: str | None = field(default=None, metadata=key("gitCommit", omit="none", read=_str_or_none))
    git_dirty: bool | None = field(default=None, metadata=key("gitDirty", omit="none", read=_bool_or_none))
    # None: not recorded (a document written before these fields were)
    skill_descriptions: dict[str, str | None] | None = field(
        default=None, metadata=key("skillDescriptions", omit="none", read=_descriptions)
    )
    content_hash: str | None = field(default=None, metadata=key("contentHash", omit="none", read=_str_or_none))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class SuiteInfo(Document):
    """What was evaluated and how: the document's `suite` field."""

    root: str = field(metadata=key("root", missing=""))
    ablation: Ablation = field(metadata=key("ablation", missing="none"))
    _: KW_ONLY
    model_override: str | None = field(default=None, metadata=key("modelOverride", omit="falsy"))
    judge_model: str | None = field(default=None, metadata=key("judgeModel", omit="falsy"))  # as asked for
    judge_model_resolved: str | None = field(default=None, metadata=key("judgeModelResolved", omit="none"))
    case_filter: str | list[str] | None = field(default=None, metadata=key("caseFilter", omit="none"))
    tag_filters: list[str] | None = field(default=None, metadata=key("tagFilters", omit="falsy"))
    scripted: bool = field(default=False, metadata=key("scripted", omit="falsy"))
    regraded_from: str | None = field(default=None, metadata=key("regradedFrom", omit="none"))
    threshold: float = field(default=1.0, metadata=key("threshold"))
    concurrency: int = field(default=1, metadata=key("concurrency"))
    runs_override: int | None = field(default=None, metadata=key("runsOverride", omit="falsy"))
    # --runs auto: {first, max, width, lookLevel}
    auto_runs: dict[str, Any] | None = field(default=None, metadata=key("autoRuns", omit="none"))
    # "K/N": this session ran one share of the suite (--shard); the shards' documents `plugin-eval merge` combined
    shard: str | None = field(default=None, metadata=key("shard", omit="none"))
    merged_from: list[str] | None = field(default=None, metadata=key("mergedFrom", omit="none"))
    # --against REF (as given) and --ablate's components; --fail-on-worse: a case worse than REF fails the session
    against: str | None = field(default=None, metadata=key("against", omit="none"))
    ablated: list[str] = field(default_factory=list, metadata=key("ablated", omit="falsy"))
    fail_on_worse: bool = field(default=False, metadata=key("failOnWorse", omit="falsy"))
    plugins: list[PluginInfo] = field(default_factory=list, metadata=key("plugins"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class SuiteAggregates(Document):
    cases_total: int = field(metadata=key("casesTotal", missing=0))
    cases_passed: int = field(metadata=key("casesPassed", missing=0))
    overall_score: float = field(metadata=key("overallScore", missing=0))
    overall_pass_rate: float = field(metadata=key("overallPassRate", missing=0))
    _: KW_ONLY
    two_arm: bool = field(default=False, metadata=present("meanDelta"))
    mean_delta: float | None = field(default=None, metadata=key("meanDelta", when="two_arm"))
    # over the cases: the median case's figures per arm and the median of the cases' with − without
    efficiency: Efficiency | None = field(default=None, metadata=key("efficiency", omit="none"))
    # --against over every case's pairs; --ablate: one per component, the one that carried the most score first
    delta_against: Marginal | None = field(default=None, metadata=key("deltaAgainst", omit="none"))
    ablations: list[Marginal] = field(default_factory=list, metadata=key("ablations", omit="falsy"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class LoadErrorEntry(Document):
    """A case that did not load: its name (or folder), its folder, and every problem with file and key."""

    case: str = field(metadata=key("case", missing=""))
    dir: str = field(metadata=key("dir", missing=""))
    message: str = field(metadata=key("message", missing=""))
    problems: list[dict[str, Any]] = field(default_factory=list, metadata=key("problems"))  # [{file, key, message}]
    _: KW_ONLY
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class SkippedRun(Document):
    """A run that was never started (the cost ceiling had been reached)."""

    case: str = field(metadata=key("case"))
    dir: str = field(metadata=key("dir"))
    arm: Arm = field(metadata=key("arm"))
    index: int = field(metadata=key("index"))
    reason: SkipReason = field(metadata=key("reason"))
    _: KW_ONLY
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class SuiteResult(Document):
    """The results document of one session."""

    _: KW_ONLY
    schema_version: int = field(default=SCHEMA_VERSION, metadata=key("schemaVersion"))
    claude_version: str = field(kw_only=False, metadata=key("claudeVersion", missing="unknown"))
    started_at: str = field(kw_only=False, metadata=key("startedAt", missing=""))
    duration_seconds: float = field(kw_only=False, metadata=key("durationSeconds", missing=0, write=round))
    cost_usd: float = field(default=0.0, metadata=key("costUsd", read=_or_zero))
    partial: bool = field(default=False, metadata=key("partial"))
    partial_reason: PartialReason | None = field(default=None, metadata=key("partialReason", omit="none"))
    suite: SuiteInfo = field(kw_only=False, metadata=key("suite"))
    cases: list[CaseResult] = field(kw_only=False, metadata=key("cases"))
    aggregates: SuiteAggregates = field(kw_only=False, metadata=key("aggregates"))
    load_errors: list[LoadErrorEntry] = field(default_factory=list, metadata=key("loadErrors"))
    skipped_runs: list[SkippedRun] = field(default_factory=list, metadata=key("skippedRuns", omit="falsy"))
    notices: list[str] = field(default_factory=list, metadata=key("notices", omit="falsy"))
    triggers: list[TriggerSetResult] = field(default_factory=list, metadata=key("triggers", omit="falsy"))
    # what makes a case's numbers measure less than they seem to (results/findings.py)
    findings: list[Finding] = field(default_factory=list, metadata=key("findings", omit="falsy"))
    # How the runs and the judges reached the model (run/access.py): which sign-in, directly or through Claude Code.
    access: dict[str, Any] | None = field(default=None, metadata=key("access", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @property
    def two_arm(self) -> bool:
        """Whether any case ran both arms (then tables show WITH, W/OUT and Δ)."""
        return any(case.two_arm for case in self.cases)
