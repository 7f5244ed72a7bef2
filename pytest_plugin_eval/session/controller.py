"""The controller's half of an eval session: every run's report comes here — from this process, or from the
pytest-xdist workers. As soon as it holds every run of a case it reports the case's verdict (verdicts.py); at the
end it builds one results document per eval dir, writes them and their HTML reports, and sets the exit status. A
plugin registered on the controller only (as xdist's DSession is), owning its hooks, so what it sees is the same
with and without `-n`."""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..core import prices
from ..core.paths import display_path
from ..load.case import CaseLoadError
from ..results import hints, rerun, scoring
from ..results.model import SCHEMA_VERSION, CaseResult, LoadErrorEntry, RunResult, SkippedRun, SuiteInfo, SuiteResult
from ..results.store import document_text, write_json
from ..results.verdict import case_verdict
from ..run.agent import ClaudeNotFound, claude_version
from . import verdicts, wire
from .interrupts import install_sigterm, signal_name
from .progress import Progress
from .state import EvalSession, workers

# A run item's node id is <case file>::<case name>[with-plugin-2] (or [no-plugin-1]).
RUN_PARAMS = re.compile(r"\[(?:with-plugin|no-plugin)-\d+\]$")


def case_file_of(nodeid: str) -> str | None:
    """The case file of a run item's node id (None for any other node id)."""
    return nodeid.split("::", 1)[0] if RUN_PARAMS.search(nodeid) else None


@dataclass
class SuiteRuns:
    """What the reports say about the cases of one eval dir."""

    eval_root: str
    cases: dict[str, CaseResult] = field(default_factory=dict)  # case dir → the case, runs added
    load_errors: dict[str, LoadErrorEntry] = field(default_factory=dict)  # case dir → its load error
    skipped: list[SkippedRun] = field(default_factory=list)  # runs not started (cost ceiling)
    suite: SuiteInfo | None = None


@dataclass
class Collected:
    """What the controller learns from the reports, per eval dir."""

    suites: dict[str, SuiteRuns] = field(default_factory=dict)  # eval root → its runs
    notices: list[str] = field(default_factory=list)

    def of(self, eval_root: str) -> SuiteRuns:
        return self.suites.setdefault(eval_root, SuiteRuns(eval_root))

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    @property
    def runs(self) -> list[RunResult]:
        return [run for suite in self.suites.values() for case in suite.cases.values() for run in case.runs()]


@dataclass
class Written:
    """One eval dir's results document, and where it went."""

    document: SuiteResult
    results_path: Path | None
    report_path: Path | None
    label: str


@dataclass
class CaseItems:
    """Which run items each case file has, which of them are done, and which case verdicts were reported."""

    expected: dict[str, set[str]] = field(default_factory=dict)  # case file → node ids of its runs
    done: dict[str, set[str]] = field(default_factory=dict)
    where: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # case file → (eval root, case dir, label)
    reported: set[str] = field(default_factory=set)

    def expect(self, nodeids) -> None:
        for nodeid in map(str, nodeids):
            case_file = case_file_of(nodeid)
            if case_file is not None:
                self.expected.setdefault(case_file, set()).add(nodeid)

    def finished(self, nodeid: str) -> str | None:
        """The case file whose last run `nodeid` was, if it was."""
        case_file = case_file_of(nodeid)
        if case_file is None or case_file not in self.expected:
            return None
        self.done.setdefault(case_file, set()).add(nodeid)
        return case_file if self.done[case_file] >= self.expected[case_file] else None


