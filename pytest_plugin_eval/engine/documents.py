"""The results documents: one per eval dir, built at the end from what the reports said (collected.py) and the
session's options — the cases aggregated, --lf's reused runs, hints, the plugin's provenance, the Claude Code
that made the runs, and the notices only the whole session can give (cost, judge price, recordings)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from .. import adaptive
from ..core import prices
from ..core.kinds import Arm
from ..core.paths import display_path
from ..lint.grants import KIND as NOT_GRANTED
from ..lint.suite import lint_cases
from ..load.case import CaseLoadError
from ..load.plugin_facts import PluginFacts, facts_of
from ..load.provenance import GitState, git_state
from ..load.suite import plugin_at, resolve_plugin
from ..report.view import usd
from ..results import hints, rerun, scoring
from ..results.findings import Finding, unique
from ..results.model import CaseResult, PluginInfo, RunResult, SkippedRun, SuiteInfo, SuiteResult
from ..results.run_findings import session_findings
from ..results.store import RESULTS_DIR
from ..run.agent import ClaudeNotFound, claude_version
from . import rules
from .collected import Collected, SuiteRuns
from .describe import eval_dir_suite_info
from .linted_cases import cases_of_results
from .pool import workers
from .session_view import SessionView
from .trigger_outcomes import partial_reason as trigger_partial_reason


def aggregated(case: CaseResult, plan: adaptive.AutoRuns | None) -> CaseResult:
    """The case with its aggregates; with --runs auto (`plan`), how many runs it took and why it stopped."""
    case = scoring.aggregate(case)
    if plan is not None:
        versus: Arm = "against" if case.runs("against") else "without"  # with --against, ΔAGAINST decided
        scores = {arm: {run.index: run.score for run in case.runs(arm)} for arm in ("with", versus)}
        rounds, reason = adaptive.replay(plan, scores["with"], scores[versus], case.two_arm or versus == "against")
        case.auto_runs = {"runs": rounds, "stopped": reason}
        case.runs_per_arm = max([rounds, *(len(case.runs(arm)) for arm in case.arms)])
    return case


def has_results(document: SuiteResult) -> bool:
    return bool(document.cases or document.triggers or document.load_errors or document.skipped_runs)


class Documents:
    """Builds the session's results documents; says what it notices on `collected`."""

    def __init__(self, session: SessionView, collected: Collected):
        self.session = session
        self.collected = collected
        self.git_states: dict[str, GitState | None] = {}  # plugin folder → its git state, asked once
        self.plugin_facts: dict[str, PluginFacts | None] = {}  # plugin folder → its skills and content hash

    def build(self, interrupted: str | None) -> list[SuiteResult]:
        """A document per eval dir the reports named; a session that collected nothing still gets one, saying so."""
        collected, session = self.collected, self.session
        if not collected.suites:
            collected.of(str(session.eval_roots[0]) if session.eval_roots else "")
        previous = rerun.previous_results(session.config) if session.config.getoption("lf", False) else []
        built = {key: self.document(suite, previous, interrupted) for key, suite in collected.suites.items()}
        # a matrix's model none of whose runs was selected (-k haiku, models:), nor reused (--lf), has no document
        empty = [key for key, document in built.items() if key[1] is not None and not has_results(document)]
        for key in empty[: len(empty) - (len(empty) == len(built))]:
            del collected.suites[key], built[key]
        return list(built.values())

    def document(
        self, suite: SuiteRuns, previous: list[tuple[SuiteResult, str]], interrupted: str | None
    ) -> SuiteResult:
        """One eval dir's results document (in a model matrix, of one model: as a session of that model alone
        would have written it)."""
        keys = sorted(suite.cases, key=lambda k: Path(k).parts)
        cases = [aggregated(suite.cases[k], self.session.options.auto_runs) for k in keys]
        info = self.suite_info(suite)
        for old, path in previous:
            if old.suite.root == info.root and (suite.model is None or old.suite.model_override == suite.model):
                cases = self.with_previous_runs({case.dir: case for case in cases}, old, path, suite)
        for case in cases:
            case.hints = hints.case_hints(case)
            if hints.never_fired(case) and case.hints:  # said whatever the verdict: a pass is no proof here
                self.collected.notice(f"💡 {case.name}: {case.hints[0]}", suite)
        for hint in hints.suite_hints(cases):
            self.collected.notice(f"💡 {hint}", suite)
        runs = [run for case in cases for run in case.runs()]
        partial = scoring.partial_reason(runs, interrupted, bool(suite.skipped)) or trigger_partial_reason(
            suite.sorted_trigger_sets
        )
        trigger_sets = suite.sorted_trigger_sets
        self.recording_notice(suite)
        self.judge_price_notice(runs)
        threshold = self.session.options.threshold
        return SuiteResult(
            claude_version=self.claude_version(),
            started_at=self.session.started_at,
            duration_seconds=time.monotonic() - self.session.started,
            suite=info,
            cases=cases,
            aggregates=scoring.suite_aggregates(cases, threshold),
            cost_usd=sum(r.cost_usd for r in runs) + sum(s.cost_usd for s in trigger_sets),
            partial=partial is not None,
            partial_reason=partial,
            load_errors=[suite.load_errors[k] for k in sorted(suite.load_errors, key=lambda k: Path(k).parts)],
            skipped_runs=sorted(suite.skipped, key=lambda r: (Path(r.dir).parts, r.arm != "with", r.index)),
            notices=self.collected.notices_of(suite),
            triggers=trigger_sets,
            findings=unique([*self.lint(info, cases), *session_findings(cases)]),
            access=self.session.access,
        )

    def lint(self, info: SuiteInfo, cases: list[CaseResult]) -> list[Finding]:
        """The pre-run findings of the document's cases (lint/), under this session's grants: the same as
        `plugin-eval check` finds, but for the tools this session granted. A case that no longer loads has none."""
        found = lint_cases(
            cases_of_results(self.session, Path(info.root), cases), rules.grants_of(self.session.options)
        )
        if self.session.stored is not None:  # regrading: the stored runs were granted what they were, whatever now
            found = [f for f in found if f.kind != NOT_GRANTED]
        return found

    def with_previous_runs(
        self, fresh: dict[str, CaseResult], previous: SuiteResult, path: str, suite: SuiteRuns
    ) -> list[CaseResult]:
        """--lf: complete this session's cases with the previous session's runs of unchanged cases."""
        current = {}
        for case in previous.cases:
            folder = Path(previous.suite.root) / case.dir
            root = self.session.eval_root(folder)
            try:
                loaded = self.session.load(folder, root) if root is not None else None
            except CaseLoadError:
                loaded = None
            if loaded is not None:
                current[case.dir] = self.session.case_result(loaded, suite.model)
        merged, reused = rerun.merge(fresh, previous, current, top_up=self.session.options.auto_runs is None)
        if reused:
            # their cost was paid by the earlier session, yet it is in this one's (the document is the suite's):
            # say it, or the total reads as this session's spend (--reuse-baseline counts only what it paid)
            carried = sum(run.cost_usd for case in merged for run in case.runs() if run.reused)
            self.collected.notice(
                f"--lf: {reused} run(s) of unchanged cases reused from {display_path(Path(path))} "
                f"(their {usd(carried)}, paid then, is counted in this session's cost)",
                suite,
            )
        return merged

    def recording_notice(self, suite: SuiteRuns) -> None:
        folder = self.session.results_folder(Path(suite.eval_root), suite.model) if suite.eval_root else None
        recordings = list(folder.recordings.glob("*/*.json")) if folder else []
        if folder and recordings:
            self.collected.notice(
                f"{len(recordings)} agent-mock recording(s) under {display_path(folder.recordings)}"
                f" — copy them to evals/mocks/.replay/<server>/ to replay them with no model call",
                suite,
            )

    def judge_price_notice(self, runs: list[RunResult]) -> None:
        model = self.session.judge_model
        judged = any(g.judge_votes is not None for r in runs for g in r.graders)
        if judged and not prices.lookup(model).known:
            self.collected.notice(
                f"judge model {model} is not in the price table: its calls are priced as {prices.lookup(model).model}"
            )

    def cost_notices(self, runs: list[RunResult], skipped: list[SkippedRun]) -> None:
        cap = self.session.options.max_cost_usd
        if cap is None:
            return
        spent = sum(r.cost_usd for r in runs)
        if skipped:
            cases = sorted({r.case for r in skipped})
            self.collected.notice(
                f"⚠ cost ceiling ${cap:g} reached (${spent:.4f} spent): {len(skipped)} run(s) not "
                f"started, in {', '.join(cases)}"
            )
        paid = sum(1 for r in runs if r.skipped_paid_graders)
        if paid:
            self.collected.notice(
                f"⚠ cost ceiling ${cap:g} crossed by runs in flight: {paid} run(s) skipped their "
                f"paid graders, which are left out of their scores"
            )

    def claude_version(self) -> str:
        if self.session.stored is not None:  # regraded runs were made by the stored session's Claude Code
            return self.session.stored.document.claude_version
        try:
            return claude_version(self.session.claude)
        except ClaudeNotFound:
            return "unknown"

    def suite_info(self, suite: SuiteRuns) -> SuiteInfo:
        """The suite the cases came from, with the session's options (a matrix's model: as --model gives it)."""
        options, session = self.session.options.for_model(suite.model), self.session
        # a matrix's model with no run this session (--lf reused them all): the suite as its other models' say
        siblings = [s.suite for s in self.collected.suites.values() if s.eval_root == suite.eval_root and s.suite]
        base = suite.suite or next(iter(siblings), None) or self.empty_suite(suite.eval_root)
        case_filter = None
        if options.case_globs:
            case_filter = options.case_globs[-1] if len(options.case_globs) == 1 else list(options.case_globs)
        return dataclasses.replace(
            base,
            plugins=[self.provenance(plugin) for plugin in base.plugins],
            model_override=options.model,
            judge_model=options.judge_model,
            judge_model_resolved=session.judge_model,
            case_filter=case_filter,
            tag_filters=list(options.tags) or None,
            scripted=options.scripted,
            regraded_from=str(session.stored.folder.path) if session.stored is not None else None,
            threshold=options.threshold,
            concurrency=options.concurrency or workers(session.config),
            runs_override=options.runs,
            auto_runs=options.auto_runs.to_json() if options.auto_runs is not None else None,
            shard=f"{options.shard[0]}/{options.shard[1]}" if options.shard else None,
            # regrading: the stored runs were made against that version and without those components
            against=session.stored.document.suite.against if session.stored is not None else options.against,
            ablated=list(session.stored.document.suite.ablated if session.stored is not None else options.ablate),
            # regrading: the stored gate holds unless this session asks for it (it cannot switch it off: a flag)
            fail_on_worse=options.fail_on_worse
            or (session.stored is not None and session.stored.document.suite.fail_on_worse),
        )

    def provenance(self, plugin: PluginInfo) -> PluginInfo:
        """The plugin with the git commit its runs were made with: its folder's now, or, when regrading, the
        stored session's (the runs were made by that plugin, as they were by that Claude Code)."""
        stored = self.session.stored
        if stored is not None:
            old = next((p for p in stored.document.suite.plugins if p.name == plugin.name), None)
            if old is None:
                return dataclasses.replace(plugin, git_commit=None, git_dirty=None)
            return dataclasses.replace(
                plugin,
                version=old.version,
                git_commit=old.git_commit,
                git_dirty=old.git_dirty,
                skill_descriptions=old.skill_descriptions,
                content_hash=old.content_hash,
            )
        facts = self.facts(plugin.path)
        if facts is not None:
            plugin = dataclasses.replace(
                plugin, skill_descriptions=facts.skill_descriptions, content_hash=facts.content_hash
            )
        state = self.git_state(plugin.path)
        if state is None:
            return plugin
        return dataclasses.replace(plugin, git_commit=state.commit, git_dirty=state.dirty)

    def plugin_before_runs(self, eval_root: Path) -> None:
        """The git state, skills and content of the eval dir's plugin as they are before the runs, not after
        (read once)."""
        plugin = resolve_plugin(eval_root, eval_root)
        if plugin is not None and self.session.stored is None:
            self.git_state(str(plugin_at(plugin).path))
            self.facts(str(plugin_at(plugin).path))

    def output_files(self) -> list[str]:
        """The files this session writes wherever it is told (--json, --report, --md, pytest-html, JUnit XML)."""
        options, option = self.session.options, self.session.config.option
        paths = [options.json_path, options.report, options.md_path]
        paths += [getattr(option, "htmlpath", None), getattr(option, "xmlpath", None)]
        return [p for p in paths if isinstance(p, str) and p and p != "-"]

    def facts(self, plugin_path: str) -> PluginFacts | None:
        """Read once per plugin folder and session; the eval dirs (cases, results) are not the plugin."""
        if plugin_path not in self.plugin_facts:
            ours = [*self.session.eval_roots]
            ours += [folder.path for folder in map(self.session.results_folder, ours) if folder is not None]
            ours += [Path(p).absolute() for p in self.output_files()]  # the last session's, at the same paths
            self.plugin_facts[plugin_path] = facts_of(Path(plugin_path), exclude=tuple(ours))
        return self.plugin_facts[plugin_path]

    def git_state(self, plugin_path: str) -> GitState | None:
        """Asked of git once per plugin folder and session; the results folders never make the tree dirty."""
        if plugin_path not in self.git_states:
            roots = self.session.eval_roots
            ours = [root / RESULTS_DIR for root in roots]
            ours += [folder.path for folder in map(self.session.results_folder, roots) if folder is not None]
            self.git_states[plugin_path] = git_state(Path(plugin_path), exclude=ours)
        return self.git_states[plugin_path]

    def empty_suite(self, eval_root: str) -> SuiteInfo:
        """The suite of an eval dir whose cases never reported a run (each a load error, or none at all)."""
        if eval_root:
            return eval_dir_suite_info(Path(eval_root), self.session.options)
        return SuiteInfo(root=str(Path.cwd()), ablation=rules.ablation_for(self.session.options, False))
