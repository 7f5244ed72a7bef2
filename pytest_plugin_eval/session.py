"""The one object that owns an eval session's state, hung on the pytest config.

On every process it loads cases and runs items; on the controller (the only process under pytest-xdist that
sees every report) it gathers run results and load errors from the reports and, at the end, writes the
results document and decides the exit status. Nothing is shared between processes except what travels on
the reports, so results are the same with and without `-n`.
"""
from __future__ import annotations

import fnmatch
import json
import os
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import anthropic
import pytest

from . import cost, hints, permissions, rerun, scoring
from .interrupts import install_sigterm, signal_name
from .graders import register, registry
from .judge import Judge, resolve_judge_model
from .agent import ClaudeNotFound, claude_version, find_claude
from .case import BUILTIN_ORDER, CASE_FILE, PROMPT_FILE, Case, CaseLoadError, display_path
from .cost import CostLedger
from .options import EvalOptions, eval_options_given
from .results import RunResult, case_document, now_iso, suite_document, timestamp_dirname, write_json
from .regrade import StoredResults, regrade_run
from .runner import RunPlan, execute
from .target import NOT_CASE_DIRS, RESERVED_DIR, enclosing_plugin, eval_dir_name, eval_root_of, plugin_at

SESSION_KEY = pytest.StashKey["EvalSession"]()
JUDGE_TIMEOUT = 120
WORKER_INPUT_KEY = "plugin_eval"


def get_session(config) -> "EvalSession":
    return config.stash[SESSION_KEY]


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


