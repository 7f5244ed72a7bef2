"""The one object that owns an eval session's state, hung on the pytest config.

On every process it finds and loads cases and runs items (workspace, endpoint, judge, mocks, cost ledger). On
the controller, the Controller (controller.py) gathers what the reports carry and writes the results. Nothing is
shared between processes except what travels on the reports (wire.py), so results are the same with and
without `-n`.
"""

from __future__ import annotations

import fnmatch
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ..core.clock import now_iso
from ..core.kinds import Ablation, Arm
from ..core.problems import Problem
from ..core.tools import NEVER, is_gated, leaves_workspace, misspelling_of, tool_of
from ..grade.base import GraderType
from ..grade.judge import Judge, resolve_judge_model
from ..grade.types import grader_types
from ..load.case import CASE_FILE, PROMPT_FILE, Case, CaseLoadError, load_case
from ..load.graders import BUILTIN_ORDER, GraderSpec
from ..load.script import SCRIPT_FILENAME
from ..load.suite import (
    NOT_CASE_DIRS,
    RESERVED_DIR,
    enclosing_plugin,
    eval_dir_name,
    eval_root_of,
    plugin_at,
    resolve_plugin,
)
from ..load.triggers import TriggerSet, is_trigger_file, load_trigger_file
from ..results.ledger import CostLedger
from ..results.model import CaseResult, GraderInfo, PluginInfo, RunResult, SkippedRun, SuiteInfo
from ..results.regrade import StoredResults, regrade_run
from ..results.store import ResultsFolder
from ..results.trigger_runs import trigger_run_of
from ..run.agent import ClaudeNotFound, find_claude
from ..run.execute import RunPlan, RunSettings
from .execute import Evaluation, evaluate, harness_result
from .options import WORKER_INPUT_KEY, EvalOptions, collection_paths, eval_options_given, parse_options
from .pool import Outcome, RunPool
from .prestart import Prestarts, RunKey, SpareCores, cpu_count
from .rounds import RoundBoard
from .scratch import Scratch
from .trust import TrustRefused, confirm_trust

SESSION_KEY = pytest.StashKey["EvalSession"]()
NO_SCRIPT = (
    "does not exist: --scripted answers every model call of this case from its scripted.yaml — add one "
    "(`plugin-eval init --bare NAME` writes an example to copy), or run without --scripted"
)
JUDGE_TIMEOUT = 120


def get_session(config) -> EvalSession:
    return config.stash[SESSION_KEY]


def session_for(config) -> EvalSession:
    """The eval session of this pytest run; a plain test using the eval_agent fixture gets one of its own."""
    if SESSION_KEY not in config.stash:
        session = EvalSession(config, parse_options(config.option))
        session.configure([])
        config.stash[SESSION_KEY] = session
        config.add_cleanup(session.close)
    return config.stash[SESSION_KEY]


def workers(config) -> int:
    """How many processes run items (pytest-xdist's -n; 1 without it)."""
    n = getattr(config.option, "numprocesses", None)
    return n if isinstance(n, int) and n > 0 else 1


SPARE_CORE = 0.2  # idle cores lately below which no run is started ahead (measured on 2 cores, a look per run:
# one run at a time with one started ahead leaves 0.1–0.8 idle, 0.45 on average; -j 4 or -n 2 with a fast model
# 0–0.15; with a model taking a second per answer, -j 4 leaves more than one core idle)


def worker_count(workerinput: dict) -> int:
    """How many pytest-xdist workers there are, seen from one of them."""
    count = workerinput.get("workercount")
    return count if isinstance(count, int) and count > 0 else 1


