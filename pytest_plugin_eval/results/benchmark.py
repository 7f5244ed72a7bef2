"""A session in skill-creator's benchmark.json schema (`--skill-creator-benchmark PATH`), so that its viewer can
show our runs: a `runs[]` entry per run (configuration `with_skill` / `without_skill`, pass rate, time, tokens),
`run_summary` per configuration (mean, sample stddev, min, max) and `delta`, and our hints as `notes`.

The field names are the ones skill-creator's viewer reads (references/schemas.md). Where skill-creator guesses, we
say what we measured: tokens are the agent's from Claude Code's own usage, not characters; `delta` is always
with_skill − without_skill, whatever the names sort as; `runs_per_configuration` is the runs actually made.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from ..load.skill_evals import expectation_of
from ..run.transcript import Transcript
from ..stats import mean, stdev
from .hints import suite_hints
from .jsonmap import EXTRA, Document, key
from .model import CaseResult, GraderResult, RunResult, SuiteResult

CONFIGURATIONS = {"with": "with_skill", "without": "without_skill"}
METRICS = ("pass_rate", "time_seconds", "tokens")
DELTA_FORMATS = {"pass_rate": "{:+.2f}", "time_seconds": "{:+.1f}", "tokens": "{:+.0f}"}


@dataclass
class Spread(Document):
    """A metric over a configuration's runs: mean, sample stddev, min, max (min and max as the runs gave them)."""

    mean: float = field(metadata=key("mean"))
    stddev: float = field(metadata=key("stddev"))
    min: float = field(metadata=key("min"))
    max: float = field(metadata=key("max"))


@dataclass
class ConfigurationSummary(Document):
    pass_rate: Spread = field(metadata=key("pass_rate"))
    time_seconds: Spread = field(metadata=key("time_seconds"))
    tokens: Spread = field(metadata=key("tokens"))


@dataclass
class RunSummary(Document):
    """Each configuration's spreads, and `delta` (with_skill − without_skill, as skill-creator formats it) when both
    ran."""

    with_skill: ConfigurationSummary | None = field(default=None, metadata=key("with_skill", omit="none"))
    without_skill: ConfigurationSummary | None = field(default=None, metadata=key("without_skill", omit="none"))
    delta: dict[str, str] | None = field(default=None, metadata=key("delta", omit="none"))


@dataclass
class RunOutcome(Document):
    pass_rate: float = field(metadata=key("pass_rate"))  # over the graded expectations
    passed: int = field(metadata=key("passed"))
    failed: int = field(metadata=key("failed"))
    total: int = field(metadata=key("total"))
    time_seconds: float = field(metadata=key("time_seconds"))
    tokens: int = field(metadata=key("tokens"))
    tool_calls: int = field(metadata=key("tool_calls"))
    errors: int = field(metadata=key("errors"))


@dataclass
class Expectation(Document):
    text: str = field(metadata=key("text"))
    passed: bool = field(metadata=key("passed"))
    evidence: str = field(metadata=key("evidence"))


@dataclass
class BenchmarkRun(Document):
    eval_id: int | str = field(metadata=key("eval_id"))
    eval_name: str = field(metadata=key("eval_name"))
    configuration: str = field(metadata=key("configuration"))  # with_skill | without_skill
    run_number: int = field(metadata=key("run_number"))
    result: RunOutcome = field(metadata=key("result"))
    expectations: list[Expectation] = field(default_factory=list, metadata=key("expectations"))
    notes: list[str] = field(default_factory=list, metadata=key("notes"))


@dataclass
class BenchmarkMetadata(Document):
    skill_name: str = field(metadata=key("skill_name"))
    skill_path: str = field(metadata=key("skill_path"))
    executor_model: str = field(metadata=key("executor_model"))
    analyzer_model: str = field(metadata=key("analyzer_model"))
    timestamp: str = field(metadata=key("timestamp"))
    evals_run: list[int | str] = field(default_factory=list, metadata=key("evals_run"))
    runs_per_configuration: int = field(default=0, metadata=key("runs_per_configuration"))


@dataclass
class Benchmark(Document):
    """skill-creator's benchmark.json of one suite."""

    metadata: BenchmarkMetadata = field(metadata=key("metadata"))
    runs: list[BenchmarkRun] = field(default_factory=list, metadata=key("runs"))
    run_summary: RunSummary = field(default_factory=RunSummary, metadata=key("run_summary"))
    notes: list[str] = field(default_factory=list, metadata=key("notes"))
    _: KW_ONLY
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