class EvalSession:
    def __init__(self, config, options: EvalOptions):
        self.config = config
        self.options = options
        worker = getattr(config, "workerinput", None)
        shared = worker.get(WORKER_INPUT_KEY, {}) if worker else {}
        self.is_worker = worker is not None
        self.started_at: str = shared.get("started_at") or now_iso()
        self.started = time.monotonic()
        self._cases: dict[Path, Case] = {}
        self._endpoint = None
        self._judge_client = None
        self._claude: Path | None = None
        self.collected = Collected()
        self.eval_roots: list[Path] = []
        self.interrupted: str | None = None
        self.non_eval_failures = 0
        self.pytest_session = None
        self.ledger: CostLedger | None = None
        self._shared = shared
        self.stored = StoredResults(Path(options.regrade)) if options.regrade else None
        self.document: dict | None = None
        self.results_path: Path | None = None
        self.report_path: Path | None = None
        self.exit_status: int | None = None

    # ---- start-up ------------------------------------------------------------------------------------

    def configure(self) -> None:
        """Find the eval dirs this session will collect from; a broken case must not stop the others."""
        base = self.config.invocation_params.dir
        for arg in self.config.args:
            path = (base / arg.split("::")[0]).absolute()
            for root in find_eval_roots(path, self.options.eval_dir):
                if root not in self.eval_roots:
                    self.eval_roots.append(root)
        if self.active:
            self.config.option.continue_on_collection_errors = True
            if not self.is_worker:
                install_sigterm()
        self.ledger = self.make_ledger(self._shared)

    def planned_results_folder(self) -> Path | None:
        """Where results will go, known before collection from the command line's eval dirs."""
        if self.options.output_dir:
            return Path(self.options.output_dir).absolute()
        if self.eval_roots:
            return self.eval_roots[0] / "results" / timestamp_dirname(self.started_at)
        return None

    @property
    def active(self) -> bool:
        """An eval session: it collects from an eval dir, or eval options were given."""
        return bool(self.eval_roots) or eval_options_given(self.config.option) or bool(self.collected.headers)

    def start(self, pytest_session) -> None:
        """Before anything runs (controller): a missing eval dir means no cases (exit 1, not a usage error);
        running a suite runs the plugin's code, so it must be trusted."""
        self.pytest_session = pytest_session
        if self.is_worker:
            return
        if self.ledger is not None and self.options.max_cost_usd == 0:
            self.collected.notice("--max-cost-usd 0: no run can start")
        base = self.config.invocation_params.dir
        for arg in self.config.args:
            path = (base / arg.split("::")[0]).absolute()
            if not path.exists() and path.name == eval_dir_name(enclosing_plugin(path.parent), self.options.eval_dir):
                pytest.exit(f"No eval cases found under {path.parent}: there is no {path.name}/ folder.", returncode=1)
        if not self.eval_roots or self.options.trust_plugin:
            return
        from .trust import confirm_trust
        confirm_trust([root.parent for root in self.eval_roots])

    # ---- shared with workers -------------------------------------------------------------------------

    def worker_input(self) -> dict:
        return {"started_at": self.started_at, "ledger": str(self.ledger.path) if self.ledger else None,
                "host": socket.gethostname(), "workers": _workers(self.config)}

    def make_ledger(self, shared: dict) -> CostLedger | None:
        """The --max-cost-usd ledger: a SQLite file shared by the processes of this host. A worker on another
        host keeps its own ledger with an equal share of the cap, which keeps the cap a hard bound."""
        cap = self.options.max_cost_usd
        if cap is None:
            return None
        if self.is_worker and shared.get("ledger") and shared.get("host") == socket.gethostname():
            return CostLedger(Path(shared["ledger"]), cap)
        if self.is_worker and shared.get("ledger"):
            return CostLedger(Path(tempfile.mkdtemp(prefix="plugin-eval-ledger-")) / "ledger.sqlite",
                              cap / max(1, shared.get("workers", 1)))
        folder = self.planned_results_folder() or Path(tempfile.mkdtemp(prefix="plugin-eval-ledger-"))
        return CostLedger(folder / "cost-ledger.sqlite", cap)

    @property
    def claude(self) -> Path:
        if self._claude is None:
            self._claude = find_claude(self.options.claude)
        return self._claude

    # ---- collection ----------------------------------------------------------------------------------

    def eval_root(self, path: Path) -> Path | None:
        return eval_root_of(path, self.options.eval_dir)

    def load(self, case_dir: Path, eval_root: Path) -> Case:
        if case_dir not in self._cases:
            self.register_grader_types()
            self._cases[case_dir] = _load_or_raise(case_dir, eval_root)
        return self._cases[case_dir]

    def register_grader_types(self) -> None:
        """Grader types from pytest_plugin_eval_grader_types hooks (plugins, conftest.py files loaded so far)."""
        for kinds in self.config.hook.pytest_plugin_eval_grader_types(config=self.config):
            for kind in kinds or ():
                if kind.name in BUILTIN_ORDER and type(registry().get(kind.name)) is not type(kind):
                    raise pytest.UsageError(f"grader type {kind.name!r} from a pytest_plugin_eval_grader_types hook "
                                            f"clashes with the built-in type of that name; rename it")
                register(kind)

    def ablation(self, case: Case) -> str:
        return self.options.ablation or ("with-without" if case.plugin_dirs else "none")

    def two_arm(self, case: Case) -> bool:
        # A resumed history carries the plugin into both arms, so such a case runs single-arm.
        return self.ablation(case) == "with-without" and bool(case.plugin_dirs) and case.context.history_file is None

    def arms_for(self, case: Case) -> tuple[str, ...]:
        return ("with", "without") if self.two_arm(case) else ("with",)

    def runs_for(self, case: Case) -> int:
        return self.options.runs or case.runs_per_arm

    def runs_to_collect(self, case: Case) -> list[tuple[str, int]]:
        """(arm, index) of the items of a case: every arm × run, or with --regrade the runs stored for it."""
        if self.stored is not None:
            return self.stored.runs_of(case.rel_dir)
        return [(arm, index) for arm in self.arms_for(case) for index in range(1, self.runs_for(case) + 1)]

    def selected(self, case: Case) -> bool:
        return self.selected_name(case.name, case.tags)

    def selected_name(self, name: str, tags: tuple[str, ...]) -> bool:
        """The --case globs (on the case name; * and ? only) and --tag filters."""
        if self.options.case_globs and not any(_glob(name, g) for g in self.options.case_globs):
            return False
        if self.options.tags and not set(self.options.tags) & set(tags):
            return False
        return True

    def ignore(self, path: Path) -> bool | None:
        """Never collect results/, mocks/, node_modules/ or .claude/ inside an eval dir; do collect dot-dirs."""
        root = self.eval_root(path)
        if root is None or path == root:
            return None
        if path.name in NOT_CASE_DIRS or path.name == RESERVED_DIR:
            return True
        if path.name.startswith(".") and path.is_dir():
            return False
        return None

    def case_file_root(self, path: Path) -> Path | None:
        """The eval dir of `path` when it is the file a case is anchored on (prompt.md, else case.yaml)."""
        if path.name == CASE_FILE and (path.parent / PROMPT_FILE).is_file():
            return None
        if path.name not in (PROMPT_FILE, CASE_FILE):
            return None
        return self.eval_root(path.parent)

    def filter_items(self, items: list) -> None:
        from .collect import RunItem
        kept, dropped = [], []
        for item in items:
            (kept if not isinstance(item, RunItem) or self.selected(item.case) else dropped).append(item)
        if dropped:
            self.config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def load_error_data(self, collector) -> dict:
        error = collector.load_error
        root = collector.eval_root
        rel = os.path.relpath(error.case_dir, root.parent)
        problems = [{"file": os.path.relpath(p.file, root.parent), "key": p.key, "message": p.message}
                    for p in error.problems]
        entry = {"case": error.case_dir.name, "dir": rel,
                 "message": "; ".join(p.render(root.parent) for p in error.problems), "problems": problems}
        return {"dir": rel, "evalRoot": str(root), "entry": entry}

    # ---- running -------------------------------------------------------------------------------------

    def results_dir(self, case: Case) -> Path:
        if self.options.output_dir:
            return Path(self.options.output_dir).absolute()
        return case.eval_root / "results" / timestamp_dirname(self.started_at)

    def run_item(self, item) -> RunResult:
        case = item.case
        if self.ledger is not None and not self.ledger.may_start():
            spent = self.ledger.spent()
            item.skip_record = {"case": case.name, "dir": case.rel_dir, "arm": item.arm, "index": item.index,
                                "reason": "cost_ceiling"}
            pytest.skip(f"cost ceiling ${self.options.max_cost_usd:g} reached (${spent:.4f} spent): run not started")
        rel = os.path.relpath(case.dir, case.eval_root)
        if self.stored is not None:
            plan = RunPlan(case=case, arm=item.arm, index=item.index, two_arm=self.two_arm(case), options=self.options,
                           claude=Path("claude"), artefacts=self.results_dir(case) / "runs" / rel / f"{item.arm}-{item.index}",
                           judge=self.judge_for(case, item.arm, item.index), ledger=self.ledger)
            return regrade_run(plan, self.stored.runs[(case.rel_dir, item.arm, item.index)])
        plan = RunPlan(case=case, arm=item.arm, index=item.index, two_arm=self.two_arm(case), options=self.options,
                       claude=self.claude, artefacts=self.results_dir(case) / "runs" / rel / f"{item.arm}-{item.index}",
                       base_url=self.scripted_url(case, item.arm, item.index),
                       judge=self.judge_for(case, item.arm, item.index), ledger=self.ledger,
                       attempts=1 + self.options.api_retries, mock_agent=self.mock_agent(case, item.arm, item.index),
                       record_dir=self.results_dir(case) / "mock-recordings")
        return execute(plan)

    @property
    def judge_model(self) -> str:
        return resolve_judge_model(self.options.judge_model)

    def endpoint(self):
        """The scripted endpoint of this process (--scripted), started on first use."""
        if self._endpoint is None:
            from .scripted import ScriptedEndpoint
            self._endpoint = ScriptedEndpoint().start()
        return self._endpoint

    def script(self, case: Case):
        from .scripted import SCRIPT_FILENAME, load_script
        path = case.dir / SCRIPT_FILENAME
        return load_script(path) if path.exists() else None

    def scripted_url(self, case: Case, arm: str, index: int):
        """cwd → the scripted endpoint's URL for this run (None without --scripted)."""
        if not self.options.scripted:
            return None
        script, endpoint = self.script(case), self.endpoint()
        return lambda cwd: endpoint.agent_url(script, arm=arm, run=index, cwd=str(cwd), prompt=case.prompt)

    def judge_for(self, case: Case, arm: str, index: int) -> Judge | None:
        if not any(g.kind.paid for g in case.graders):
            return None
        return self.make_judge(self.script(case) if self.options.scripted else None, arm, index)

    def make_judge(self, script, arm: str, index: int) -> Judge:
        """The judge for one run: the real API (shared client), or the scripted endpoint with one URL per
        grader, on which it counts that grader's votes."""
        if not self.options.scripted:
            if self._judge_client is None:
                self._judge_client = anthropic.Anthropic(max_retries=0, timeout=JUDGE_TIMEOUT)
            return Judge(self.judge_model, lambda grader: self._judge_client)
        endpoint, clients, lock = self.endpoint(), {}, threading.Lock()

        def client_for(grader: str):
            with lock:  # votes are cast from several threads
                if grader not in clients:
                    url = endpoint.judge_url(script, grader, arm=arm, run=index)
                    clients[grader] = anthropic.Anthropic(base_url=url, api_key="scripted", max_retries=0)
                return clients[grader]
        return Judge(self.judge_model, client_for)

    def mock_agent(self, case: Case, arm: str, index: int) -> dict | None:
        """Model settings for the case's agent mocks (the judge model; scripted: its own endpoint URL)."""
        if not any(r.kind == "agent" for server in case.mocks.servers.values() for r in server.responders.values()):
            return None
        model = self.judge_model
        rates = cost.price_table()["models"][cost.lookup(model).model]
        base_url = None
        if self.options.scripted:
            base_url = self.endpoint().judge_url(self.script(case), "mock", arm=arm, run=index)
        return {"model": model, "baseUrl": base_url, "prices": {"input": rates["input"], "output": rates["output"]}}

    def agent_runner(self):
        from .fixtures import AgentRunner
        return AgentRunner(self)

    def report_data(self, item) -> dict:
        case = item.case
        return {"run": item.result.to_data(), "case": case_header(case, self), "suite": suite_header(case, self),
                "notices": [*case.warnings, *self.case_notices(case)], "evalRoot": str(case.eval_root)}

    def case_notices(self, case: Case) -> list[str]:
        """What the operator should know about how this case runs (nothing about it is silent)."""
        options, notes = self.options, []
        if case.context.scaffold_script is not None:
            notes.append("Note: --scaffold runs each case's scaffold_script as you, outside the agent's sandbox"
                         if options.scaffold else
                         f'⚠ case "{case.name}": its scaffold_script is not run without --scaffold; the case runs '
                         f"against an unstaged workspace")
        granted = {permissions.tool_of(g) for g in options.allow_tools}
        for entry in case.allowed_tools:
            tool = permissions.tool_of(entry)
            if tool in permissions.NEVER:
                notes.append(f'⚠ case "{case.name}": allowed_tools asks for {entry}, which is never available in an '
                             f"evaluation")
            elif permissions.is_gated(entry) and tool not in granted and not any(
                    fnmatch.fnmatchcase(tool, g) for g in granted):
                notes.append(f'⚠ case "{case.name}": allowed_tools asks for {entry}, which only the operator can '
                             f"grant — the agent runs without it unless you pass --allow-tools {tool}")
        if case.disallowed_tools:
            notes.append(f"{case.name}: removed from Claude's tools by the case's disallowed_tools: "
                         f"{', '.join(case.disallowed_tools)}")
        if options.disallow_tools:
            notes.append(f"Removed from Claude's tools in every case (--disallow-tools): {', '.join(options.disallow_tools)}")
        if options.mocks == "off" and case.plugin_dirs:
            notes.append("⚠ --mocks off: the plugins' real MCP servers start, as you, outside the sandbox "
                         "(their tools still need --allow-tools)")
        if case.context.history_file is not None and self.ablation(case) == "with-without":
            notes.append(f'case "{case.name}" runs single-arm (no Δ): its history_file carries the plugin into both arms')
        return notes

    def close(self) -> None:
        if self._endpoint is not None:
            self._endpoint.stop()

    # ---- the controller ------------------------------------------------------------------------------

    def on_collect_report(self, report) -> None:
        data = getattr(report, "plugin_eval_load_error", None)
        if data is not None:
            self.record_load_error(data)
        elif report.failed:
            self.non_eval_failures += 1

    def on_test_report(self, report) -> None:
        data = getattr(report, "plugin_eval", None)
        skipped = getattr(report, "plugin_eval_skip", None)
        if data is not None and report.when == "call":
            self.record_run(data)
        elif skipped is not None:
            self.record_skip(skipped)
        elif report.failed and "plugin_eval" not in report.keywords:
            self.non_eval_failures += 1

    def on_interrupt(self, excinfo) -> None:
        self.interrupted = signal_name(excinfo.value)

    def summary(self, terminal) -> None:
        if self.is_worker or self.document is None:
            return
        from .report import write_summary
        write_summary(terminal, self.document, self.results_path, self.report_path)

    def html_summary(self, prefix: list) -> None:
        """pytest-html (--html): the suite verdict and the per-case table above the test list."""
        if self.document is not None:
            from .htmlreport import summary_html
            prefix.append(summary_html(self.document))

    def html_extras(self, item, report) -> None:
        """pytest-html: each run's graders and transcript in its row of the report."""
        if not getattr(self.config.option, "htmlpath", None) or item.result is None:
            return
        from pytest_html import extras
        from .htmlreport import run_html
        report.extras = [*getattr(report, "extras", []), extras.html(run_html(item.result.to_json(), item.case.prompt))]

    def header_lines(self) -> list[str]:
        if not self.active or self.is_worker:
            return []
        lines = []
        if self.options.scripted:
            lines.append("plugin-eval: model = the scripted endpoint (offline: answers come from each case's "
                         "scripted.yaml; no real model is asked)")
        return lines

    def record_run(self, data: dict) -> None:
        header = data["case"]
        key = header["dir"]
        if not self.collected.runs and data["run"].get("error_kind") == "auth":
            self.stop("the first run's credentials were rejected — every remaining run would fail the same way, "
                      "so the session stops here")
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
        dsession = self.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason
        elif self.pytest_session is not None:
            self.pytest_session.shouldstop = reason

    def record_load_error(self, data: dict) -> None:
        self.collected.load_errors.setdefault(data["dir"], data["entry"])
        self.collected.eval_root(data["evalRoot"])

    def finish(self, pytest_session) -> None:
        """Build the document, write it, and set the exit status (the controller, at session end)."""
        if self.is_worker or not (self.active or self.collected.load_errors):
            return
        collected = self.collected
        keys = sorted(collected.headers, key=lambda k: Path(k).parts)
        cases = [case_document(collected.headers[k], collected.runs[k]) for k in keys]
        if self.config.getoption("lf", False):
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
        base = dict(collected.suite) or self.empty_suite()
        suite = {"root": base["root"], "ablation": base["ablation"], **self.suite_options(), "plugins": base["plugins"]}
        self.document = suite_document(
            claude_version=self.claude_version(), started_at=self.started_at,
            duration=time.monotonic() - self.started, suite=suite, cases=cases,
            threshold=self.options.threshold, partial_reason=partial,
            load_errors=[collected.load_errors[k] for k in sorted(collected.load_errors)], notices=collected.notices,
            skipped=sorted(collected.skipped, key=lambda r: (Path(r["dir"]).parts, r["arm"] != "with", r["index"])))
        failed = (bool(collected.load_errors) or not cases or self.non_eval_failures > 0
                  or any(not scoring.passes_threshold(c, self.options.threshold) for c in cases)
                  or any(r.error_kind == "start" for r in runs))
        self.exit_status = scoring.exit_status(interrupted=self.interrupted, partial=partial is not None, failed=failed)
        self.write()
        rerun.remember(self.config, self.results_path)
        pytest_session.exitstatus = self.exit_status

    def with_previous_runs(self, cases: list[dict]) -> list[dict]:
        """--lf: complete this session's cases with the previous session's runs of unchanged cases."""
        found = rerun.previous_document(self.config)
        if found is None:
            return cases
        previous, path = found
        current = {}
        for case in previous.get("cases", []):
            folder = Path(previous["suite"]["root"]) / case["dir"]
            root = self.eval_root(folder)
            try:
                loaded = self.load(folder, root) if root is not None else None
            except CaseLoadError:
                loaded = None
            if loaded is not None:
                current[case["dir"]] = case_header(loaded, self)
        merged, reused = rerun.merge(self.collected.headers, self.collected.runs, previous, current)
        if reused:
            self.collected.notice(f"--lf: {reused} run(s) of unchanged cases reused from {display_path(Path(path))}")
        return merged

    def write(self) -> None:
        folder = self.results_folder()
        if folder is not None:
            self.results_path = folder / "aggregate-result.json"
            write_json(self.results_path, self.document)
        report = Path(self.options.report).absolute() if self.options.report else (
            folder / "report.html" if folder is not None else None)
        if report is not None:
            from .htmlreport import write_report
            write_report(self.document, report)
            self.report_path = report
        if self.options.json_path == "-":
            sys.stdout.write(json.dumps(self.document, indent=1, ensure_ascii=False) + "\n")
        elif self.options.json_path:
            write_json(Path(self.options.json_path).absolute(), self.document)

    def recording_notice(self) -> None:
        folder = self.results_folder()
        recordings = list((folder / "mock-recordings").glob("*/*.json")) if folder else []
        if recordings:
            self.collected.notice(f"{len(recordings)} agent-mock recording(s) under {display_path(folder / 'mock-recordings')}"
                                  f" — copy them to evals/mocks/.replay/<server>/ to replay them with no model call")

    def cost_notices(self, runs: list[RunResult]) -> None:
        cap = self.options.max_cost_usd
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
        """--output-dir, else <eval dir>/results/<timestamp>/ of the first case seen (None: nothing ran)."""
        if self.options.output_dir:
            return Path(self.options.output_dir).absolute()
        roots = self.collected.eval_roots
        return Path(roots[0]) / "results" / timestamp_dirname(self.started_at) if roots else None

    def claude_version(self) -> str:
        if self.stored is not None:  # regraded runs were made by the stored session's Claude Code
            return self.stored.document.get("claudeVersion", "unknown")
        try:
            return claude_version(self.claude)
        except ClaudeNotFound:
            return "unknown"

    def empty_suite(self) -> dict:
        root = self.eval_roots[0].parent if self.eval_roots else Path.cwd()
        return {"root": str(root), "ablation": self.options.ablation or "none", "plugins": []}

    def suite_options(self) -> dict:
        out: dict = {}
        if self.options.model:
            out["modelOverride"] = self.options.model
        if self.options.judge_model:
            out["judgeModel"] = self.options.judge_model
        out["judgeModelResolved"] = self.judge_model
        if self.options.case_globs:
            out["caseFilter"] = self.options.case_globs[-1] if len(self.options.case_globs) == 1 else list(self.options.case_globs)
        if self.options.tags:
            out["tagFilters"] = list(self.options.tags)
        if self.options.scripted:
            out["scripted"] = True
        if self.stored is not None:
            out["regradedFrom"] = str(self.stored.folder)
        out["threshold"] = self.options.threshold
        out["concurrency"] = self.options.concurrency or _workers(self.config)
        if self.options.runs:
            out["runsOverride"] = self.options.runs
        return out


