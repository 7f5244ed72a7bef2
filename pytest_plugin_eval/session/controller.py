"""The controller's half of an eval session: every run's report comes here — from this process, or from the
pytest-xdist workers — and at the end it builds the results document, writes it and the HTML report, and sets
the exit status. A plugin registered on the controller only (as xdist's DSession is), owning its hooks, so
what it sees is the same with and without `-n`."""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..core import prices
from ..core.paths import display_path
from ..load.case import CaseLoadError
from ..results import hints, rerun, scoring
from ..results.model import CaseResult, LoadErrorEntry, RunResult, SkippedRun, SuiteInfo, SuiteResult
from ..results.store import ResultsFolder, document_text, write_json
from ..run.agent import ClaudeNotFound, claude_version
from . import wire
from .interrupts import install_sigterm, signal_name
from .state import EvalSession, workers


@dataclass
class Collected:
    """What the controller learns from the reports."""

    cases: dict[str, CaseResult] = field(default_factory=dict)  # case dir → the case, runs added
    load_errors: dict[str, LoadErrorEntry] = field(default_factory=dict)  # case dir → its load error
    suite: SuiteInfo | None = None
    skipped: list[SkippedRun] = field(default_factory=list)  # runs not started (cost ceiling)
    notices: list[str] = field(default_factory=list)
    eval_roots: list[str] = field(default_factory=list)

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def eval_root(self, path: str) -> None:
        if path not in self.eval_roots:
            self.eval_roots.append(path)

    @property
    def runs(self) -> list[RunResult]:
        return [run for case in self.cases.values() for run in case.runs()]


