"""Every command-line option, spelled as `claude plugin eval` spells it, and the values they become.

The options are pytest options (`pytest evals/ --threshold 0.8`); `plugin-eval` passes the reference tool's
command line through the same definitions. Values are checked once, on the controller (`option_parse`), and the
checked values travel as one plain `EvalOptions` object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..adaptive import AutoRuns
from ..core.kinds import Ablation
from .option_values import (
    as_bool,
    as_given,
    as_tuple,
    parse_ablate,
    parse_ablation,
    parse_against,
    parse_allow_tools,
    parse_api_retries,
    parse_claude,
    parse_compare_to,
    parse_concurrency,
    parse_disallow_tools,
    parse_eval_dir,
    parse_json_path,
    parse_max_cost,
    parse_max_false_fire,
    parse_min_recall,
    parse_mocks,
    parse_models,
    parse_regrade,
    parse_runs,
    parse_shard_option,
    parse_tags,
    parse_threshold,
)

ABLATIONS = ("none", "with-without")
MOCK_MODES = ("record", "off")
MAX_CONCURRENCY = 8


# The marker of trigger runs: `-m plugin_eval_trigger` (`plugin-eval triggers`) runs the trigger sets alone.
TRIGGER_MARKER = "plugin_eval_trigger"

# The key of what an eval session's controller hands its pytest-xdist workers (config.workerinput).
WORKER_INPUT_KEY = "plugin_eval"


@dataclass(frozen=True)
class EvalOptions:
    trust_plugin: bool = False
    json_path: str | None = None  # "-" = print the document to stdout
    threshold: float = 1.0
    runs: int | None = None
    auto_runs: AutoRuns | None = None  # --runs auto[:MAX[:WIDTH]]: runs per arm chosen case by case
    model: str | None = None  # one model for every case (a matrix: None, and `models` names them)
    models: tuple[str, ...] = ()  # --model A,B,…: the model matrix (two or more models; matrix.md)
    judge_model: str | None = None
    ablation: Ablation | None = None  # None = with-without when a plugin resolves, else none
    allow_tools: tuple[str, ...] = ()
    disallow_tools: tuple[str, ...] = ()
    case_globs: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    keep_temp: bool = False
    output_dir: str | None = None
    report: str | None = None
    max_cost_usd: float | None = None
    scaffold: bool = False
    mocks: str = "record"
    allow_real_servers: bool = False
    eval_dir: str | None = None
    claude: str | None = None
    scripted: bool = False
    concurrency: int | None = None
    api_retries: int = 1
    regrade: str | None = None
    shard: tuple[int, int] | None = None  # (K, N): run the K-th of N shares of the suite
    compare_to: str | None = None  # an earlier session's results folder or JSON file, checked readable
    md_path: str | None = None  # --md: where the Markdown summary goes
    benchmark_path: str | None = None  # --skill-creator-benchmark: the session as skill-creator's benchmark.json
    trigger_skill: str | None = None  # the skill of skill-creator trigger entries that name none
    min_recall: float | None = None  # a trigger set below this recall fails
    max_false_fire: float | None = None  # a trigger set above this false-fire rate fails
    reuse_baseline: bool = False  # --reuse-baseline (or the eval_reuse_baseline ini setting)
    strict_tools: bool = False  # --strict-tools (or the eval_strict_tools ini setting)
    against: str | None = None  # --against REF: another version of the plugin as a third arm
    ablate: tuple[str, ...] = ()  # --ablate A,B: an arm per component, the plugin without it
    fail_on_worse: bool = False  # --fail-on-worse: exit 1 when a case is worse than --against's version

    @property
    def matrix(self) -> bool:
        """--model A,B,…: every case and trigger set runs on each model."""
        return bool(self.models)

    def for_model(self, model: str | None) -> EvalOptions:
        """The options as a session with `--model MODEL` alone has them: what one model's runs and document are
        made under in a matrix (itself outside one)."""
        if model is None or not self.models:
            return self
        from dataclasses import replace

        return replace(self, model=model, models=())


@dataclass(frozen=True)
class Option:
    """One option of the reference command line, as pytest registers it and `plugin-eval` reads it."""

    names: tuple[str, ...]  # the last is the long spelling
    dest: str
    help: str
    # value | flag | list (one or more values) | append (a repeatable value) | optional (a value may follow)
    kind: str = "value"
    default: object = None
    metavar: str | None = None
    store_false: bool = False  # a flag that turns `dest` off (--no-scaffold)
    # The EvalOptions field (or fields) the option fills, and its parser (option_values.py): (raw value, the whole
    # namespace) → the value (a tuple of values for several fields). No field: an option EvalOptions does not keep.
    field: str | tuple[str, ...] | None = None
    parse: Callable[[Any, Any], Any] = as_given
    # Given on the command line, the option makes a pytest run an eval session (its hooks start) even where the
    # run collects from no eval dir (option_parse.eval_options_given).
    marks_session: bool = False

    @property
    def name(self) -> str:
        return self.names[-1]


OPTIONS = (
    Option(
        ("--trust-plugin",),
        "trust_plugin",
        "Run the suite without asking: evaluating a plugin runs its code as you (required without a terminal)",
        kind="flag",
        default=False,
        field="trust_plugin",
        marks_session=True,
    ),
    Option(
        ("--json",),
        "eval_json",
        "Also write the results document to PATH (must end in .json); without PATH, print it to stdout",
        kind="optional",
        metavar="PATH",
        field="json_path",
        parse=parse_json_path,
        marks_session=True,
    ),
    Option(
        ("--threshold",),
        "eval_threshold",
        "Minimum with-plugin score (0..1) every case must reach for exit 0 (default 1.0)",
        metavar="SCORE",
        field="threshold",
        parse=parse_threshold,
        marks_session=True,
    ),
    Option(
        ("--runs",),
        "eval_runs",
        "Override every case's runs per arm (fractions are truncated); auto[:MAX[:WIDTH]] adds runs to a case, both arms alike, only while "
        "its Δ interval straddles 0 and is wider than WIDTH (3 runs first, MAX 10, WIDTH 0.3 unless given)",
        metavar="N|auto",
        field=("runs", "auto_runs"),
        parse=parse_runs,
        marks_session=True,
    ),
    Option(
        ("--model",),
        "eval_model",
        "Model of the agent under test, for every case (else the case's model:, else ANTHROPIC_MODEL); "
        "A,B,… runs every case and trigger set on each model, a results document per model (docs/matrix.md)",
        metavar="MODEL[,MODEL…]",
        field=("model", "models"),
        parse=parse_models,
    ),
    Option(
        ("--judge-model",),
        "eval_judge_model",
        "Model of llm/baseline judges and agent mocks: an id or haiku/sonnet/opus "
        "(default: haiku, or ANTHROPIC_SMALL_FAST_MODEL)",
        metavar="MODEL",
        field="judge_model",
    ),
    Option(
        ("--ablation",),
        "eval_ablation",
        "with-without (default when a plugin resolves): also run each case "
        "without the plugin and report Δ; none: only the with-plugin arm",
        metavar="MODE",
        field="ablation",
        parse=partial(parse_ablation, choices=ABLATIONS),
        marks_session=True,
    ),
    Option(
        ("--against",),
        "eval_against",
        "Run every case also with another version of the plugin — a git revision of its repository (a commit, "
        "tag or branch) or a folder holding it — as a third arm, `against`: same prompts, runs and graders; per "
        "case ΔAGAINST = WITH − AGAINST with a paired interval (docs/arms.md); with --reuse-baseline, stored "
        "with-plugin runs made on that very version stand for its runs. To compare with a stored session's "
        "results instead: --compare-to",
        metavar="REF",
        field="against",
        parse=parse_against,
    ),
    Option(
        ("--ablate",),
        "eval_ablate",
        "An arm per component (a skill, command or agent by name, `hooks`, an MCP server): the plugin without "
        "it, `ablate:<component>`; per case and for the suite, what the component adds (WITH − ablated) with a "
        "paired interval, ranked (docs/arms.md)",
        metavar="COMPONENT[,COMPONENT…]",
        field="ablate",
        parse=parse_ablate,
    ),
    Option(
        ("--fail-on-worse",),
        "eval_fail_on_worse",
        "With --against: exit 1 when a case is worse than the other version (its ΔAGAINST interval lies below 0)",
        kind="flag",
        default=False,
        field="fail_on_worse",
    ),
    Option(
        ("--allow-tools",),
        "eval_allow_tools",
        "Grant gated tools to the agent (Bash, Write, Edit, NotebookEdit, WebFetch, WebSearch, PowerShell, mcp__*); "
        "Tool(pattern) works. "
        "Several: --allow-tools=Write,Edit (a space-separated list reads up to the next option)",
        kind="list",
        default=[],
        metavar="TOOL",
        field="allow_tools",
        parse=parse_allow_tools,
    ),
    Option(
        ("--disallow-tools",),
        "eval_disallow_tools",
        "Built-in tools to remove from the agent in every case (e.g. --disallow-tools=Agent,TaskStop)",
        kind="list",
        default=[],
        metavar="TOOL",
        field="disallow_tools",
        parse=parse_disallow_tools,
    ),
    Option(
        ("--case",),
        "eval_case",
        "Only cases whose name matches GLOB (* and ?; repeatable)",
        kind="append",
        default=[],
        metavar="GLOB",
        field="case_globs",
        parse=as_tuple,
        marks_session=True,
    ),
    Option(
        ("--tag",),
        "eval_tag",
        "Only cases with at least one of these tags (repeatable; --tag=a,b)",
        kind="list",
        default=[],
        metavar="TAG",
        field="tags",
        parse=parse_tags,
        marks_session=True,
    ),
    Option(
        ("--keep-temp",),
        "eval_keep_temp",
        "Keep each run's throwaway workspace for debugging (its path is in the JSON as workspace, and in the report)",
        kind="flag",
        default=False,
        field="keep_temp",
    ),
    Option(
        ("--output-dir",),
        "eval_output_dir",
        "Write aggregate-result.json and run artefacts to DIR instead of <eval dir>/results/<timestamp>/",
        metavar="DIR",
        field="output_dir",
    ),
    Option(
        ("--report",),
        "eval_report",
        "Write the HTML report to PATH instead of the results folder",
        metavar="PATH",
        field="report",
    ),
    Option(
        ("--max-cost-usd",),
        "eval_max_cost",
        "Hard cost ceiling for the session, shared by all workers; runs not started once it is reached are skipped "
        "(exit 2)",
        metavar="USD",
        field="max_cost_usd",
        parse=parse_max_cost,
    ),
    Option(
        ("--scaffold",),
        "eval_scaffold",
        "Run each case's context.scaffold_script before its runs (runs author-supplied code as you)",
        kind="flag",
        default=False,
        field="scaffold",
    ),
    Option(
        ("--no-scaffold",),
        "eval_scaffold",
        "Do not run scaffold scripts (default)",
        kind="flag",
        store_false=True,
    ),
    Option(
        ("--mocks",),
        "eval_mocks",
        "record (default): MCP servers are answered from mocks/; off: real servers start",
        default="record",
        metavar="MODE",
        field="mocks",
        parse=partial(parse_mocks, choices=MOCK_MODES),
    ),
    Option(
        ("--allow-real-servers",),
        "eval_allow_real_servers",
        "With --mocks record, also start real MCP servers that have no mock (they run as you)",
        kind="flag",
        default=False,
        field="allow_real_servers",
    ),
    Option(
        ("--eval-dir",),
        "eval_dir",
        "Folder below the plugin holding the cases (default: the manifest's experimental.evals, else evals)",
        metavar="DIR",
        field="eval_dir",
        parse=parse_eval_dir,
    ),
    Option(
        ("--no-publish",),
        "eval_no_publish",
        "Accepted for compatibility: reports are always local",
        kind="flag",
        default=False,
    ),
    Option(
        ("--publish-report",),
        "eval_publish_report",
        "Accepted for compatibility: reports are always local (a notice says so)",
        kind="flag",
        default=False,
    ),
    Option(
        ("-j", "--concurrency"),
        "eval_concurrency",
        "Run up to N runs at once (1-8), in this process: each run is a child process the harness supervises",
        metavar="N",
        field="concurrency",
        parse=partial(parse_concurrency, most=MAX_CONCURRENCY),
    ),
    Option(
        ("--claude",),
        "eval_claude",
        "The Claude Code binary (default: the one bundled with claude-agent-sdk, else claude on PATH)",
        metavar="PATH",
        field="claude",
        parse=parse_claude,
    ),
    Option(
        ("--api-retries",),
        "eval_api_retries",
        "Run a run again up to N times when it ends on an API error "
        "(rate limit, overload, outage) after Claude Code's own retries (default 1); a run that still fails is an "
        "infrastructure error",
        default="1",
        metavar="N",
        field="api_retries",
        parse=parse_api_retries,
    ),
    Option(
        ("--reuse-baseline",),
        "eval_reuse_baseline",
        "Take each case's without-plugin runs from the suite's stored sessions when nothing they depend on "
        "changed (prompt, case settings, context files, mocks without the plugin, model, Claude Code), graded "
        "again; only the missing ones run. With --against, also its runs: stored with-plugin runs made on that "
        "very version (also: eval_reuse_baseline = true in the pytest ini)",
        kind="flag",
        default=None,
        field="reuse_baseline",
        parse=as_bool,
    ),
    Option(
        ("--no-reuse-baseline",),
        "eval_reuse_baseline",
        "Run every without-plugin run afresh, whatever the ini setting says (default)",
        kind="flag",
        store_false=True,
    ),
    Option(
        ("--strict-tools",),
        "eval_strict_tools",
        "Make a run in which Claude Code refused the agent a tool (not granted, a permission or sandbox denial, an "
        "AskUserQuestion nobody can answer) a run error: not scored, the session partial (also: "
        "eval_strict_tools = true in the pytest ini)",
        kind="flag",
        default=None,
        field="strict_tools",
        parse=as_bool,
    ),
    Option(
        ("--regrade",),
        "eval_regrade",
        "Grade the runs stored in a results folder again with today's graders "
        "(no agent runs; judges are called) and write a new results folder",
        metavar="RESULTS_DIR",
        field="regrade",
        parse=parse_regrade,
        marks_session=True,
    ),
    Option(
        ("--scripted",),
        "eval_scripted",
        "Answer every model call from the cases' scripted.yaml files (offline; no API key; no cost)",
        kind="flag",
        default=False,
        field="scripted",
        marks_session=True,
    ),
    Option(
        ("--shard",),
        "eval_shard",
        "Run the K-th of N balanced shares of the suite (K/N; both arms of a case stay together) — one CI job "
        "each; `plugin-eval merge` combines their results folders",
        metavar="K/N",
        field="shard",
        parse=parse_shard_option,
    ),
    Option(
        ("--compare-to",),
        "eval_compare_to",
        "Compare this session with an earlier one (its results folder, or a results JSON file): per case the "
        "change in WITH and in Δ, with an interval and a verdict, in the terminal, the HTML report and --md",
        metavar="RESULTS",
        field="compare_to",
        parse=parse_compare_to,
    ),
    Option(
        ("--md",),
        "eval_md",
        "Also write a Markdown summary of the session to PATH (for CI); with GITHUB_STEP_SUMMARY set, the same "
        "summary is appended to that file whether or not --md is given",
        metavar="PATH",
        field="md_path",
    ),
    Option(
        ("--skill-creator-benchmark",),
        "eval_skill_creator_benchmark",
        "Also write the session to PATH in skill-creator's benchmark.json schema (with_skill / without_skill runs, "
        "run_summary, delta, notes), for skill-creator's viewer",
        metavar="PATH",
        field="benchmark_path",
    ),
    Option(
        ("--trigger-skill",),
        "eval_trigger_skill",
        "The skill (or command) of the plugin that skill-creator trigger-eval.json entries naming none are about",
        metavar="NAME",
        field="trigger_skill",
    ),
    Option(
        ("--min-recall",),
        "eval_min_recall",
        "Fail (exit 1) a trigger set whose recall — the share of its should-fire queries that fire — is below R",
        metavar="R",
        field="min_recall",
        parse=parse_min_recall,
    ),
    Option(
        ("--max-false-fire",),
        "eval_max_false_fire",
        "Fail (exit 1) a trigger set whose false-fire rate — the share of its should-not-fire queries that "
        "fire — is above R",
        metavar="R",
        field="max_false_fire",
        parse=parse_max_false_fire,
    ),
)