class EvalSession:
    def __init__(self, config, options: EvalOptions):
        self.config = config
        self.options = options
        worker = getattr(config, "workerinput", None)
        shared = worker.get(WORKER_INPUT_KEY, {}) if worker else {}
        self.is_worker = worker is not None
        self.started_at: str = shared.get("started_at") or now_iso()
        self.started = time.monotonic()
        self._shared = shared
        self._scratch: Scratch | None = None
        self._scratch_lock = threading.RLock()  # the round board is made under it, and makes the scratch
        self._rounds: RoundBoard | None = None
        self._earlier: dict[str, set[tuple[str, int]]] | None = None  # --runs auto: case → its selected runs
        self._cases: dict[Path, Case] = {}
        self._trigger_sets: dict[Path, list[TriggerSet]] = {}
        self._kinds: dict[str, GraderType] | None = None
        self._endpoint: Any = None
        self._judge_client: Any = None
        self._claude: Path | None = None
        self.eval_roots: list[Path] = []
        self.pytest_session: Any = None
        self.ledger: CostLedger | None = None
        self.stored = StoredResults(Path(options.regrade)) if options.regrade else None
        self.shard_share: tuple[int, int, int, int] | None = None  # --shard: (cases, of cases, runs, of runs)
        self.rerun_status: str | None = None  # --lf: what was chosen again, for pytest's "run-last-failure" line
        # -j N: N runs at once in this process (under pytest-xdist each worker runs its items one by one).
        in_process = 0 if self.is_worker or workers(config) > 1 else (options.concurrency or 1)
        self.pool = RunPool(in_process, self.execute)
        self.prestarts = Prestarts()
        # The next run's agent starts while runs work, on a core that would otherwise idle. Where idle cores cannot
        # be measured, only while fewer runs go at once than there are cores (each worker of -n runs one at a time).
        at_once = worker_count(worker) if worker else max(in_process, 1)
        self.spare_cores = SpareCores(fallback=1.0 if at_once < cpu_count() else 0.0)

    # ---- start-up ------------------------------------------------------------------------------------

    def configure(self, eval_roots: list[Path]) -> None:
        """The eval dirs this session collects from; a broken case must not stop the others."""
        self.eval_roots = list(eval_roots)
        if self.active:
            self.config.option.continue_on_collection_errors = True
        self.ledger = self.make_ledger(self._shared)

    def results_folder(self, eval_root: Path | None) -> ResultsFolder | None:
        """--output-dir, else <eval dir>/results/<session timestamp>/ (None without an eval dir). A session over
        several eval dirs keeps their results apart: --output-dir gets a folder per suite."""
        if self.options.output_dir:
            folder = Path(self.options.output_dir).absolute()
            if eval_root is not None and len(self.eval_roots) > 1:
                folder = folder / self.suite_label(eval_root)
            return ResultsFolder(folder)
        return ResultsFolder.for_session(eval_root, self.started_at) if eval_root is not None else None

    def suite_label(self, eval_root: Path) -> str:
        """The name a suite goes by in JUnit, the terminal and --output-dir: its plugin's name (else its folder's),
        numbered when two suites of the session share it."""

        def name_of(root: Path) -> str:
            plugin = resolve_plugin(root, root)
            return plugin_at(plugin).name if plugin is not None else root.parent.name

        name = name_of(eval_root)
        same = [root for root in self.eval_roots if name_of(root) == name]
        return f"{name}-{same.index(eval_root) + 1}" if len(same) > 1 and eval_root in same else name

    @property
    def active(self) -> bool:
        """An eval session: it collects from an eval dir, or eval options were given."""
        return bool(self.eval_roots) or eval_options_given(self.config.option)

    def start(self, pytest_session) -> None:
        """Before anything runs (controller): a missing eval dir means no cases (exit 1, not a usage error);
        running a suite runs the plugin's code, so it must be trusted."""
        self.pytest_session = pytest_session
        if self.is_worker:
            return
        if self.eval_roots and self.stored is None:
            try:
                self.claude  # noqa: B018  (a missing binary is an error before any run, not in every run)
            except ClaudeNotFound as e:
                pytest.exit(str(e), returncode=1)
        for path in collection_paths(self.config):
            if not path.exists() and path.name == eval_dir_name(enclosing_plugin(path.parent), self.options.eval_dir):
                pytest.exit(f"No eval cases found under {path.parent}: there is no {path.name}/ folder.", returncode=1)
        if self.eval_roots and not self.options.trust_plugin:
            try:
                confirm_trust([root.parent for root in self.eval_roots])
            except TrustRefused as e:
                pytest.exit(str(e), returncode=1)

    # ---- shared with workers -------------------------------------------------------------------------

    @property
    def scratch(self) -> Scratch:
        """The session's scratch folder (workspaces, the ledger), made when first needed: a worker on this host
        uses its controller's (the controller removes it at the end), a worker elsewhere makes its own."""
        with self._scratch_lock:
            if self._scratch is None:
                shared = self._shared
                if shared.get("scratch") and shared.get("host") == socket.gethostname():
                    self._scratch = Scratch(Path(shared["scratch"]), shared["tag"], owner=False)
                else:
                    self._scratch = Scratch.create()
            return self._scratch

    @property
    def rounds(self) -> RoundBoard:
        """--runs auto: the runs finished so far, shared with the workers on this host."""
        plan = self.options.auto_runs
        assert plan is not None
        with self._scratch_lock:
            if self._rounds is None:
                self._rounds = RoundBoard(self.scratch.path / "rounds.sqlite", plan)
            return self._rounds

    def worker_input(self) -> dict:
        return {
            "scratch": str(self.scratch.path),
            "tag": self.scratch.tag,
            "started_at": self.started_at,
            "ledger": str(self.ledger.path) if self.ledger else None,
            "host": socket.gethostname(),
            "workers": workers(self.config),
        }

    def make_ledger(self, shared: dict) -> CostLedger | None:
        """The --max-cost-usd ledger: a SQLite file shared by the processes of this host. A worker on another
        host keeps its own ledger with an equal share of the cap, which keeps the cap a hard bound."""
        cap = self.options.max_cost_usd
        if cap is None:
            return None
        if self.is_worker and shared.get("ledger") and shared.get("host") == socket.gethostname():
            return CostLedger(Path(shared["ledger"]), cap)
        if self.is_worker and shared.get("ledger"):
            return CostLedger(self.scratch.ledger, cap / max(1, shared.get("workers", 1)))
        return CostLedger(self.scratch.ledger, cap)  # this session's own: a fresh ceiling every session

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
            case = load_case(case_dir, eval_root, self.grader_types())
            if self.options.scripted and case.script is None and self.stored is None:
                # Said plainly, rather than running on an empty script and blaming the skill's description.
                raise CaseLoadError(
                    case_dir, [Problem(case_dir / SCRIPT_FILENAME, "", NO_SCRIPT)], case.name, case.tags
                )
            self._cases[case_dir] = case
        return self._cases[case_dir]

    def load_triggers(self, path: Path, eval_root: Path) -> list[TriggerSet]:
        """The trigger sets of a trigger file (load/triggers.py). Raises TriggerLoadError."""
        if path not in self._trigger_sets:
            self._trigger_sets[path] = load_trigger_file(path, eval_root, self.options.trigger_skill)
        return self._trigger_sets[path]

    def trigger_runs(self, trigger_set: TriggerSet) -> int:
        """Runs per query to collect: --runs, else the set's; with --runs auto, the most a query may take."""
        if self.options.auto_runs is not None:
            return self.options.auto_runs.most
        return self.options.runs or trigger_set.runs

    def trigger_file_root(self, path: Path) -> Path | None:
        """The eval dir of `path` when it is a trigger file (ours, or skill-creator's)."""
        if not is_trigger_file(path) or (path.parent / CASE_FILE).exists() or (path.parent / PROMPT_FILE).exists():
            return None
        return self.eval_root(path.parent)

    def grader_types(self) -> dict[str, GraderType]:
        """The built-in grader types and those from pytest_plugin_eval_grader_types hooks (plugins, conftest.py
        files loaded before the first case)."""
        if self._kinds is None:
            kinds = grader_types()
            for added in self.config.hook.pytest_plugin_eval_grader_types(config=self.config):
                for kind in added or ():
                    if kind.name in BUILTIN_ORDER and type(kinds.get(kind.name)) is not type(kind):
                        raise pytest.UsageError(
                            f"grader type {kind.name!r} from a pytest_plugin_eval_grader_types "
                            f"hook clashes with the built-in type of that name; rename it"
                        )
                    kinds[kind.name] = kind
            self._kinds = kinds
        return self._kinds

    def ablation(self, case: Case) -> Ablation:
        return self.ablation_for(bool(case.plugin_dirs))

    def ablation_for(self, has_plugin: bool) -> Ablation:
        """--ablation, else with-without when there is a plugin to strip, else none."""
        return self.options.ablation or ("with-without" if has_plugin else "none")

    def two_arm(self, case: Case) -> bool:
        # A resumed history carries the plugin into both arms, so such a case runs single-arm.
        return self.ablation(case) == "with-without" and bool(case.plugin_dirs) and case.context.history_file is None

    def arms_for(self, case: Case) -> tuple[str, ...]:
        return ("with", "without") if self.two_arm(case) else ("with",)

    def runs_for(self, case: Case) -> int:
        """Runs per arm to collect: --runs, else the case's; with --runs auto, the most it may take."""
        if self.options.auto_runs is not None:
            return self.options.auto_runs.most
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

    # ---- running -------------------------------------------------------------------------------------

    def execute(self, item, upcoming=None) -> Outcome:
        """One item's run, unless the cost ceiling keeps it from starting or (--runs auto) its case needs no more
        runs. Called from the pool's threads. `upcoming`: the item whose run starts next, started ahead."""
        case, ledger = item.case, self.ledger
        if self.options.auto_runs is not None:
            reason = self.rounds.need(
                case_key(case),
                item.index,
                self.earlier_runs(item),
                self.two_arm(case),
                self.pool.stopping,
                trigger=(case.trigger.threshold, case.runs_per_arm) if case.trigger is not None else None,
            )
            if reason is not None:
                self.prestarts.discard(run_key(case, item.arm, item.index))
                return Outcome(unneeded=reason)
        outcome = Outcome()
        try:
            if ledger is not None and not ledger.may_start():
                why = (
                    f"cost ceiling ${self.options.max_cost_usd:g} reached (${ledger.spent():.4f} spent): "
                    f"run not started"
                )
                skipped = SkippedRun(case.name, case.rel_dir, item.arm, item.index, "cost_ceiling")
                outcome = Outcome(skipped=skipped, why_skipped=why)
                self.prestarts.discard(run_key(case, item.arm, item.index))
            else:
                outcome = Outcome(result=self.run_case(case, item.arm, item.index, upcoming))
        except Exception as e:  # a fault before the run's own guard (planning it, its judge, its folder)
            outcome = Outcome(result=harness_result(item.arm, item.index, e))
        finally:
            if self.options.auto_runs is not None:  # whatever came of it: the case's later runs may decide
                self.rounds.record(case_key(case), item.arm, item.index, auto_score(case, outcome.result))
        return outcome

    def earlier_runs(self, item) -> set[tuple[str, int]]:
        """The selected runs of `item`'s case in earlier rounds: what its need is decided on."""
        with self._scratch_lock:
            if self._earlier is None:
                self._earlier = {}
                for other in getattr(self.pytest_session, "items", None) or ():
                    if hasattr(other, "case") and hasattr(other, "arm"):
                        self._earlier.setdefault(case_key(other.case), set()).add((other.arm, other.index))
        return {(arm, i) for arm, i in self._earlier.get(case_key(item.case), set()) if i < item.index}

    def run_case(self, case: Case, arm: Arm, index: int, upcoming=None) -> RunResult:
        """One run of `case` in `arm` (or, with --regrade, its stored run graded again). `upcoming`: the item
        whose run comes next, whose agent this run starts ahead."""
        folder = self.results_folder(case.eval_root)
        assert folder is not None
        artefacts = folder.run_folder(os.path.relpath(case.dir, case.eval_root), arm, index)
        script = case.script if self.options.scripted else None
        judge = self.judge_for(case, script, arm, index)
        if self.stored is not None:
            stored = self.stored.runs[(case.rel_dir, arm, index)]
            return regrade_run(case, stored, self.two_arm(case), judge, artefacts, stop=self.pool.stopping)
        plan = self.run_plan(case, arm, index)
        how = Evaluation(
            two_arm=self.two_arm(case),
            artefacts=artefacts,
            judge=judge,
            ledger=self.ledger,
            attempts=1 + self.options.api_retries,
            workspace_base=self.workspace_base,
        )
        ready = self.prestarts.take(run_key(case, arm, index))  # from here on, evaluate owns it
        self.start_ahead(upcoming)
        return evaluate(plan, how, ready)

    @property
    def workspace_base(self) -> Path | None:
        """Where runs' workspaces are made: the session's scratch folder (--keep-temp: outside it, where the
        scratch folder's removal at the end leaves them)."""
        return None if self.options.keep_temp else self.scratch.workspaces

    def start_ahead(self, item) -> None:
        """Start `item`'s agent now, so that its run finds it ready (session/prestart.py): a run of a case, not a
        stored run graded again, under --runs auto one of the first runs every case makes, and only while the
        machine has a core to spare."""
        if self.stored is not None or not isinstance(getattr(item, "case", None), Case):
            return
        if self.spare_cores() < SPARE_CORE:
            return
        auto = self.options.auto_runs
        if auto is not None and item.index > auto.first:
            return
        case, arm, index = item.case, item.arm, item.index
        self.prestarts.start(run_key(case, arm, index), lambda: (self.run_plan(case, arm, index), self.workspace_base))

    def run_plan(self, case: Case, arm: Arm, index: int) -> RunPlan:
        folder = self.results_folder(case.eval_root)
        assert folder is not None
        script = case.script if self.options.scripted else None
        return RunPlan(
            case=case,
            arm=arm,
            index=index,
            settings=self.run_settings(),
            claude=self.claude,
            base_url=self.scripted_url(script, case.prompt, arm, index),
            mock_agent=self.mock_agent(case, script, arm, index),
            record_dir=folder.recordings,
            stop=self.pool.stopping,
            tag=self.scratch.tag,
            # the results written elsewhere than the eval dir (whose results/ is hidden with the suite)
            hidden=(Path(self.options.output_dir).absolute(),) if self.options.output_dir else (),
        )

    def run_settings(self) -> RunSettings:
        o = self.options
        return RunSettings(
            model=o.model,
            allow_tools=o.allow_tools,
            disallow_tools=o.disallow_tools,
            scaffold=o.scaffold,
            mocks=o.mocks,
            allow_real_servers=o.allow_real_servers,
            keep_temp=o.keep_temp,
        )

    @property
    def judge_model(self) -> str:
        return resolve_judge_model(self.options.judge_model)

    def endpoint(self):
        """The scripted endpoint of this process (--scripted), started on first use."""
        if self._endpoint is None:
            from ..doubles.scripted import ScriptedEndpoint  # an HTTP server: only for --scripted sessions

            self._endpoint = ScriptedEndpoint().start()
        return self._endpoint

    def scripted_url(self, script, prompt: str, arm: str, index: int):
        """cwd → the scripted endpoint's URL for one run answered from `script` (None without --scripted)."""
        if not self.options.scripted:
            return None
        endpoint = self.endpoint()
        return lambda cwd: endpoint.agent_url(script, arm=arm, run=index, cwd=str(cwd), prompt=prompt)

    def judge_for(self, case: Case, script, arm: str, index: int) -> Judge | None:
        if not any(g.kind.paid for g in case.graders):
            return None
        return self.make_judge(script, arm, index)

    def make_judge(self, script, arm: str, index: int) -> Judge:
        """The judge for one run: the real API (shared client), or the scripted endpoint with one URL per
        grader, on which it counts that grader's votes."""
        import anthropic  # the judge's HTTP client: loaded when a judge is first needed

        if not self.options.scripted:
            if self._judge_client is None:
                self._judge_client = anthropic.Anthropic(max_retries=0, timeout=JUDGE_TIMEOUT)
            client = self._judge_client
            return Judge(self.judge_model, lambda grader: client)
        endpoint, clients, lock = self.endpoint(), {}, threading.Lock()

        def client_for(grader: str):
            with lock:  # votes are cast from several threads
                if grader not in clients:
                    url = endpoint.judge_url(script, grader, arm=arm, run=index)
                    clients[grader] = anthropic.Anthropic(base_url=url, api_key="scripted", max_retries=0)
                return clients[grader]

        return Judge(self.judge_model, client_for)

    def mock_agent(self, case: Case, script, arm: str, index: int) -> dict | None:
        """Model settings for the case's agent mocks (the judge model; scripted: its own endpoint URL)."""
        if not any(r.kind == "agent" for server in case.mocks.servers.values() for r in server.responders.values()):
            return None
        base_url = None
        if self.options.scripted:
            base_url = self.endpoint().judge_url(script, "mock", arm=arm, run=index)
        # Just the model: the stand-in prices its calls from the same price table.
        return {"model": self.judge_model, "baseUrl": base_url}

    # ---- what the reports carry ------------------------------------------------------------------------

    def case_result(self, case: Case) -> CaseResult:
        """The case as the results document describes it, before any run."""
        single_arm = None
        if not self.two_arm(case) and self.ablation(case) == "with-without":
            single_arm = (
                "a resumed history_file carries the plugin into both arms"
                if case.context.history_file
                else "no plugin to strip"
            )
        return CaseResult(
            name=case.name,
            dir=case.rel_dir,
            source=case.source,
            prompt=case.prompt,
            runs_per_case=case.runs_per_arm,
            timeout_seconds=case.timeout_seconds,
            max_turns=case.max_turns,
            model=case.model,
            graders=[grader_info(g) for g in case.graders],
            runs_per_arm=self.runs_for(case),
            effective_model=self.options.model or case.model,
            tags=case.tags,
            description=case.description,
            expected_outcome=case.expected_outcome,
            single_arm_reason=single_arm,
            warnings=self.case_warnings(case),
        )

    def case_warnings(self, case: Case) -> list[str]:
        """What keeps a case from passing as written (see grant_warnings). Said first wherever the case shows up
        failing."""
        if self.stored is not None:
            return []  # regrading stored runs: what they did is done, whatever this session grants
        return grant_warnings(case, self.options)

    def suite_info(self, case: Case) -> SuiteInfo:
        """The suite a case belongs to (root, ablation, plugins); the controller adds the session's options."""
        plugins = [plugin_info(p) for p in case.plugin_dirs]
        return SuiteInfo(
            root=str(case.plugin_root or case.eval_root.parent), ablation=self.ablation(case), plugins=plugins
        )

    def case_notices(self, case: Case) -> list[str]:
        """What the operator should know about how this case runs (nothing about it is silent)."""
        options, notes = self.options, list(case.warnings)
        if self.stored is not None:
            return notes  # regrading: nothing runs, so how it would run (tools, scaffold, servers) does not matter
        if case.context.scaffold_script is not None:
            notes.append(
                "Note: --scaffold runs each case's scaffold_script as you, outside the agent's sandbox"
                if options.scaffold
                else f'⚠ case "{case.name}": its scaffold_script is not run without --scaffold; the case runs '
                f"against an unstaged workspace"
            )
        granted = {tool_of(g) for g in options.allow_tools}
        for entry in case.allowed_tools:
            tool = tool_of(entry)
            if meant := misspelling_of(entry):
                notes.append(
                    f'⚠ case "{case.name}": allowed_tools entry {entry} is no tool of Claude Code\'s — did you mean '
                    f"{meant}?"
                )
            elif tool in NEVER:
                notes.append(
                    f'⚠ case "{case.name}": allowed_tools asks for {entry}, which is never available in an evaluation'
                )
            elif leaves_workspace(entry):
                notes.append(
                    f'⚠ case "{case.name}": allowed_tools entry {entry} reaches outside the run\'s workspace and is '
                    f"left out — grant {tool} (scoped to the run's folders and the plugin) or a pattern relative to "
                    f"the working directory, such as {tool}(src/**)"
                )
            elif is_gated(entry) and tool not in granted and not any(fnmatch.fnmatchcase(tool, g) for g in granted):
                notes.append(
                    f'⚠ case "{case.name}": allowed_tools asks for {entry}, which only the operator can '
                    f"grant — the agent runs without it unless you pass --allow-tools {tool}"
                )
        if case.disallowed_tools:
            notes.append(
                f"{case.name}: removed from Claude's tools by the case's disallowed_tools: "
                f"{', '.join(case.disallowed_tools)}"
            )
        if options.disallow_tools:
            notes.append(
                f"Removed from Claude's tools in every case (--disallow-tools): {', '.join(options.disallow_tools)}"
            )
        if options.mocks == "off" and case.plugin_dirs:
            notes.append(
                "⚠ --mocks off: the plugins' real MCP servers start, as you, outside the sandbox "
                "(their tools still need --allow-tools)"
            )
        if case.context.history_file is not None and self.ablation(case) == "with-without":
            notes.append(
                f'case "{case.name}" runs single-arm (no Δ): its history_file carries the plugin into both arms'
            )
        return notes

    def header_lines(self) -> list[str]:
        if not self.active or self.is_worker:
            return []
        lines = []
        for root in self.eval_roots:
            plugin = resolve_plugin(root, root)
            ablation = self.ablation_for(plugin is not None)
            info = plugin_at(plugin) if plugin else None
            under_test = f"{info.name}{' ' + info.version if info.version else ''} ({plugin})" if info else "no plugin"
            lines.append(
                f"plugin-eval: {under_test} · cases in {root} · ablation {ablation} · judge {self.judge_model}"
            )
        if self.options.scripted:
            lines.append(
                "plugin-eval: model = the scripted endpoint (offline: answers come from each case's "
                "scripted.yaml; no real model is asked)"
            )
        return lines

    def stop_runs(self) -> list:
        """Stop the runs in flight and those started ahead; returns the items whose runs were in flight, with
        what they came to (RunPool.stop)."""
        ended = self.pool.stop()
        self.prestarts.close()
        return ended

    def close(self) -> None:
        self.stop_runs()
        if self._endpoint is not None:
            self._endpoint.stop()
        if self._scratch is not None:
            self._scratch.close()


