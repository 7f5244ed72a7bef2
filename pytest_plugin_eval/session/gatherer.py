"""What the controller makes of each report, from this process or a pytest-xdist worker: a run, a run not started,
a case that did not load, a worker that died, an interruption. As soon as it holds every run of a case it reports
the case's verdict as a test of its own (verdicts.py). What it learns goes into engine/collected.py's plain data."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from ..core.kinds import ErrorKind
from ..engine import lost, wire
from ..engine.collected import (
    RUN_PARAMS,
    CaseItems,
    Collected,
    case_file_of,
    case_slot_of,
    merge_suite,
    slot_file,
    slot_model,
)
from ..engine.documents import aggregated
from ..engine.interrupts import signal_name
from ..engine.session_view import SessionView
from ..results import hints
from ..results.model import CaseResult, RunResult
from ..results.verdict import case_verdict
from ..run.access import refused_mid_session
from . import verdicts
from .progress import Progress
from .trigger_gatherer import TRIGGER_PARAMS, TriggerGather

AUTH_STOP = (
    "the first run's credentials were rejected — every remaining run would fail the same way, so the session "
    "stops here. Check what signs Claude Code in (the session's `access` line names it): a login — run `claude` "
    "once to refresh it, or `claude /login`; a setup token — a fresh one from `claude setup-token`; an API key or a "
    "cloud provider — its variables. Or pass --scripted to check the suite offline"
)


class Gatherer:
    """The controller's reactions to reports; what they say is kept on `collected` and `items`."""

    def __init__(self, session: SessionView):
        self.session = session
        self.collected = Collected(models=session.options.models)
        self.items = CaseItems()
        self.progress: Progress | None = None  # made when the session starts (an eval session only)
        self.non_eval_failures = 0
        self.interrupted: str | None = None  # SIGINT, SIGTERM, or None when the session stopped itself
        self.exit_requested: int | None = None  # pytest.exit(…, returncode)
        self.verdicts_counted = False
        self.triggers = TriggerGather(self.collected)
        self.in_flight: set[str] = set()  # run items started (here or on a worker) whose run is not recorded yet
        self.auth_said = False  # a run's credentials were refused and the session said so (and stopped at the first)
        # What each kind of item carries on its call report, and what records it: a kind of item adds a line.
        self.call_reports: dict[str, Callable[[Any, str], None]] = {
            wire.RUN_ATTR: lambda data, nodeid: self.record_run(wire.RunReport.from_json(data), nodeid),
            wire.SKIP_ATTR: lambda data, nodeid: self.record_skip(wire.SkipReport.from_json(data)),
            wire.TRIGGER_ATTR: lambda data, nodeid: self.record_trigger(wire.TriggerReport.from_json(data), nodeid),
        }

    # ---- collection ------------------------------------------------------------------------------------

    def expect(self, nodeids: Iterable[Any]) -> list[Path]:
        """Note the run items collected (here, or by a worker); returns the eval dirs their cases are in."""
        nodeids = [str(nodeid) for nodeid in nodeids]
        self.items.expect(nodeids)
        self.triggers.expect(nodeids)
        if self.progress is not None:
            # trigger runs are runs too (each is counted done as it reports): never `runs 179/24`
            self.progress.expect(sum(len(ids) for ids in self.items.expected.values()) + len(self.triggers.runs))
        files = [*map(slot_file, self.items.expected), *self.triggers.files_expected]
        roots = [self.session.eval_root(self.session.config.rootpath / file) for file in files]
        return list(dict.fromkeys(root for root in roots if root is not None))

    def count_verdicts(self, pytest_session: pytest.Session | None) -> None:
        """Each case's verdict is reported as one more test: count them once, so the progress ends at 100%
        (under xdist, once the workers' collection has set the count)."""
        verdicts = len(self.items.expected) + len(self.triggers.expected)
        if not self.verdicts_counted and verdicts and pytest_session is not None:
            pytest_session.testscollected += verdicts
            self.verdicts_counted = True

    def collect_report(self, report: pytest.CollectReport) -> None:
        data = getattr(report, wire.LOAD_ERROR_ATTR, None)
        if data is not None:
            self.record_load_error(wire.LoadErrorReport.from_json(data))
        elif report.failed:
            self.non_eval_failures += 1

    # ---- reports of items ------------------------------------------------------------------------------

    def log_report(self, report: pytest.TestReport) -> None:
        """One report of an item (setup, call or teardown), before JUnit XML records it and the terminal writes it."""
        if self.progress is not None:
            self.progress.erase()
        self.count_verdicts(self.session.pytest_session)
        names = getattr(report, verdicts.JUNIT_ATTR, None)
        if names is not None:
            verdicts.junit(self.session.config, report, *names)
        carried = {attr: getattr(report, attr) for attr in self.call_reports if hasattr(report, attr)}
        if carried and report.when == "call":
            self.record_carried(carried, str(report.nodeid))
        elif report.failed and "plugin_eval" not in report.keywords:
            self.non_eval_failures += 1
        if report.when == "teardown":
            case_file = self.items.finished(str(report.nodeid))
            if case_file is not None and not self.session.config.getoption("lf", False):
                self.report_case(case_file)  # --lf: verdicts wait for the runs reused at the end

    def record_carried(self, carried: dict[str, Any], nodeid: str) -> None:
        """What an item's call report carried (attribute → JSON), each part to what records it."""
        for attr, data in carried.items():
            if attr in self.call_reports:
                self.call_reports[attr](data, nodeid)

    def record_run(self, report: wire.RunReport, nodeid: str) -> None:
        self.in_flight.discard(nodeid)
        run = report.run
        if run.error_kind == "auth" and not self.auth_said:
            self.refused(report.model)
        suite = self.collected.of(report.eval_root, report.model)
        case = suite.cases.setdefault(report.case.dir, report.case)
        case.arms.setdefault(run.arm, []).append(run)
        suite.suite = merge_suite(suite.suite, report.suite)
        for text in [*report.notices, *run.notes]:
            self.collected.notice(text, suite)
        slot = case_slot_of(nodeid)
        if slot is not None:
            self.items.where[slot] = (report.eval_root, report.case.dir, report.label, report.model)
        if self.progress is not None:
            self.progress.finished(run)

    def refused(self, model: str | None) -> None:
        """A run's credentials were refused. At the first run nothing would work: stop. After runs of the same model
        were answered, the sign-in may have expired or been revoked mid-session: said once, with the fix for what
        signs the runs in, and the session goes on as the reference tool's does (each refused run is a run error of
        its own). Runs of another model answered (a matrix): it may be that model alone the account cannot use."""
        if not self.collected.runs and not any(suite.trigger_sets for suite in self.collected.suites.values()):
            self.auth_said = True
            self.stop(AUTH_STOP)
            return
        answered = sum(
            1
            for suite in self.collected.suites.values()
            if suite.model == model
            for case in suite.cases.values()
            for run in case.runs()
            if run.error_kind != "auth"
        ) + self.trigger_runs_answered(model)
        if answered:
            self.auth_said = True
            self.collected.notice(f"⚠ {refused_mid_session((self.session.access or {}).get('runs'), answered)}")

    def record_trigger(self, report: wire.TriggerReport, nodeid: str) -> None:
        self.in_flight.discard(nodeid)
        if report.run.error_kind == "auth" and not self.auth_said:
            self.refused(report.model)  # as a case run's: trigger runs are signed in the same way
        self.triggers.record(report, nodeid)
        suite = self.collected.of(report.eval_root, report.model)
        suite.suite = merge_suite(suite.suite, report.suite)
        for note in report.run.notes:
            self.collected.notice(note, suite)
        if self.progress is not None:
            run = report.run
            self.progress.finished(RunResult("with", run.index, score=None, passed=False, cost_usd=run.cost_usd))

    def trigger_runs_answered(self, model: str | None) -> int:
        """The trigger runs of `model` recorded so far whose credentials were accepted (--against's included)."""
        return sum(
            1
            for suite in self.collected.suites.values()
            if suite.model == model
            for trigger_set in suite.trigger_sets.values()
            for query in trigger_set.queries
            for run in (*query.runs, *query.against_runs)
            if run.error_kind != "auth"
        )

    def record_skip(self, report: wire.SkipReport) -> None:
        self.collected.of(report.eval_root, report.model).skipped.append(report.run)

    def record_load_error(self, report: wire.LoadErrorReport) -> None:
        """A case that does not load is in every model's document of a matrix (it ran on none)."""
        for suite in self.collected.of_every_model(report.eval_root):
            suite.load_errors.setdefault(report.entry.dir, report.entry)

    def worker_crashed(self, nodeid: str) -> None:
        """A pytest-xdist worker died while running a run: the run is recorded, errored, and the session is
        partial — never lost, never a pass."""
        case_file = case_file_of(nodeid)
        if case_file is not None:
            lost.remove_workspace(self.session, nodeid, case_file)
        self.record_lost(nodeid, "worker_lost", "the pytest-xdist worker running it died; its run was lost")

    def record_lost(self, nodeid: str, kind: ErrorKind, message: str) -> None:
        case_file = case_file_of(nodeid)
        report = lost.lost_run(self.session, nodeid, case_file, kind, message) if case_file else None
        if report is not None:
            self.record_run(report, nodeid)
            return
        trigger = lost.lost_trigger_run(self.session, nodeid, kind, message)
        if trigger is not None:
            self.record_trigger(trigger, nodeid)

    def started(self, nodeid: str) -> None:
        if RUN_PARAMS.search(nodeid) or TRIGGER_PARAMS.search(nodeid):
            self.in_flight.add(nodeid)

    def ended(self, nodeid: str) -> None:
        self.in_flight.discard(nodeid)

    def interrupt(self, exc: BaseException) -> None:
        """Ctrl-C, SIGTERM or pytest.exit: the runs in flight are stopped and recorded (interrupted), with any that
        ended and were not reported yet."""
        self.interrupted = signal_name(exc)
        self.exit_requested = getattr(exc, "returncode", None)  # pytest.exit(…, returncode) decides
        for item, outcome in self.session.stop_runs():  # collect.PooledItems
            item.ended(outcome)
            self.record_carried(item.carried(), item.nodeid)
        if self.session.config.pluginmanager.getplugin("dsession") is not None:
            for nodeid in sorted(self.in_flight):  # on the workers, torn down after the results are written
                self.record_lost(nodeid, "interrupted", "interrupted: the session was stopped")

    def stop(self, reason: str) -> None:
        """Stop starting runs (runs in flight finish), with or without pytest-xdist."""
        self.collected.notice(f"⚠ {reason}")
        dsession = self.session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.session.pytest_session is not None:
            self.session.pytest_session.shouldstop = reason

    # ---- verdicts --------------------------------------------------------------------------------------

    def report_case(self, slot: str, case: CaseResult | None = None) -> None:
        """Report a case's verdict (on one model of a matrix), once, as a test of its own."""
        if slot in self.items.reported or slot not in self.items.where:
            return
        eval_root, case_dir, label, model = self.items.where[slot]
        if case is None:
            case = aggregated(self.collected.of(eval_root, model).cases[case_dir], self.session.options.auto_runs)
            case.hints = hints.case_hints(case)
        self.items.reported.add(slot)
        verdict = case_verdict(case, self.session.options.threshold)
        verdicts.report_case(self.session.config, slot_file(slot), label, case, verdict, model=slot_model(slot))

    def report_remaining(self, documents: list) -> None:
        """At the end: the verdicts not reported yet (--lf's, and cases whose last run never reported), from the
        documents' cases."""
        self.triggers.report_verdicts(self.session.config, self.session.options)
        for document, suite in zip(documents, self.collected.suites.values(), strict=True):
            by_dir = {case.dir: case for case in document.cases}
            for slot, (eval_root, case_dir, _, model) in self.items.where.items():
                if eval_root == suite.eval_root and model == suite.model and case_dir in by_dir:
                    self.report_case(slot, by_dir[case_dir])