class Controller:
    def __init__(self, session: EvalSession):
        self.session = session
        self.collected = Collected()
        self.items = CaseItems()
        self.interrupted: str | None = None
        self.non_eval_failures = 0
        self.written: list[Written] = []
        self.exit_status: int | None = None
        self.progress: Progress | None = None
        self.verdicts_counted = False

    @property
    def documents(self) -> list[SuiteResult]:
        return [w.document for w in self.written]

    # ---- hooks (registered on the controller only) -----------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        if not self.session.active:
            return
        install_sigterm()
        terminal = self.session.config.pluginmanager.get_plugin("terminalreporter")
        self.progress = Progress(terminal, self.session.pool.in_flight, self.session.options.max_cost_usd)
        if self.session.ledger is not None and self.session.options.max_cost_usd == 0:
            self.collected.notice("--max-cost-usd 0: no run can start")
        if self.session.config.option.eval_publish_report:
            self.collected.notice("--publish-report: reports are not published; the HTML report is local")
        shard = self.session.options.shard
        if shard is not None and self.session.options.max_cost_usd is not None:
            self.collected.notice(
                f"--max-cost-usd ${self.session.options.max_cost_usd:g} applies to this shard "
                f"({shard[0]}/{shard[1]}) alone; the whole suite may spend up to {shard[1]}× that"
            )

    def pytest_collection_finish(self, session) -> None:
        self.expect(item.nodeid for item in session.items)
        share, shard = getattr(self.session, "shard_share", None), self.session.options.shard
        if share is not None and shard is not None:
            self.collected.notice(
                f"--shard {shard[0]}/{shard[1]}: {share[0]} of {share[1]} case(s), {share[2]} of "
                f"{share[3]} run(s); combine the shards' results folders with `plugin-eval merge`"
            )
        if self.progress is not None and self.progress.plain() and session.config.option.verbose == 0:
            session.config.option.verbose = 1  # CI logs: a line per run, saying how it went

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> None:
        self.count_verdicts(session)

    def count_verdicts(self, session) -> None:
        """Each case's verdict is reported as one more test: count them once, so the progress ends at 100%
        (under xdist, once the workers' collection has set the count)."""
        if not self.verdicts_counted and self.items.expected and session is not None:
            session.testscollected += len(self.items.expected)
            self.verdicts_counted = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self.expect(ids)

    def expect(self, nodeids) -> None:
        self.items.expect(nodeids)
        if self.progress is not None:
            self.progress.expect(sum(len(ids) for ids in self.items.expected.values()))

    @pytest.hookimpl(tryfirst=True)  # pytest writes at the start of an item: the status makes way
    def pytest_runtest_logstart(self, nodeid, location) -> None:
        if self.progress is not None:
            self.progress.erase()

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        if self.progress is not None:
            self.progress.draw()

    def pytest_collectreport(self, report) -> None:
        data = getattr(report, wire.LOAD_ERROR_ATTR, None)
        if data is not None:
            self.record_load_error(wire.LoadErrorReport.from_json(data))
        elif report.failed:
            self.non_eval_failures += 1

    @pytest.hookimpl(tryfirst=True)  # before JUnit XML records the report, and the terminal writes it
    def pytest_runtest_logreport(self, report) -> None:
        if self.progress is not None:
            self.progress.erase()
        self.count_verdicts(self.session.pytest_session)
        names = getattr(report, verdicts.JUNIT_ATTR, None)
        if names is not None:
            verdicts.junit(self.session.config, report, *names)
        data = getattr(report, wire.RUN_ATTR, None)
        skipped = getattr(report, wire.SKIP_ATTR, None)
        if data is not None and report.when == "call":
            self.record_run(wire.RunReport.from_json(data), str(report.nodeid))
        elif skipped is not None:
            skip = wire.SkipReport.from_json(skipped)
            self.collected.of(skip.eval_root).skipped.append(skip.run)
        elif report.failed and "plugin_eval" not in report.keywords:
            self.non_eval_failures += 1
        if report.when == "teardown":
            case_file = self.items.finished(str(report.nodeid))
            if case_file is not None and not self.session.config.getoption("lf", False):
                self.report_case(case_file)  # --lf: verdicts wait for the runs reused at the end

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.interrupted = signal_name(excinfo.value)

    @pytest.hookimpl(tryfirst=True)  # the verdicts must reach the terminal and JUnit XML before they finish
    def pytest_sessionfinish(self, session) -> None:
        if self.progress is not None:
            self.progress.erase()
            self.progress.terminal = None  # nothing more to show
        self.finish(session)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.written:
            return
        from ..report.terminal import write_summary

        many = len(self.written) > 1
        for i, w in enumerate(self.written):
            write_summary(
                terminalreporter, w.document, w.results_path, w.report_path, w.label if many else None, notices=i == 0
            )

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix, summary, postfix, session) -> None:
        """pytest-html (--html): each suite's verdict and per-case table above the test list."""
        if self.written:
            from ..report.html import summary_html

            prefix.extend(summary_html(document) for document in self.documents)

    # ---- gathering -----------------------------------------------------------------------------------

    def record_run(self, report: wire.RunReport, nodeid: str) -> None:
        run = report.run
        if not self.collected.runs and run.error_kind == "auth":
            self.stop(
                "the first run's credentials were rejected — every remaining run would fail the same way, "
                "so the session stops here. Set ANTHROPIC_API_KEY (or your provider's credentials), or pass "
                "--scripted to check the suite offline"
            )
        suite = self.collected.of(report.eval_root)
        case = suite.cases.setdefault(report.case.dir, report.case)
        case.arms.setdefault(run.arm, []).append(run)
        suite.suite = merge_suite(suite.suite, report.suite)
        for text in [*report.notices, *run.notes]:
            self.collected.notice(text)
        case_file = case_file_of(nodeid)
        if case_file is not None:
            self.items.where[case_file] = (report.eval_root, report.case.dir, report.label)
        if self.progress is not None:
            self.progress.finished(run)

    def record_load_error(self, report: wire.LoadErrorReport) -> None:
        self.collected.of(report.eval_root).load_errors.setdefault(report.entry.dir, report.entry)

    def stop(self, reason: str) -> None:
        """Stop starting runs (runs in flight finish), with or without pytest-xdist."""
        self.collected.notice(f"⚠ {reason}")
        dsession = self.session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.session.pytest_session is not None:
            self.session.pytest_session.shouldstop = reason

    def report_case(self, case_file: str, case: CaseResult | None = None) -> None:
        """Report a case's verdict, once, as a test of its own."""
        if case_file in self.items.reported or case_file not in self.items.where:
            return
        eval_root, case_dir, label = self.items.where[case_file]
        if case is None:
            case = scoring.aggregate(self.collected.of(eval_root).cases[case_dir])
            case.hints = hints.case_hints(case)
        self.items.reported.add(case_file)
        verdicts.report_case(
            self.session.config, case_file, label, case, case_verdict(case, self.session.options.threshold)
        )

    # ---- the end ---------------------------------------------------------------------------------------

    def finish(self, pytest_session) -> None:
        """Build the documents, report the verdicts not reported yet, write, and set the exit status."""
        collected = self.collected
        if getattr(self.session.config.option, "collectonly", False) or not (self.session.active or collected.suites):
            return  # nothing ran: nothing to write
        if not collected.suites:
            collected.of(str(self.session.eval_roots[0]) if self.session.eval_roots else "")
        previous = rerun.previous_results(self.session.config) if self.session.config.getoption("lf", False) else []
        documents = [self.document(suite, previous) for suite in collected.suites.values()]
        for document, suite in zip(documents, collected.suites.values(), strict=True):
            by_dir = {case.dir: case for case in document.cases}
            for case_file, (eval_root, case_dir, _) in self.items.where.items():
                if eval_root == suite.eval_root and case_dir in by_dir:
                    self.report_case(case_file, by_dir[case_dir])
        runs = [run for document in documents for case in document.cases for run in case.runs()]
        self.cost_notices(runs, [skip for suite in collected.suites.values() for skip in suite.skipped])
        threshold = self.session.options.threshold
        failed = (
            any(document.load_errors for document in documents)
            or not any(document.cases for document in documents)
            or self.non_eval_failures > 0
            or any(not scoring.passes_threshold(c, threshold) for document in documents for c in document.cases)
            or any(r.error_kind == "start" for r in runs)
        )
        partial = any(document.partial for document in documents)
        self.exit_status = scoring.exit_status(interrupted=self.interrupted, partial=partial, failed=failed)
        self.write(documents)
        rerun.remember(self.session.config, [w.results_path for w in self.written if w.results_path])
        pytest_session.exitstatus = self.exit_status

    def document(self, suite: SuiteRuns, previous: list[tuple[SuiteResult, str]]) -> SuiteResult:
        """One eval dir's results document."""
        keys = sorted(suite.cases, key=lambda k: Path(k).parts)
        cases = [scoring.aggregate(suite.cases[k]) for k in keys]
        info = self.suite_info(suite)
        for old, path in previous:
            if old.suite.root == info.root:
                cases = self.with_previous_runs({case.dir: case for case in cases}, old, path)
        for case in cases:
            case.hints = hints.case_hints(case)
        for hint in hints.suite_hints(cases):
            self.collected.notice(f"💡 {hint}")
        runs = [run for case in cases for run in case.runs()]
        partial = scoring.partial_reason(runs, self.interrupted, bool(suite.skipped))
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
            cost_usd=sum(r.cost_usd for r in runs),
            partial=partial is not None,
            partial_reason=partial,
            load_errors=[suite.load_errors[k] for k in sorted(suite.load_errors, key=lambda k: Path(k).parts)],
            skipped_runs=sorted(suite.skipped, key=lambda r: (Path(r.dir).parts, r.arm != "with", r.index)),
            notices=list(self.collected.notices),
        )

    def with_previous_runs(self, fresh: dict[str, CaseResult], previous: SuiteResult, path: str) -> list[CaseResult]:
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
                current[case.dir] = self.session.case_result(loaded)
        merged, reused = rerun.merge(fresh, previous, current)
        if reused:
            self.collected.notice(f"--lf: {reused} run(s) of unchanged cases reused from {display_path(Path(path))}")
        return merged

    def write(self, documents: list[SuiteResult]) -> None:
        options = self.session.options
        many = len(documents) > 1
        for document, suite in zip(documents, self.collected.suites.values(), strict=True):
            document.notices = list(self.collected.notices)  # notices raised while building later documents too
            root = Path(suite.eval_root) if suite.eval_root else None
            # Nothing collected from this eval dir (no cases): no results folder, as the reference tool does.
            folder = self.session.results_folder(root) if suite.cases or suite.load_errors or suite.skipped else None
            label = self.session.suite_label(root) if root else "suite"
            results_path = folder.results_file if folder else None
            if results_path is not None:
                write_json(results_path, document.to_json())
            report = folder.report_file if folder else None
            if options.report:
                report = Path(options.report).absolute()
                if many:
                    report = report.with_name(f"{report.stem}-{label}{report.suffix}")
            if report is not None:
                from ..report.html import write_report

                write_report(document, report)
            self.written.append(Written(document, results_path, report, label))
        if options.json_path:
            output = (
                documents[0].to_json()
                if not many
                else {"schemaVersion": SCHEMA_VERSION, "suites": [d.to_json() for d in documents]}
            )
            if options.json_path == "-":
                sys.stdout.write(document_text(output))
            else:
                write_json(Path(options.json_path).absolute(), output)

    def recording_notice(self, suite: SuiteRuns) -> None:
        folder = self.session.results_folder(Path(suite.eval_root)) if suite.eval_root else None
        recordings = list(folder.recordings.glob("*/*.json")) if folder else []
        if folder and recordings:
            self.collected.notice(
                f"{len(recordings)} agent-mock recording(s) under {display_path(folder.recordings)}"
                f" — copy them to evals/mocks/.replay/<server>/ to replay them with no model call"
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
        """The suite the cases came from, with the session's options."""
        options, session = self.session.options, self.session
        base = suite.suite or self.empty_suite(suite.eval_root)
        case_filter = None
        if options.case_globs:
            case_filter = options.case_globs[-1] if len(options.case_globs) == 1 else list(options.case_globs)
        return dataclasses.replace(
            base,
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
            shard=f"{options.shard[0]}/{options.shard[1]}" if options.shard else None,
        )

    def empty_suite(self, eval_root: str) -> SuiteInfo:
        root = Path(eval_root).parent if eval_root else Path.cwd()
        return SuiteInfo(root=str(root), ablation=self.session.ablation_for(False))


def merge_suite(a: SuiteInfo | None, b: SuiteInfo) -> SuiteInfo:
    """The first suite seen, with the plugins of later ones added."""
    if a is None:
        return b
    paths = {p.path for p in a.plugins}
    return dataclasses.replace(a, plugins=a.plugins + [p for p in b.plugins if p.path not in paths])