class Controller:
    def __init__(self, session: EvalSession):
        self.session = session
        self.collected = Collected()
        self.interrupted: str | None = None
        self.non_eval_failures = 0
        self.document: SuiteResult | None = None
        self.results_path: Path | None = None
        self.report_path: Path | None = None
        self.exit_status: int | None = None

    # ---- hooks (registered on the controller only) -----------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        if not self.session.active:
            return
        install_sigterm()
        if self.session.ledger is not None and self.session.options.max_cost_usd == 0:
            self.collected.notice("--max-cost-usd 0: no run can start")
        if self.session.config.option.eval_publish_report:
            self.collected.notice("--publish-report: reports are not published; the HTML report is local")

    def pytest_collectreport(self, report) -> None:
        data = getattr(report, wire.LOAD_ERROR_ATTR, None)
        if data is not None:
            self.record_load_error(wire.LoadErrorReport.from_json(data))
        elif report.failed:
            self.non_eval_failures += 1

    def pytest_runtest_logreport(self, report) -> None:
        data = getattr(report, wire.RUN_ATTR, None)
        skipped = getattr(report, wire.SKIP_ATTR, None)
        if data is not None and report.when == "call":
            self.record_run(wire.RunReport.from_json(data))
        elif skipped is not None:
            self.collected.skipped.append(SkippedRun.from_json(skipped))
        elif report.failed and "plugin_eval" not in report.keywords:
            self.non_eval_failures += 1

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.interrupted = signal_name(excinfo.value)

    def pytest_sessionfinish(self, session) -> None:
        self.finish(session)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.document is None:
            return
        from ..report.terminal import write_summary

        write_summary(terminalreporter, self.document, self.results_path, self.report_path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix, summary, postfix, session) -> None:
        """pytest-html (--html): the suite verdict and the per-case table above the test list."""
        if self.document is not None:
            from ..report.html import summary_html

            prefix.append(summary_html(self.document))

    # ---- gathering -----------------------------------------------------------------------------------

    def record_run(self, report: wire.RunReport) -> None:
        run = report.run
        if not self.collected.runs and run.error_kind == "auth":
            self.stop(
                "the first run's credentials were rejected — every remaining run would fail the same way, "
                "so the session stops here. Set ANTHROPIC_API_KEY (or your provider's credentials), or pass "
                "--scripted to check the suite offline"
            )
        case = self.collected.cases.setdefault(report.case.dir, report.case)
        case.arms.setdefault(run.arm, []).append(run)
        self.collected.suite = merge_suite(self.collected.suite, report.suite)
        for text in [*report.notices, *run.notes]:
            self.collected.notice(text)
        self.collected.eval_root(report.eval_root)

    def record_load_error(self, report: wire.LoadErrorReport) -> None:
        self.collected.load_errors.setdefault(report.entry.dir, report.entry)
        self.collected.eval_root(report.eval_root)

    def stop(self, reason: str) -> None:
        """Stop starting runs (runs in flight finish), with or without pytest-xdist."""
        self.collected.notice(f"⚠ {reason}")
        dsession = self.session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.session.pytest_session is not None:
            self.session.pytest_session.shouldstop = reason

    # ---- the end ---------------------------------------------------------------------------------------

    def finish(self, pytest_session) -> None:
        """Build the document, write it, and set the exit status (the controller, at session end)."""
        collected = self.collected
        if not (self.session.active or collected.cases or collected.load_errors):
            return
        keys = sorted(collected.cases, key=lambda k: Path(k).parts)
        cases = [scoring.aggregate(collected.cases[k]) for k in keys]
        if self.session.config.getoption("lf", False):
            cases = self.with_previous_runs({case.dir: case for case in cases})
        for case in cases:
            case.hints = hints.case_hints(case)
        for hint in hints.suite_hints(cases):
            collected.notice(f"💡 {hint}")
        runs = [run for case in cases for run in case.runs()]
        partial = scoring.partial_reason(runs, self.interrupted, bool(collected.skipped))
        self.cost_notices(runs)
        self.recording_notice()
        self.judge_price_notice(runs)
        threshold = self.session.options.threshold
        self.document = SuiteResult(
            claude_version=self.claude_version(),
            started_at=self.session.started_at,
            duration_seconds=time.monotonic() - self.session.started,
            suite=self.suite_info(),
            cases=cases,
            aggregates=scoring.suite_aggregates(cases, threshold),
            cost_usd=sum(r.cost_usd for r in runs),
            partial=partial is not None,
            partial_reason=partial,
            load_errors=[collected.load_errors[k] for k in sorted(collected.load_errors, key=lambda k: Path(k).parts)],
            skipped_runs=sorted(collected.skipped, key=lambda r: (Path(r.dir).parts, r.arm != "with", r.index)),
            notices=collected.notices,
        )
        failed = (
            bool(collected.load_errors)
            or not cases
            or self.non_eval_failures > 0
            or any(not scoring.passes_threshold(c, threshold) for c in cases)
            or any(r.error_kind == "start" for r in runs)
        )
        self.exit_status = scoring.exit_status(interrupted=self.interrupted, partial=partial is not None, failed=failed)
        self.write()
        rerun.remember(self.session.config, self.results_path)
        pytest_session.exitstatus = self.exit_status

    def with_previous_runs(self, fresh: dict[str, CaseResult]) -> list[CaseResult]:
        """--lf: complete this session's cases with the previous session's runs of unchanged cases."""
        found = rerun.previous_results(self.session.config)
        if found is None:
            return list(fresh.values())
        previous, path = found
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

    def write(self) -> None:
        assert self.document is not None
        document = self.document.to_json()
        folder = self.results_folder()
        if folder is not None:
            self.results_path = folder.results_file
            write_json(self.results_path, document)
        options = self.session.options
        report = Path(options.report).absolute() if options.report else (folder.report_file if folder else None)
        if report is not None:
            from ..report.html import write_report

            write_report(self.document, report)
            self.report_path = report
        if options.json_path == "-":
            sys.stdout.write(document_text(document))
        elif options.json_path:
            write_json(Path(options.json_path).absolute(), document)

    def recording_notice(self) -> None:
        folder = self.results_folder()
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

    def cost_notices(self, runs: list[RunResult]) -> None:
        cap = self.session.options.max_cost_usd
        if cap is None:
            return
        skipped = self.collected.skipped
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

    def results_folder(self) -> ResultsFolder | None:
        """The results folder of the first eval dir a report came from (None: nothing ran)."""
        roots = self.collected.eval_roots
        return self.session.results_folder(Path(roots[0]) if roots else None)

    def claude_version(self) -> str:
        if self.session.stored is not None:  # regraded runs were made by the stored session's Claude Code
            return self.session.stored.document.claude_version
        try:
            return claude_version(self.session.claude)
        except ClaudeNotFound:
            return "unknown"

    def suite_info(self) -> SuiteInfo:
        """The suite the cases came from, with the session's options."""
        options, session = self.session.options, self.session
        base = self.collected.suite or self.empty_suite()
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
        )

    def empty_suite(self) -> SuiteInfo:
        root = self.session.eval_roots[0].parent if self.session.eval_roots else Path.cwd()
        return SuiteInfo(root=str(root), ablation=self.session.ablation_for(False))


def merge_suite(a: SuiteInfo | None, b: SuiteInfo) -> SuiteInfo:
    """The first suite seen, with the plugins of later ones added."""
    if a is None:
        return b
    paths = {p.path for p in a.plugins}
    return dataclasses.replace(a, plugins=a.plugins + [p for p in b.plugins if p.path not in paths])
