"""The controller's half of an eval session: every run's report comes here — from this process, or from the
pytest-xdist workers — and at the end it builds the results document, writes it and the HTML report, and sets
the exit status. A plugin registered on the controller only (as xdist's DSession is), so what it sees is the
same with and without `-n`."""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import cost, hints, rerun, scoring
from .agent import ClaudeNotFound, claude_version
from .case import CaseLoadError, display_path
from .interrupts import signal_name
from .results import RunResult, case_document, suite_document, write_json


@dataclass
class Collected:
    """What the controller learns from the reports."""
    headers: dict[str, dict] = field(default_factory=dict)       # case key → case header JSON
    runs: dict[str, list[RunResult]] = field(default_factory=dict)
    load_errors: dict[str, dict] = field(default_factory=dict)   # case dir → loadErrors entry
    suite: dict = field(default_factory=dict)
    skipped: list[dict] = field(default_factory=list)             # runs not started (cost ceiling)
    notices: list[str] = field(default_factory=list)
    eval_roots: list[str] = field(default_factory=list)

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def eval_root(self, path: str) -> None:
        if path not in self.eval_roots:
            self.eval_roots.append(path)


class Controller:
    def __init__(self, session):
        self.session = session
        self.collected = Collected()
        self.interrupted: str | None = None
        self.non_eval_failures = 0
        self.document: dict | None = None
        self.results_path: Path | None = None
        self.report_path: Path | None = None
        self.exit_status: int | None = None

    def pytest_collectreport(self, report) -> None:
        data = getattr(report, "plugin_eval_load_error", None)
        if data is not None:
            self.record_load_error(data)
        elif report.failed:
            self.non_eval_failures += 1

    def pytest_runtest_logreport(self, report) -> None:
        data = getattr(report, "plugin_eval", None)
        skipped = getattr(report, "plugin_eval_skip", None)
        if data is not None and report.when == "call":
            self.record_run(data)
        elif skipped is not None:
            self.record_skip(skipped)
        elif report.failed and "plugin_eval" not in report.keywords:
            self.non_eval_failures += 1

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.interrupted = signal_name(excinfo.value)

    def summary(self, terminal) -> None:
        if self.document is None:
            return
        from .report import write_summary
        write_summary(terminal, self.document, self.results_path, self.report_path)

    def html_summary(self, prefix: list) -> None:
        """pytest-html (--html): the suite verdict and the per-case table above the test list."""
        if self.document is not None:
            from .htmlreport import summary_html
            prefix.append(summary_html(self.document))

    def record_run(self, data: dict) -> None:
        header = data["case"]
        key = header["dir"]
        if not self.collected.runs and data["run"].get("error_kind") == "auth":
            self.stop("the first run's credentials were rejected — every remaining run would fail the same way, "
                      "so the session stops here. Set ANTHROPIC_API_KEY (or your provider's credentials), or pass "
                      "--scripted to check the suite offline")
        self.collected.headers.setdefault(key, header)
        self.collected.runs.setdefault(key, []).append(RunResult.from_data(data["run"]))
        if not self.collected.suite:
            self.collected.suite = data["suite"]
        else:
            self.collected.suite = merge_suite(self.collected.suite, data["suite"])
        for text in [*data.get("notices", ()), *data["run"].get("notes", ())]:
            self.collected.notice(text)
        self.collected.eval_root(data["evalRoot"])

    def record_skip(self, data: dict) -> None:
        self.collected.skipped.append(data)

    def stop(self, reason: str) -> None:
        """Stop starting runs (runs in flight finish), with or without pytest-xdist."""
        self.collected.notice(f"⚠ {reason}")
        dsession = self.session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.session.pytest_session is not None:
            self.session.pytest_session.shouldstop = reason

    def record_load_error(self, data: dict) -> None:
        self.collected.load_errors.setdefault(data["dir"], data["entry"])
        self.collected.eval_root(data["evalRoot"])

    def finish(self, pytest_session) -> None:
        """Build the document, write it, and set the exit status (the controller, at session end)."""
        if not (self.session.active or self.collected.load_errors):
            return
        collected = self.collected
        keys = sorted(collected.headers, key=lambda k: Path(k).parts)
        cases = [case_document(collected.headers[k], collected.runs[k]) for k in keys]
        if self.session.config.getoption("lf", False):
            cases = self.with_previous_runs(cases)
        for case in cases:
            found = hints.case_hints(case)
            if found:
                case["hints"] = found
        for hint in hints.suite_hints(cases):
            self.collected.notice(f"💡 {hint}")
        runs = [r for rs in collected.runs.values() for r in rs]
        partial = partial_reason(runs, self.interrupted, bool(collected.skipped))
        self.cost_notices(runs)
        self.recording_notice()
        self.judge_price_notice(runs)
        base = dict(collected.suite) or self.empty_suite()
        suite = {"root": base["root"], "ablation": base["ablation"], **self.suite_options(), "plugins": base["plugins"]}
        self.document = suite_document(
            claude_version=self.claude_version(), started_at=self.session.started_at,
            duration=time.monotonic() - self.session.started, suite=suite, cases=cases,
            threshold=self.session.options.threshold, partial_reason=partial,
            load_errors=[collected.load_errors[k] for k in sorted(collected.load_errors)], notices=collected.notices,
            skipped=sorted(collected.skipped, key=lambda r: (Path(r["dir"]).parts, r["arm"] != "with", r["index"])))
        failed = (bool(collected.load_errors) or not cases or self.non_eval_failures > 0
                  or any(not scoring.passes_threshold(c, self.session.options.threshold) for c in cases)
                  or any(r.error_kind == "start" for r in runs))
        self.exit_status = scoring.exit_status(interrupted=self.interrupted, partial=partial is not None, failed=failed)
        self.write()
        rerun.remember(self.session.config, self.results_path)
        pytest_session.exitstatus = self.exit_status

    def with_previous_runs(self, cases: list[dict]) -> list[dict]:
        """--lf: complete this session's cases with the previous session's runs of unchanged cases."""
        from .session import case_header
        found = rerun.previous_document(self.session.config)
        if found is None:
            return cases
        previous, path = found
        current = {}
        for case in previous.get("cases", []):
            folder = Path(previous["suite"]["root"]) / case["dir"]
            root = self.session.eval_root(folder)
            try:
                loaded = self.session.load(folder, root) if root is not None else None
            except CaseLoadError:
                loaded = None
            if loaded is not None:
                current[case["dir"]] = case_header(loaded, self.session)
        merged, reused = rerun.merge(self.collected.headers, self.collected.runs, previous, current)
        if reused:
            self.collected.notice(f"--lf: {reused} run(s) of unchanged cases reused from {display_path(Path(path))}")
        return merged

    def write(self) -> None:
        folder = self.results_folder()
        if folder is not None:
            self.results_path = folder / "aggregate-result.json"
            write_json(self.results_path, self.document)
        report = Path(self.session.options.report).absolute() if self.session.options.report else (
            folder / "report.html" if folder is not None else None)
        if report is not None:
            from .htmlreport import write_report
            write_report(self.document, report)
            self.report_path = report
        if self.session.options.json_path == "-":
            sys.stdout.write(json.dumps(self.document, indent=1, ensure_ascii=False) + "\n")
        elif self.session.options.json_path:
            write_json(Path(self.session.options.json_path).absolute(), self.document)

    def recording_notice(self) -> None:
        folder = self.results_folder()
        recordings = list((folder / "mock-recordings").glob("*/*.json")) if folder else []
        if recordings:
            self.collected.notice(f"{len(recordings)} agent-mock recording(s) under {display_path(folder / 'mock-recordings')}"
                                  f" — copy them to evals/mocks/.replay/<server>/ to replay them with no model call")

    def judge_price_notice(self, runs: list[RunResult]) -> None:
        model = self.session.judge_model
        judged = any("judgeVotes" in g.details for r in runs for g in r.graders)
        if judged and not cost.lookup(model).known:
            self.collected.notice(f"judge model {model} is not in the price table: its calls are priced as "
                                  f"{cost.lookup(model).model}")

    def cost_notices(self, runs: list[RunResult]) -> None:
        cap = self.session.options.max_cost_usd
        if cap is None:
            return
        skipped = self.collected.skipped
        spent = sum(r.cost_usd for r in runs)
        if skipped:
            cases = sorted({r["case"] for r in skipped})
            self.collected.notice(f"⚠ cost ceiling ${cap:g} reached (${spent:.4f} spent): {len(skipped)} run(s) not "
                                  f"started, in {', '.join(cases)}")
        paid = sum(1 for r in runs if r.skipped_paid_graders)
        if paid:
            self.collected.notice(f"⚠ cost ceiling ${cap:g} crossed by runs in flight: {paid} run(s) skipped their "
                                  f"paid graders, which are left out of their scores")

    def results_folder(self) -> Path | None:
        """The results folder of the first eval dir a report came from (None: nothing ran)."""
        roots = self.collected.eval_roots
        return self.session.results_folder(Path(roots[0]) if roots else None)

    def claude_version(self) -> str:
        if self.session.stored is not None:  # regraded runs were made by the stored session's Claude Code
            return self.session.stored.document.get("claudeVersion", "unknown")
        try:
            return claude_version(self.session.claude)
        except ClaudeNotFound:
            return "unknown"

    def empty_suite(self) -> dict:
        root = self.session.eval_roots[0].parent if self.session.eval_roots else Path.cwd()
        return {"root": str(root), "ablation": self.session.ablation_for(False), "plugins": []}

    def suite_options(self) -> dict:
        out: dict = {}
        if self.session.options.model:
            out["modelOverride"] = self.session.options.model
        if self.session.options.judge_model:
            out["judgeModel"] = self.session.options.judge_model
        out["judgeModelResolved"] = self.session.judge_model
        if self.session.options.case_globs:
            out["caseFilter"] = self.session.options.case_globs[-1] if len(self.session.options.case_globs) == 1 else list(self.session.options.case_globs)
        if self.session.options.tags:
            out["tagFilters"] = list(self.session.options.tags)
        if self.session.options.scripted:
            out["scripted"] = True
        if self.session.stored is not None:
            out["regradedFrom"] = str(self.session.stored.folder)
        out["threshold"] = self.session.options.threshold
        out["concurrency"] = self.session.options.concurrency or workers(self.session.config)
        if self.session.options.runs:
            out["runsOverride"] = self.session.options.runs
        return out


def workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    return n if isinstance(n, int) and n > 0 else 1




def merge_suite(a: dict, b: dict) -> dict:
    out = dict(a)
    paths = {p["path"] for p in a["plugins"]}
    out["plugins"] = a["plugins"] + [p for p in b["plugins"] if p["path"] not in paths]
    return out




def partial_reason(runs: list[RunResult], interrupted: str | None, runs_skipped: bool) -> str | None:
    if interrupted:
        return "interrupted"
    if runs_skipped or any(r.skipped_paid_graders for r in runs):
        return "cost_ceiling"
    kinds = {r.error_kind for r in runs}
    if "auth" in kinds:
        return "auth_failed"
    if "api" in kinds:
        return "api_error"
    if any(g.details.get("errored") for r in runs for g in r.graders):
        return "judge_error"
    return None
