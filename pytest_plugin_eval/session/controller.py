"""The controller's half of an eval session: every run's report comes here — from this process, or from the
pytest-xdist workers. As soon as it holds every run of a case it reports the case's verdict (verdicts.py); at the
end it builds one results document per eval dir, writes them and their HTML reports, and sets the exit status. A
plugin registered on the controller only (as xdist's DSession is), owning its hooks, so what it sees is the same
with and without `-n`."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .. import adaptive
from ..core import prices
from ..core.kinds import Arm
from ..core.paths import display_path
from ..load.case import CaseLoadError
from ..load.provenance import GitState, git_state
from ..load.suite import plugin_at, resolve_plugin
from ..results import hints, history, rerun, scoring
from ..results.model import (
    SCHEMA_VERSION,
    CaseResult,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteInfo,
    SuiteResult,
)
from ..results.store import RESULTS_DIR, document_text, write_atomic, write_json
from ..results.verdict import case_verdict
from ..run.agent import ClaudeNotFound, claude_version
from . import rules, verdicts, wire
from .interrupts import install_sigterm, signal_name
from .pool import workers
from .progress import Progress
from .view import SessionView

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
    comparison: Any = None  # --compare-to: results.compare.Comparison against the earlier session


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
    def __init__(self, session: SessionView):
        self.session = session
        self.collected = Collected()
        self.items = CaseItems()
        self.interrupted: str | None = None
        self.non_eval_failures = 0
        self.written: list[Written] = []
        self.exit_status: int | None = None
        self.progress: Progress | None = None
        self.verdicts_counted = False
        self.claimed: dict[Path, object] = {}  # eval root → the lock on its results folder, held to the end
        self.outputs_failed = False
        self.exit_requested: int | None = None
        self.git_states: dict[str, GitState | None] = {}  # plugin folder → its git state, asked once

    @property
    def documents(self) -> list[SuiteResult]:
        return [w.document for w in self.written]

    # ---- hooks (registered on the controller only) -----------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        if not self.session.active:
            return
        install_sigterm()
        problem = output_path_problem(self.session.options)
        if problem:
            pytest.exit(problem, returncode=1)
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

    @pytest.hookimpl(tryfirst=True)  # before the terminal prints pytest's "run-last-failure" line
    def pytest_collection_finish(self, session) -> None:
        self.expect(item.nodeid for item in session.items)
        lf = self.session.config.pluginmanager.get_plugin("lfplugin")
        if self.session.rerun_status and hasattr(lf, "_report_status"):
            lf._report_status = self.session.rerun_status  # pytest counts test ids; --lf here chose runs
        share, shard = self.session.shard_share, self.session.options.shard
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
        for case_file in self.items.expected:
            root = self.session.eval_root(self.session.config.rootpath / case_file)
            if root is not None and root not in self.claimed:
                self.claim(root)

    def claim(self, eval_root: Path) -> None:
        """Before any run: the eval dir's results folder is created, writable, and this session's alone."""
        folder = self.session.results_folder(eval_root)
        if folder is None:
            return
        plugin = resolve_plugin(eval_root, eval_root)
        if plugin is not None and self.session.stored is None:
            self.git_state(str(plugin_at(plugin).path))  # the plugin as it is before the runs, not after
        try:
            self.claimed[eval_root] = folder.claim()
        except OSError as e:
            problem = (
                f"Error: results folder {display_path(folder.path)}: {e.strerror or e} — nothing was run. "
                f"Free the folder (or some disk space), or pass --output-dir to write elsewhere."
            )
            if self.session.config.pluginmanager.getplugin("dsession") is None:
                pytest.exit(problem, returncode=1)
            self.outputs_failed = True  # under xdist, stop the workers instead
            self.stop(problem)

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

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem, report, sched) -> None:
        """A pytest-xdist worker died while running a run: the run is recorded, errored, and the session is
        partial — never lost, never a pass."""
        case_file = case_file_of(str(crashitem))
        if case_file is None:
            return
        params = str(crashitem).rsplit("[", 1)[1].rstrip("]")  # with-plugin-2
        arm: Arm = "with" if params.startswith("with-") else "without"
        index = int(params.rsplit("-", 1)[1])
        case_dir = (self.session.config.rootpath / case_file).parent
        eval_root = self.session.eval_root(case_dir)
        try:
            case = self.session.load(case_dir, eval_root) if eval_root is not None else None
        except CaseLoadError:
            case = None
        if case is None:
            return
        run = RunResult(
            arm,
            index,
            score=None,
            passed=False,
            error_kind="worker_lost",
            error="the pytest-xdist worker running it died; its run was lost",
        )
        self.record_run(
            wire.RunReport(
                case=self.session.case_result(case),
                run=run,
                suite=self.session.suite_info(case),
                eval_root=str(case.eval_root),
                label=self.session.suite_label(case.eval_root),
            ),
            str(crashitem),
        )

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.interrupted = signal_name(excinfo.value)
        self.exit_requested = getattr(excinfo.value, "returncode", None)  # pytest.exit(…, returncode) decides
        # The runs in flight are stopped and recorded (interrupted), with any that ended and were not reported yet.
        for item, outcome in self.session.stop_runs():
            item.result = outcome.result
            report = item.run_report()
            if report is not None:
                self.record_run(report, item.nodeid)

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
            if w.comparison is not None:
                from ..report.comparison import write_comparison

                write_comparison(terminalreporter, w.comparison)

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
            case = self.aggregated(self.collected.of(eval_root).cases[case_dir])
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
        failed = (  # the documents' own rule, so the exit status is the one merge and compare read back
            not any(document.cases for document in documents)
            or any(document.load_errors for document in documents)
            or any(scoring.document_failed(document) for document in documents if document.cases)
            or self.non_eval_failures > 0
        )
        partial = any(document.partial for document in documents)
        self.write(documents)
        failed = failed or self.outputs_failed  # the session's record is incomplete: not a success
        self.exit_status = scoring.exit_status(interrupted=self.interrupted, partial=partial, failed=failed)
        if self.exit_requested is not None:
            self.exit_status = self.exit_requested
        rerun.remember(self.session.config, [w.results_path for w in self.written if w.results_path])
        pytest_session.exitstatus = self.exit_status

    def aggregated(self, case: CaseResult) -> CaseResult:
        """The case with its aggregates; with --runs auto, how many runs it took and why it stopped."""
        case = scoring.aggregate(case)
        plan = self.session.options.auto_runs
        if plan is not None:
            scores = {arm: {run.index: run.score for run in case.runs(arm)} for arm in ("with", "without")}
            rounds, reason = adaptive.replay(plan, scores["with"], scores["without"], case.two_arm)
            case.auto_runs = {"runs": rounds, "stopped": reason}
            case.runs_per_arm = max([rounds, *(len(case.runs(arm)) for arm in case.arms)])
        return case

    def document(self, suite: SuiteRuns, previous: list[tuple[SuiteResult, str]]) -> SuiteResult:
        """One eval dir's results document."""
        keys = sorted(suite.cases, key=lambda k: Path(k).parts)
        cases = [self.aggregated(suite.cases[k]) for k in keys]
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
        merged, reused = rerun.merge(fresh, previous, current, top_up=self.session.options.auto_runs is None)
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
            comparison = self.comparison(document, documents, str(folder.path) if folder else "this session")
            results_path = folder.results_file if folder else None
            if results_path is not None and not self.saved(write_json, results_path, document.to_json()):
                results_path = None
            report = folder.report_file if folder else None
            if options.report:
                report = Path(options.report).absolute()
                if many:
                    report = report.with_name(f"{report.stem}-{label}{report.suffix}")
            if report is not None:
                from ..report.html import write_report

                past = self.trend(document, root, folder)
                if not self.saved(write_report, document, report, past, comparison):
                    report = None
            self.written.append(Written(document, results_path, report, label, comparison))
        if options.json_path:
            output = (
                documents[0].to_json()
                if not many
                else {"schemaVersion": SCHEMA_VERSION, "suites": [d.to_json() for d in documents]}
            )
            if options.json_path == "-":
                sys.stdout.write(document_text(output))
            else:
                target = Path(options.json_path).absolute()
                self.saved(write_json, target, output)
        self.write_markdown()

    def comparison(self, document: SuiteResult, documents: list[SuiteResult], source: str) -> Any:
        """--compare-to: this suite against the earlier session — the session's only suite, or the one that
        evaluates the same plugins as the earlier session did."""
        earlier = self.session.options.compare_to
        if earlier is None:
            return None
        from ..results.compare import CompareError, compare, read_document

        try:
            old = read_document(earlier)  # checked when the options were; read again: it may have gone since
        except CompareError as e:
            sys.stderr.write(f"⚠ --compare-to {e}\n")
            return None
        if len(documents) > 1 and [p.name for p in old.suite.plugins] != [p.name for p in document.suite.plugins]:
            return None
        return compare(old, document, old_source=earlier, new_source=source)

    def write_markdown(self) -> None:
        """--md PATH, and a GitHub Actions job's step summary (GITHUB_STEP_SUMMARY, appended to): the session,
        and its comparison, in Markdown."""
        path, step_summary = self.session.options.md_path, os.environ.get("GITHUB_STEP_SUMMARY")
        if not (path or step_summary) or not self.written:
            return
        from ..report.markdown import SessionPart, session_markdown

        many = len(self.written) > 1
        text = session_markdown(
            [
                SessionPart(w.document, w.comparison, w.label if many else None, w.results_path, w.report_path)
                for w in self.written
            ]
        )
        if path:
            self.saved(write_atomic, Path(path).absolute(), text)
        if step_summary:
            try:
                with open(step_summary, "a", encoding="utf-8") as handle:
                    handle.write(text + "\n")
            except OSError as e:
                sys.stderr.write(f"⚠ could not append to GITHUB_STEP_SUMMARY ({step_summary}): {e.strerror or e}\n")

    def trend(self, document: SuiteResult, eval_root: Path | None, folder) -> history.Trend | None:
        """The report's trend: this session against the last sessions in its eval dir's results folder."""
        if eval_root is None:
            return None
        exclude = [folder.path] if folder is not None else []
        past = history.scan([eval_root / RESULTS_DIR], limit=history.HISTORY_LIMIT, exclude=exclude)
        try:
            return history.trend(document, [session.document for session in past.sessions])
        except (TypeError, ValueError, AttributeError):  # a past document of the wrong shape: no trend, still a report
            return None

    def saved(self, write, *args) -> bool:
        """Write one output (`write(…, path, …)`); a full disk or a vanished folder loses that file only, and
        says so."""
        path = next(a for a in args if isinstance(a, Path))
        try:
            write(*args)
            return True
        except OSError as e:
            self.outputs_failed = True
            # mkdir of a parent that is a file says "File exists": name the real trouble
            reason = (
                "a file is where its folder should be"
                if isinstance(e, (FileExistsError, NotADirectoryError))
                else e.strerror or e
            )
            message = f"⚠ could not write {display_path(path)}: {reason} — it is lost; the other outputs are written"
            self.collected.notice(message)
            sys.stderr.write(message + "\n")
            return False

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
        )

    def provenance(self, plugin: PluginInfo) -> PluginInfo:
        """The plugin with the git commit its runs were made with: its folder's now, or, when regrading, the
        stored session's (the runs were made by that plugin, as they were by that Claude Code)."""
        stored = self.session.stored
        if stored is not None:
            old = next((p for p in stored.document.suite.plugins if p.name == plugin.name), None)
            if old is None:
                return dataclasses.replace(plugin, git_commit=None, git_dirty=None)
            return dataclasses.replace(plugin, version=old.version, git_commit=old.git_commit, git_dirty=old.git_dirty)
        state = self.git_state(plugin.path)
        if state is None:
            return plugin
        return dataclasses.replace(plugin, git_commit=state.commit, git_dirty=state.dirty)

    def git_state(self, plugin_path: str) -> GitState | None:
        """Asked of git once per plugin folder and session; the results folders never make the tree dirty."""
        if plugin_path not in self.git_states:
            roots = self.session.eval_roots
            ours = [root / RESULTS_DIR for root in roots]
            ours += [folder.path for folder in map(self.session.results_folder, roots) if folder is not None]
            self.git_states[plugin_path] = git_state(Path(plugin_path), exclude=ours)
        return self.git_states[plugin_path]

    def empty_suite(self, eval_root: str) -> SuiteInfo:
        root = Path(eval_root).parent if eval_root else Path.cwd()
        return SuiteInfo(root=str(root), ablation=rules.ablation_for(self.session.options, False))