def benchmark(document: SuiteResult) -> Benchmark:
    """The benchmark.json of one suite's results document."""
    ids = eval_ids(document.cases)
    runs = [
        run_entry(case, ids[case.name], arm, run)
        for case in document.cases
        for arm in ("with", "without")
        for run in case.runs(arm)
        if run.score is not None or run.error
    ]
    summary = RunSummary()
    for configuration in CONFIGURATIONS.values():
        results = [r.result for r in runs if r.configuration == configuration]
        if results:
            setattr(summary, configuration, configuration_summary(results))
    if summary.with_skill is not None and summary.without_skill is not None:
        summary.delta = {
            metric: DELTA_FORMATS[metric].format(
                getattr(summary.with_skill, metric).mean - getattr(summary.without_skill, metric).mean
            )
            for metric in METRICS
        }
    return Benchmark(metadata(document, ids), runs, summary, notes(document))


def configuration_summary(results: list[RunOutcome]) -> ConfigurationSummary:
    spreads = {metric: spread([getattr(r, metric) for r in results]) for metric in METRICS}
    return ConfigurationSummary(**spreads)


def metadata(document: SuiteResult, ids: dict[str, int | str]) -> BenchmarkMetadata:
    plugin = document.suite.plugins[0] if document.suite.plugins else None
    skills = {case.name.split("/")[0] for case in document.cases if case.source == "skill_creator"}
    models = {case.effective_model or case.model for case in document.cases} - {None}
    executor = document.suite.model_override or (models.pop() if len(models) == 1 else None)
    return BenchmarkMetadata(
        skill_name=skills.pop() if len(skills) == 1 else (plugin.name if plugin else ""),
        skill_path=plugin.path if plugin else document.suite.root,
        executor_model=executor or "default",
        analyzer_model=document.suite.judge_model_resolved or document.suite.judge_model or "",
        timestamp=document.started_at,
        evals_run=list(ids.values()),
        runs_per_configuration=max((len(case.runs(arm)) for case in document.cases for arm in case.arms), default=0),
    )


def eval_ids(cases: list[CaseResult]) -> dict[str, int | str]:
    """Each case's eval id: an evals.json eval's own when it is a number, else the case's place in the suite."""
    out: dict[str, int | str] = {}
    for number, case in enumerate(cases, 1):
        own = case.name.rsplit("/", 1)[-1] if case.source == "skill_creator" else ""
        out[case.name] = int(own) if own.isdigit() else number
    return out


def run_entry(case: CaseResult, eval_id: int | str, arm: str, run: RunResult) -> BenchmarkRun:
    graded = [g for g in run.graders if g.scored and not g.errored and not g.skipped]
    passed = sum(1 for g in graded if g.passed)
    usage = run_usage(run)
    outcome = RunOutcome(
        pass_rate=round(passed / len(graded), 4) if graded else 0.0,
        passed=passed,
        failed=len(graded) - passed,
        total=len(graded),
        time_seconds=round(run.duration_seconds, 3),
        tokens=usage[0],
        tool_calls=usage[1],
        errors=1 if run.error else 0,
    )
    expectations = [expectation(case, g) for g in graded]
    return BenchmarkRun(
        eval_id, case.name, CONFIGURATIONS[arm], run.index, outcome, expectations, [run.error] if run.error else []
    )


def expectation(case: CaseResult, grader: GraderResult) -> Expectation:
    info = next((g for g in case.graders if g.name == grader.name), None)
    text = expectation_of(info.markdown or "") if info is not None else None
    return Expectation(text or grader.name, grader.passed, grader.explanation)


def run_usage(run: RunResult) -> tuple[int, int]:
    """(tokens, tool calls) of the run's agent: as the run recorded them, else from its trace (a run recorded before
    they were); (0, 0) when the trace is gone."""
    if run.tokens is not None and run.tool_calls is not None:
        return run.tokens.total, run.tool_calls
    if not run.trace_path or not Path(run.trace_path).is_file():
        return 0, 0
    transcript = Transcript.from_file(Path(run.trace_path))
    tokens = sum(
        u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
        for u in transcript.usage_by_model().values()
    )
    return tokens, len(transcript.tool_calls)


def spread(values: list[float]) -> Spread:
    centre = mean(values) or 0.0
    return Spread(round(centre, 4), round(stdev(values) or 0.0, 4), min(values), max(values))


def notes(document: SuiteResult) -> list[str]:
    """Our hints, each case's named, and the suite's."""
    out = [f"{case.name}: {hint}" for case in document.cases for hint in case.hints]
    return out + suite_hints(document.cases)
