"""The controller's half of an eval session: every run's report comes here — from this process, or from the
pytest-xdist workers. A plugin registered on the controller only (as xdist's DSession is), owning its hooks, so
what it sees is the same with and without `-n`. Each hook is a line that hands the event on: what the reports
say to the Gatherer (gatherer.py, which reports each case's verdict as soon as it holds every run of it), the
results documents to Documents (documents.py), the files to Outputs (outputs.py); at the end the controller
builds, writes and sets the exit status."""

from __future__ import annotations

from typing import Any

import pytest

from ..engine.documents import Documents
from ..engine.interrupts import install_sigterm
from ..engine.outputs import Outputs, output_path_problem
from ..engine.session_view import SessionView
from ..engine.start_findings import say_start_findings
from ..results import rerun, scoring
from ..results.model import SuiteResult
from . import progress as status
from . import pytest_internals
from .gatherer import Gatherer
from .progress import Progress


class Controller:
    def __init__(self, session: SessionView):
        self.session = session
        self.gather = Gatherer(session)
        self.build = Documents(session, self.gather.collected)
        self.outputs = Outputs(session, self.gather.collected)
        self.exit_status: int | None = None
        self.findings_said = False  # the pre-run findings, said once

    @property
    def progress(self) -> Progress | None:
        return self.gather.progress

    # ---- hooks (registered on the controller only) -----------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        self.start()

    @pytest.hookimpl(tryfirst=True)  # before the terminal prints pytest's "run-last-failure" line
    def pytest_collection_finish(self, session) -> None:
        self.collection_done(session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> None:
        self.gather.count_verdicts(session)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self.expect(ids)

    @pytest.hookimpl(tryfirst=True)  # pytest writes at the start of an item: the status makes way
    def pytest_runtest_logstart(self, nodeid, location) -> None:
        self.item_started(nodeid)

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self.item_ended(nodeid)

    def pytest_collectreport(self, report) -> None:
        self.gather.collect_report(report)

    @pytest.hookimpl(tryfirst=True)  # before JUnit XML records the report, and the terminal writes it
    def pytest_runtest_logreport(self, report) -> None:
        self.gather.log_report(report)

    def pytest_report_teststatus(self, report, config) -> Any:
        return status.teststatus(report, self.progress)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem, report, sched) -> None:
        self.gather.worker_crashed(str(crashitem))

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.gather.interrupt(excinfo.value)

    @pytest.hookimpl(tryfirst=True)  # the verdicts must reach the terminal and JUnit XML before they finish
    def pytest_sessionfinish(self, session) -> None:
        self.finish(session)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        self.summarize(terminalreporter)

    @pytest.hookimpl(optionalhook=True)  # pytest-html (--html): each suite's verdict and table above the tests
    def pytest_html_results_summary(self, prefix, summary, postfix, session) -> None:
        prefix.extend(self.html_summaries())

    # ---- the start -------------------------------------------------------------------------------------

    def start(self) -> None:
        """Before collection: the output paths are checked, the status shown, and the options' notices said."""
        session, notice = self.session, self.gather.collected.notice
        if not session.active:
            return
        install_sigterm()
        problem = output_path_problem(session.options)
        if problem:
            pytest.exit(problem, returncode=1)
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        self.gather.progress = Progress(terminal, session.pool.in_flight, session.options.max_cost_usd)
        cap, shard = session.options.max_cost_usd, session.options.shard
        if session.ledger is not None and cap == 0:
            notice("--max-cost-usd 0: no run can start")
        if session.config.option.eval_publish_report:
            notice("--publish-report: reports are not published; the HTML report is local")
        if shard is not None and cap is not None:
            notice(
                f"--max-cost-usd ${cap:g} applies to this shard ({shard[0]}/{shard[1]}) alone; the whole suite "
                f"may spend up to {shard[1]}× that"
            )

    def collection_done(self, pytest_session) -> None:
        """Collection is done: the runs are expected, --lf's and --shard's choice said, and CI gets a line a run."""
        session = self.session
        self.expect(item.nodeid for item in pytest_session.items)
        if session.rerun_status:  # pytest counts test ids; --lf here chose runs
            pytest_internals.set_last_failed_status(session.config, session.rerun_status)
        share, shard = session.shard_share, session.options.shard
        if share is not None and shard is not None:
            self.gather.collected.notice(
                f"--shard {shard[0]}/{shard[1]}: {share[0]} of {share[1]} case(s), {share[2]} of "
                f"{share[3]} run(s); combine the shards' results folders with `plugin-eval merge`"
            )
        progress = self.progress
        if progress is not None and progress.plain() and pytest_session.config.option.verbose == 0:
            pytest_session.config.option.verbose = 1  # CI logs: a line per run, saying how it went

    def expect(self, nodeids) -> None:
        """The run items of the session (or a worker's); the pre-run findings said once; each new eval dir's results
        folder is claimed (not with --collect-only: nothing runs, so no results folder is made)."""
        nodeids = [str(nodeid) for nodeid in nodeids]
        roots = self.gather.expect(nodeids)
        if nodeids and not self.findings_said:  # under xdist each worker sends every id: the first says them
            self.findings_said = True
            say_start_findings(self.session, nodeids)
        if getattr(self.session.config.option, "collectonly", False):
            return
        for root in roots:
            if root not in self.outputs.claimed:
                self.build.plugin_before_runs(root)
                problem = self.outputs.claim(root)
                if problem is not None:
                    self.refuse(problem)

    def refuse(self, problem: str) -> None:
        """Nothing can be written: exit before any run (under xdist, stop the workers instead)."""
        if self.session.config.pluginmanager.getplugin("dsession") is None:
            pytest.exit(problem, returncode=1)
        self.outputs.failed = True
        self.gather.stop(problem)

    def item_started(self, nodeid: str) -> None:
        """An item starts, here or on a worker (xdist forwards the event): it is in flight until it ends."""
        self.gather.started(nodeid)
        self.erase_status()

    def item_ended(self, nodeid: str) -> None:
        self.gather.ended(nodeid)
        self.draw_status()

    def erase_status(self) -> None:
        if self.progress is not None:
            self.progress.erase()

    def draw_status(self) -> None:
        if self.progress is not None:
            self.progress.draw()

    # ---- the end ---------------------------------------------------------------------------------------

    def finish(self, pytest_session) -> None:
        """Build the documents, report the verdicts not reported yet, write, and set the exit status."""
        gather, session = self.gather, self.session
        self.erase_status()
        if self.progress is not None:
            self.progress.terminal = None  # nothing more to show
        if getattr(session.config.option, "collectonly", False) or not (session.active or gather.collected.suites):
            return  # nothing ran: nothing to write
        documents = self.build.build(gather.interrupted)
        gather.report_remaining(documents)
        suites = list(gather.collected.suites.values())
        runs = [run for document in documents for case in document.cases for run in case.runs()]
        self.build.cost_notices(runs, [skip for suite in suites for skip in suite.skipped])
        failed = failed_documents(documents) or gather.non_eval_failures > 0 or gather.triggers.failed(session.options)
        partial = any(document.partial for document in documents)
        self.outputs.write(documents, suites)
        failed = failed or self.outputs.failed  # the session's record is incomplete: not a success
        self.exit_status = scoring.exit_status(interrupted=gather.interrupted, partial=partial, failed=failed)
        if gather.exit_requested is not None:
            self.exit_status = gather.exit_requested
        rerun.remember(session.config, [w.results_path for w in self.outputs.written if w.results_path])
        pytest_session.exitstatus = self.exit_status

    def summarize(self, terminalreporter) -> None:
        """The terminal's summary of each suite (and its comparison with --compare-to)."""
        written = self.outputs.written
        if not written:
            return
        from ..report.terminal import shared_notices, write_shared_notices, write_summary

        many = len(written) > 1
        # the notices of every suite (a matrix's models, several eval dirs) once above them, not under the first's
        # heading; a suite's own (a plugin's hints, its cases' notices) under its own
        shared = shared_notices([w.document for w in written]) if many else []
        if many:
            what = "models" if self.outputs.matrices else "suites"
            write_shared_notices(terminalreporter, shared, f"all {len(written)} {what}")
        for w in written:
            write_summary(
                terminalreporter,
                w.document,
                w.results_path,
                w.report_path,
                w.label if many else None,
                expanded=getattr(self.session.config.option, "verbose", 0) >= 2,  # -vv: what the runs spent
                said_above=shared,
            )
            if w.comparison is not None:
                from ..report.comparison import write_comparison

                write_comparison(terminalreporter, w.comparison)
        if self.outputs.matrices:
            from ..report.matrix import write_matrix

            for m in self.outputs.matrices:
                write_matrix(terminalreporter, m.matrix, m.rows, m.path, self.session.options.max_cost_usd)

    def html_summaries(self) -> list[str]:
        if not self.outputs.written:
            return []
        from ..report.html import summary_html

        return [summary_html(document) for document in self.outputs.documents]


def failed_documents(documents: list[SuiteResult]) -> bool:
    """The documents' own rule, so the exit status is the one merge and compare read back."""
    return (
        not any(document.cases or document.triggers for document in documents)
        or any(document.load_errors for document in documents)
        or any(scoring.document_failed(document) for document in documents if document.cases)
    )