def auto_score(case: Case, result: RunResult | None) -> float | None:
    """What --runs auto decides a case's next runs on: a run's score; a trigger run's 1 fired, 0 not."""
    if result is None:
        return None
    if case.trigger is None:
        return result.score
    fired = trigger_run_of(result, case.trigger).fired
    return None if fired is None else float(fired)


def case_key(case: Case) -> str:
    return str(case.dir.resolve())


def run_key(case: Case, arm: str, index: int) -> RunKey:
    return (case_key(case), arm, index)


def _glob(name: str, pattern: str) -> bool:
    # Only * and ? are wildcards; [ ] are literal.
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))


def grader_info(spec: GraderSpec) -> GraderInfo:
    return GraderInfo(name=spec.name, type=spec.type, weight=spec.weight, config=spec.config_json(), markdown=spec.body)


def plugin_info(folder: Path) -> PluginInfo:
    plugin = plugin_at(folder)
    return PluginInfo(name=plugin.name, path=str(plugin.path), version=plugin.version)


def grant_warnings(case: Case, options: EvalOptions) -> list[str]:
    """What keeps a case from passing as written with these options: a grader that needs a tool the run is not
    given, or files only a tool that writes, or the scaffold, can make. (`plugin-eval check` asks with no options.)"""
    out: list[str] = []
    granted = {tool_of(g) for g in options.allow_tools} | {tool_of(t) for t in case.allowed_tools if not is_gated(t)}
    removed = set(case.disallowed_tools) | set(options.disallow_tools)
    writers = {"Write", "Edit", "NotebookEdit", "Bash", "PowerShell"} & (granted - removed)
    for spec in case.graders:
        for tool in spec.kind.required_tools(spec.config):
            if tool in removed:
                out.append(f'grader "{spec.name}" needs the {tool} tool, which this case removes (disallowed_tools)')
            elif is_gated(tool) and tool not in granted:
                out.append(
                    f'grader "{spec.name}" needs the {tool} tool, which only you can grant: pass --allow-tools {tool}'
                )
        if spec.kind.reads_created_files(spec.config) and not writers:
            out.append(
                f'grader "{spec.name}" checks files the agent writes, but no tool that writes files is '
                f"granted: pass --allow-tools Write (or Edit, Bash)"
            )
    if case.context.scaffold_script is not None and not options.scaffold:
        out.append("the case's scaffold_script is not run without --scaffold: the runs start from an empty workspace")
    return list(dict.fromkeys(out))