def output_path_problem(options) -> str | None:
    """What keeps --json PATH or --report PATH from being written, found before any run (money) is spent."""
    for flag, value in (("--json", options.json_path), ("--report", options.report), ("--md", options.md_path)):
        if not value or value == "-":
            continue
        path = Path(value).absolute()
        if path.is_dir():
            return f"Error: {flag} {value}: that is a folder — name a file, such as {path / {'--json': 'results.json', '--md': 'summary.md'}.get(flag, 'report.html')}"
        parent = next(p for p in path.parents if p.exists())
        if not parent.is_dir():
            return f"Error: {flag} {value}: {parent} is a file, so no folder can be made there for it"
        if not os.access(parent, os.W_OK):
            return f"Error: {flag} {value}: {parent} is not writable"
    if options.output_dir and Path(options.output_dir).exists() and not Path(options.output_dir).is_dir():
        return f"Error: --output-dir {options.output_dir}: that is a file, not a folder"
    return None


def merge_suite(a: SuiteInfo | None, b: SuiteInfo) -> SuiteInfo:
    """The first suite seen, with the plugins of later ones added."""
    if a is None:
        return b
    paths = {p.path for p in a.plugins}
    return dataclasses.replace(a, plugins=a.plugins + [p for p in b.plugins if p.path not in paths])