def _workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    return n if isinstance(n, int) and n > 0 else 1


def _glob(name: str, pattern: str) -> bool:
    # Only * and ? are wildcards; [ ] are literal.
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))


def _load_or_raise(case_dir: Path, eval_root: Path) -> Case:
    from .case import load_case
    return load_case(case_dir, eval_root)


SKIP_WALK = frozenset({"node_modules", "__pycache__", "site-packages", "venv", ".venv", "results"})


def find_eval_roots(path: Path, eval_dir: str | None) -> list[Path]:
    """The eval dirs a collection argument reaches: the one it is inside, or those below it."""
    root = eval_root_of(path, eval_dir)
    if root is not None:
        return [root]
    if not path.is_dir():
        return []
    found = []
    for folder, subdirs, _ in os.walk(path):
        here = Path(folder)
        if here != path and eval_root_of(here, eval_dir) == here:
            found.append(here)
            subdirs[:] = []
            continue
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_WALK and not d.startswith("."))
    return found


def case_header(case: Case, session: EvalSession) -> dict:
    out = {"name": case.name, "dir": case.rel_dir, "source": case.source, "promptMarkdown": case.prompt,
           "runsPerCase": case.runs_per_arm, "timeoutSeconds": case.timeout_seconds, "maxTurns": case.max_turns}
    if case.model is not None:
        out["model"] = case.model
    out["graders"] = [grader_header(g) for g in case.graders]
    out["runsPerArm"] = session.runs_for(case)
    model = session.options.model or case.model
    if model:
        out["effectiveModel"] = model
    if case.tags:
        out["tags"] = list(case.tags)
    if case.description is not None:
        out["description"] = case.description
    if case.expected_outcome is not None:
        out["expectedOutcome"] = case.expected_outcome
    if not session.two_arm(case) and session.ablation(case) == "with-without":
        out["singleArmReason"] = ("a resumed history_file carries the plugin into both arms"
                                  if case.context.history_file else "no plugin to strip")
    return out


def grader_header(spec) -> dict:
    out = {"name": spec.name, "type": spec.type, "weight": spec.weight}
    if spec.body is not None:
        out["graderMarkdown"] = spec.body
    out["config"] = spec.config_json()
    return out


def suite_header(case: Case, session: EvalSession) -> dict:
    plugins = [plugin_at(p).to_json() for p in case.plugin_dirs]
    return {"root": str(case.plugin_root or case.eval_root.parent), "ablation": session.ablation(case),
            "plugins": plugins}


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
