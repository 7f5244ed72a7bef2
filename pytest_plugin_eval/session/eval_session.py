"""The one object that owns an eval session's state, hung on the pytest config.

On every process it finds and loads cases and runs items (workspace, endpoint, judge, mocks, cost ledger). It is
the pytest side of the engine (engine/): what a case becomes under the options is engine/rules.py, what the
results document says of it engine/describe.py, what the operator is told engine/notices.py, the resources runs
share engine/resources.py, where their model calls go engine/endpoints.py. On the controller, the Controller
(controller.py) gathers what the reports carry and writes the results. Nothing is shared between processes except
what travels on the reports (engine/wire.py), so results are the same with and without `-n`.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ..analysis.regrade import StoredResults, regrade_run
from ..core.clock import now_iso
from ..core.problems import Problem
from ..core.run_id import RunId
from ..engine import describe, notices, rules
from ..engine.endpoints import ModelCalls
from ..engine.evaluate import Evaluation, evaluate, harness_result
from ..engine.ledger import CostLedger
from ..engine.option_parse import collection_paths, eval_options_given, parse_options
from ..engine.options import WORKER_INPUT_KEY, EvalOptions
from ..engine.pool import Outcome, RunPool, workers
from ..engine.prestart import Prestarts, SpareCores, cpu_count, session_cpu_times
from ..engine.resources import Lazy, Resources
from ..engine.reuse import BaselineReuse
from ..engine.rounds import RoundBoard, auto_score
from ..engine.scratch import Scratch
from ..engine.trust import TrustRefused, confirm_trust
from ..engine.versions import PluginVersions, VersionError
from ..grade.base import GraderType
from ..grade.types import grader_types
from ..load.case import CASE_FILE, PROMPT_FILE, Case, CaseLoadError, load_case
from ..load.graders import BUILTIN_ORDER
from ..load.script import SCRIPT_FILENAME
from ..load.suite import enclosing_plugin, eval_dir_name, eval_root_of
from ..load.trigger_files import in_eval_dir_walk, is_trigger_file, skipped_folder
from ..load.triggers import TriggerSet, load_trigger_file
from ..results.matrix import case_models, model_dirname, restriction_notice
from ..results.model import CaseResult, RunResult, SkippedRun, SuiteInfo
from ..results.store import ResultsFolder
from ..run.agent import ClaudeNotFound
from ..run.execute import RunPlan, RunSettings

SESSION_KEY = pytest.StashKey["EvalSession"]()
NO_SCRIPT = (
    "does not exist: --scripted answers every model call of this case from its scripted.yaml — add one "
    "(`plugin-eval init --bare NAME` writes an example to copy), or run without --scripted"
)


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


SPARE_CORE = 0.2  # cores the session's own processes left idle lately, below which no run is started ahead
# (measured on 2 cores, a look per run: one run at a time with one started ahead leaves 0.1–0.8 idle, 0.45 on
# average; -j 4 or -n 2 with a fast model 0–0.15; with a model taking a second per answer, -j 4 leaves more than
# one core idle)


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
        self.resources = Resources(options, shared, self.is_worker)
        self.models = ModelCalls(options, self.resources)
        self._earlier = Lazy(self._runs_by_case)  # --runs auto: case → its selected runs
        self._cases: dict[Path, Case] = {}
        self._trigger_sets: dict[Path, list[TriggerSet]] = {}
        self._kinds: dict[str, GraderType] | None = None
        self.eval_roots: list[Path] = []
        self.pytest_session: Any = None
        self.stored = StoredResults(Path(options.regrade)) if options.regrade else None
        self.shard_share: tuple[int, int, int, int] | None = None  # --shard: (cases, of cases, runs, of runs)
        self.rerun_status: str | None = None  # --lf: what was chosen again, for pytest's "run-last-failure" line
        # -j N: N runs at once in this process (under pytest-xdist each worker runs its items one by one).
        in_process = 0 if self.is_worker or workers(config) > 1 else (options.concurrency or 1)
        self.pool = RunPool(in_process, lambda item, upcoming: item.execute(upcoming))  # collect.PooledItem
        self.prestarts = Prestarts()
        self.versions = PluginVersions(options.against, lambda: self.scratch.path)  # --against, --ablate
        self.baseline = BaselineReuse(self)  # --reuse-baseline; and the conditions every fresh run records
        # The next run's agent starts while runs work, on a core that would otherwise idle. Where idle cores cannot
        # be measured, only while fewer runs go at once than there are cores (each worker of -n runs one at a time).
        at_once = worker_count(worker) if worker else max(in_process, 1)
        own = os.getppid() if worker else os.getpid()  # under pytest-xdist: the controller and all its workers
        self.spare_cores = SpareCores(fallback=1.0 if at_once < cpu_count() else 0.0, read=session_cpu_times(own))

    # ---- start-up ------------------------------------------------------------------------------------

    def configure(self, eval_roots: list[Path]) -> None:
        """The eval dirs this session collects from; a broken case must not stop the others."""
        self.eval_roots = list(eval_roots)
        if self.active:
            self.config.option.continue_on_collection_errors = True
        self.resources.ledger.get()  # made now, before any run: a fresh ceiling every session

    def results_folder(self, eval_root: Path | None, model: str | None = None) -> ResultsFolder | None:
        """--output-dir, else <eval dir>/results/<session timestamp>/ (None without an eval dir). A session over
        several eval dirs keeps their results apart: --output-dir gets a folder per suite. In a model matrix each
        model's results are a folder of their own inside it (matrix.py)."""
        folder = self.session_folder(eval_root)
        if folder is None or model is None or not self.options.matrix:
            return folder
        return ResultsFolder(folder.path / model_dirname(model))

    def session_folder(self, eval_root: Path | None) -> ResultsFolder | None:
        """The folder this session writes an eval dir's results in (a matrix: its matrix.json and a folder per
        model)."""
        if self.options.output_dir:
            folder = Path(self.options.output_dir).absolute()
            if eval_root is not None and len(self.eval_roots) > 1:
                folder = folder / self.suite_label(eval_root)
            return ResultsFolder(folder)
        return ResultsFolder.for_session(eval_root, self.started_at) if eval_root is not None else None

    def suite_label(self, eval_root: Path, model: str | None = None) -> str:
        """The suite's name in JUnit and the terminal; in a model matrix with its model: `commit-craft[haiku]`."""
        label = describe.suite_label(eval_root, self.eval_roots)
        return f"{label}[{model}]" if model is not None and self.options.matrix else label

    @property
    def matrix_models(self) -> tuple[str | None, ...]:
        """The models every case runs on: a matrix's, else one (None: the case's own, else the default)."""
        return self.options.models or (None,)

    @property
    def active(self) -> bool:
        """An eval session: it collects from an eval dir, or eval options were given."""
        return bool(self.eval_roots) or eval_options_given(self.config.option)

    @property
    def regrading(self) -> bool:
        """--regrade: the runs are stored ones, graded again; nothing runs."""
        return self.stored is not None

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
        if self.eval_roots and self.stored is None and (self.options.against or self.options.ablate):
            try:  # what --against and --ablate name, before anything runs
                for root in self.eval_roots:
                    self.versions.check(enclosing_plugin(root) or root.parent, self.options.ablate)
            except VersionError as e:
                pytest.exit(str(e), returncode=1)

    def collection_lines(self, items) -> list[str]:
        """What is said once the runs are known, before the first: a long scripted trigger session's time."""
        if not self.options.scripted or self.is_worker:
            return []
        from ..engine.scripted_plan import scripted_trigger_lines

        at_once = max(self.pool.size, workers(self.config), 1)
        return scripted_trigger_lines(items, at_once, runs_given=self.options.runs is not None)

    def header_lines(self) -> list[str]:
        if not self.active or self.is_worker:
            return []
        return notices.header_lines(self.eval_roots, self.options) + notices.access_lines(
            self.resources.checked_access.get()
        )

    # ---- resources (resources.py) ------------------------------------------------------------------------

    @property
    def scratch(self) -> Scratch:
        return self.resources.scratch.get()

    @property
    def rounds(self) -> RoundBoard:
        return self.resources.rounds.get()

    @property
    def ledger(self) -> CostLedger | None:
        return self.resources.ledger.get()

    @property
    def claude(self) -> Path:
        return self.resources.claude.get()

    def worker_input(self) -> dict:
        return self.resources.worker_input(self.started_at, workers(self.config))

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

    def trigger_file_root(self, path: Path) -> Path | None:
        """The eval dir of `path` when its walk collects it as a trigger file (trigger_files.in_eval_dir_walk: ours,
        or skill-creator's, and no case's own file; those in a skill's folder come with EvalDir)."""
        if not in_eval_dir_walk(path):
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

    def runs_to_collect(self, case: Case) -> list[RunId]:
        """The runs of a case (on the session's model): every arm × run, or with --regrade the runs stored for
        it."""
        if self.stored is not None:
            return [RunId.of(case.dir, run.arm, run.index) for run in self.stored.runs_of(case.rel_dir)]
        runs, arms = range(1, rules.runs_for(case, self.options) + 1), rules.arms_for(case, self.options)
        if rules.other_arms(case, self.options):  # run n of every arm together: an interruption leaves pairs
            return [RunId.of(case.dir, arm, index) for index in runs for arm in arms]
        return [RunId.of(case.dir, arm, index) for arm in arms for index in runs]

    def matrix_runs(self, case: Case) -> list[RunId]:
        """The runs of a case on each model it runs on, the models interleaved run by run, so that a cost ceiling
        or an interruption leaves every model with comparable runs."""
        models = case_models(case.models, self.matrix_models)
        return [replace(run, model=model) for run in self.runs_to_collect(case) for model in models]

    def selected(self, case: Case) -> bool:
        return self.selected_name(case.name, case.tags)

    def selected_name(self, name: str, tags: tuple[str, ...]) -> bool:
        """The --case globs and --tag filters (rules.selected)."""
        return rules.selected(name, tags, self.options)

    def ignore(self, path: Path) -> bool | None:
        """Never collect results/, mocks/, node_modules/ or .claude/ inside an eval dir; do collect dot-dirs. Of
        an eval dir's files only its cases and trigger files are collected: the rest is data (a fixture named
        test_*.py, an author's own script), never a test module pytest would import."""
        root = self.eval_root(path)
        if root is None or path == root:
            return None
        if path.is_dir():
            return True if skipped_folder(path) else False if path.name.startswith(".") else None
        return None if path.name in (PROMPT_FILE, CASE_FILE) or is_trigger_file(path) else True

    def case_file_root(self, path: Path) -> Path | None:
        """The eval dir of `path` when it is the file a case is anchored on (prompt.md, else case.yaml)."""
        if path.name == CASE_FILE and (path.parent / PROMPT_FILE).is_file():
            return None
        if path.name not in (PROMPT_FILE, CASE_FILE):
            return None
        return self.eval_root(path.parent)

    # ---- what the reports carry (describe.py, notices.py) ----------------------------------------------------

    def case_result(self, case: Case, model: str | None = None) -> CaseResult:
        """The case as the results document describes it, before any run (on `model`, in a matrix)."""
        return describe.case_result(case, self.options.for_model(model), regrading=self.regrading)

    def suite_info(self, case: Case, model: str | None = None) -> SuiteInfo:
        return describe.suite_info(case, self.options.for_model(model))

    def case_notices(self, case: Case, model: str | None = None) -> list[str]:
        said = notices.case_notices(case, self.options.for_model(model), regrading=self.regrading)
        restricted = restriction_notice(case.name, case.models, self.matrix_models)
        return [*said, restricted] if restricted else said

    # ---- running -------------------------------------------------------------------------------------

    def execute(self, item, upcoming=None) -> Outcome:
        """One item's run, unless the cost ceiling keeps it from starting or (--runs auto) its case needs no more
        runs. Called from the pool's threads. `upcoming`: the item whose run starts next, started ahead."""
        case, ledger, run = item.case, self.ledger, item.run_id
        if self.options.auto_runs is not None:
            against = "against" in rules.other_arms(case, self.options)  # --runs auto decides on ΔAGAINST
            reason = self.rounds.need(
                run,
                self.earlier_runs(run),
                rules.two_arm(case, self.options) or against,
                self.pool.stopping,
                trigger=(case.trigger.threshold, case.runs_per_arm) if case.trigger is not None else None,
                versus="against" if against else "without",
            )
            if reason is not None:
                self.prestarts.discard(run)
                return Outcome(unneeded=reason)
        outcome = Outcome()
        try:
            if ledger is not None and not ledger.may_start():
                why = (
                    f"cost ceiling ${self.options.max_cost_usd:g} reached (${ledger.spent():.4f} spent): "
                    f"run not started"
                )
                skipped = SkippedRun(case.name, case.rel_dir, run.arm, run.index, "cost_ceiling")
                outcome = Outcome(skipped=skipped, why_skipped=why)
                self.prestarts.discard(run)
            else:
                outcome = Outcome(result=self.run_case(case, run, upcoming))
        except Exception as e:  # a fault before the run's own guard (planning it, its judge, its folder)
            outcome = Outcome(result=harness_result(run.arm, run.index, e))
        finally:
            if self.options.auto_runs is not None:  # whatever came of it: the case's later runs may decide
                self.rounds.record(run, auto_score(case, outcome.result))
        return outcome

    def earlier_runs(self, run: RunId) -> set[RunId]:
        """The selected runs of `run`'s case in earlier rounds: what its need is decided on."""
        return {other for other in self._earlier.get().get(run.case_key, set()) if other.index < run.index}

    def _runs_by_case(self) -> dict[str, set[RunId]]:
        """Case (on its model) → its selected runs, read once collection is done."""
        out: dict[str, set[RunId]] = {}
        for other in getattr(self.pytest_session, "items", None) or ():
            run = getattr(other, "run_id", None)
            if isinstance(run, RunId):
                out.setdefault(run.case_key, set()).add(run)
        return out

    def run_case(self, case: Case, run: RunId, upcoming=None) -> RunResult:
        """One run of `case` (or, with --regrade, its stored run graded again). `upcoming`: the item whose run
        comes next, whose agent this run starts ahead."""
        folder = self.results_folder(case.eval_root, run.model)
        assert folder is not None
        artefacts = folder.run_folder(os.path.relpath(case.dir, case.eval_root), run.arm, run.index)
        script = case.script if self.options.scripted else None
        judge = self.models.judge_for(case, script, run)
        if self.stored is not None:  # stored runs are named by the case's dir as their document says
            stored = self.stored.runs[replace(run, case=case.rel_dir, model=None)]
            ledger = self.ledger  # what a regrade spends is its judges: held to --max-cost-usd as a run's are
            allowed = ledger.allows_judges if ledger is not None else (lambda: True)
            two_arm = rules.two_arm(case, self.options)
            result = regrade_run(case, stored, two_arm, judge, artefacts, self.pool.stopping, allowed)
            if ledger is not None:
                ledger.add(result.judge_cost_usd)
            return result
        reuse = self.baseline.reused(case, run)
        if reuse is not None:  # --reuse-baseline: a stored run stands for this one, graded again
            self.start_ahead(upcoming)
            return self.baseline.regraded(case, run, reuse, judge, artefacts)
        plan = self.run_plan(case, run)
        how = Evaluation(
            two_arm=rules.two_arm(case, self.options),
            artefacts=artefacts,
            judge=judge,
            ledger=self.ledger,
            attempts=1 + self.options.api_retries,
            workspace_base=self.workspace_base,
        )
        ready = self.prestarts.take(run)  # from here on, evaluate owns it
        self.start_ahead(upcoming)
        return self.baseline.recorded(case, run, evaluate(plan, how, ready))

    @property
    def workspace_base(self) -> Path | None:
        """Where runs' workspaces are made: the session's scratch folder (--keep-temp: outside it, where the
        scratch folder's removal at the end leaves them)."""
        return None if self.options.keep_temp else self.scratch.workspaces

    def start_ahead(self, item) -> None:
        """Start `item`'s agent now, so that its run finds it ready (engine/prestart.py): a run of a case, not a
        stored run graded again, under --runs auto one of the first runs every case makes, and only while the
        machine has a core to spare."""
        if self.stored is not None or not isinstance(getattr(item, "case", None), Case):
            return
        case, run = item.case, item.run_id
        if self.baseline.reused(case, run) is not None:
            return  # its run is a stored one
        if self.spare_cores() < SPARE_CORE:
            return
        auto = self.options.auto_runs
        if auto is not None and run.index > auto.first:
            return
        self.prestarts.start(run, lambda: (self.run_plan(case, run), self.workspace_base))

    def run_plan(self, case: Case, run: RunId) -> RunPlan:
        folder = self.results_folder(case.eval_root, run.model)
        assert folder is not None
        script = case.script if self.options.scripted else None
        settings = self.run_settings(run.model)
        return RunPlan(
            case=case,
            arm=run.arm,
            index=run.index,
            settings=settings,
            claude=self.claude,
            base_url=self.models.scripted_url(script, case.prompt, run, settings.model or case.model),
            mock_agent=self.models.mock_agent(case, script, run),
            user=self.models.simulated_user(case, script, run),
            may_spend=self.within_ceiling,
            environ=self.models.run_environ(),
            record_dir=folder.recordings,
            stop=self.pool.stopping,
            tag=self.scratch.tag,
            # the results written elsewhere than the eval dir (whose results/ is hidden with the suite)
            hidden=(Path(self.options.output_dir).absolute(),) if self.options.output_dir else (),
            plugins=self.versions.plugin_dirs(case.plugin_dirs, run.arm, case.eval_root),
        )

    def within_ceiling(self, spent_in_run: float) -> bool:
        """Whether a run that has spent `spent_in_run` so far may spend more (--max-cost-usd; the ledger holds
        what the session's finished runs spent)."""
        ledger = self.ledger
        return ledger is None or ledger.cap is None or ledger.spent() + spent_in_run < ledger.cap

    def run_settings(self, model: str | None = None) -> RunSettings:
        o = self.options.for_model(model)
        return RunSettings(
            model=o.model,
            allow_tools=o.allow_tools,
            disallow_tools=o.disallow_tools,
            scaffold=o.scaffold,
            mocks=o.mocks,
            allow_real_servers=o.allow_real_servers,
            keep_temp=o.keep_temp,
            strict_tools=o.strict_tools,
        )

    @property
    def judge_model(self) -> str:
        return self.models.judge_model

    @property
    def access(self) -> dict | None:
        """The access the runs and judges used, for the results document (none when scripted)."""
        access = self.resources.checked_access.get()
        return None if access.kind == "scripted" else access.to_json()

    def stop_runs(self) -> list:
        """Stop the runs in flight and those started ahead; returns the items whose runs were in flight, with
        what they came to (RunPool.stop)."""
        ended = self.pool.stop()
        self.prestarts.close()
        return ended

    def close(self) -> None:
        self.stop_runs()
        self.resources.close()
