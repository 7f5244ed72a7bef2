"""The session's side of --reuse-baseline: which of a case's without-plugin runs are taken from stored sessions,
and, with --against, which of the other version's runs: stored with-plugin runs made on that very version.

What a run depends on is recorded with every fresh one (run/conditions.py), whether or not the option is on, so
that a later session can reuse it. With the option, a case's decision is made once per process,
on first need, from the suite's results folders (analysis/baseline.py): each process of `-n` reads the same folders
and comes to the same decision, the session's own results folder left out.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis.baseline import ARM, PLUGIN_ARM, Baselines, Decision, Reuse, as_reused
from ..analysis.regrade import regrade_run
from ..core.kinds import Arm
from ..core.run_id import RunId
from ..load.case import Case
from ..results.history import HISTORY_LIMIT, scan
from ..results.model import RunResult
from ..results.store import RESULTS_DIR
from ..run.agent import claude_version
from ..run.artefacts import RunFolder
from ..run.conditions import plugin_conditions, plugin_digest, without_conditions
from . import rules
from .resources import Lazy

# one line per session runs came from (the table says how many); a refusal is said per case, with its reason
REUSED_NOTE = "without-plugin runs reused from the session of {session} (--reuse-baseline), graded again"
REFUSED_NOTE = "{case}: without-plugin runs not reused ({why}): run afresh"
AGAINST: Arm = "against"
REUSED_AGAINST_NOTE = (
    "--against runs reused from the with-plugin runs the session of {session} made on the same version "
    "(--reuse-baseline), graded again"
)
REFUSED_AGAINST_NOTE = "{case}: --against runs not taken from stored with-plugin runs ({why}): run afresh"
# the arm whose stored runs stand for a run of this arm
STORED_ARM: dict[Arm, Arm] = {ARM: ARM, AGAINST: PLUGIN_ARM}
RECORDED = (ARM, PLUGIN_ARM, AGAINST)  # the arms whose fresh runs record their conditions


class BaselineReuse:
    def __init__(self, session: Any):
        self.session = session  # session/eval_session.py's EvalSession
        self.claude_version = Lazy(lambda: claude_version(session.claude))
        self._lock = threading.Lock()
        self._baselines: dict[Path, Baselines] = {}
        self._conditions: dict[tuple[str, Arm], dict[str, Any]] = {}  # by the case on its model, and the arm
        self._decisions: dict[tuple[str, Arm], Decision] = {}
        self._plugin_digests: dict[tuple[Path, Path], str] = {}  # a plugin's files are read once per session

    @property
    def enabled(self) -> bool:
        return bool(self.session.options.reuse_baseline) and self.session.stored is None

    def conditions(self, case: Case, run: RunId) -> dict[str, Any]:
        """What the case's runs of `run`'s arm depend on today on `run`'s model (a matrix's; None: the session's),
        recorded with each, the option on or off."""
        with self._lock:
            key = (run.case_key, run.arm)
            if key not in self._conditions:
                plan = self.session.run_plan(case, replace(run, index=1))
                version = self.claude_version.get()
                self._conditions[key] = (
                    without_conditions(plan, version, plan.environ)
                    if run.arm == ARM
                    else plugin_conditions(plan, version, plan.environ, self._plugin_digest)
                )
            return self._conditions[key]

    def _plugin_digest(self, folder: Path, eval_root: Path) -> str:
        key = (folder, eval_root)  # called under the lock
        if key not in self._plugin_digests:
            self._plugin_digests[key] = plugin_digest(folder, eval_root)
        return self._plugin_digests[key]

    def reused(self, case: Case, run: RunId) -> Reuse | None:
        """The stored run that stands for `run` of `case` (None: it runs — also when the stored sessions cannot
        be read: a fault of the reuse must not lose the run)."""
        if run.arm not in STORED_ARM or not self.enabled or case.trigger is not None:
            return None
        try:
            return self.decision(case, run).runs.get(run.index)
        except Exception:
            return None

    def regraded(self, case: Case, run: RunId, reuse: Reuse, judge: Any, artefacts: RunFolder) -> RunResult:
        """The stored run graded again as this session's `run`, its files kept in `artefacts`."""
        session = self.session
        arm = run.arm
        two_arm = rules.two_arm(case, session.options)
        ledger = session.ledger
        allowed = ledger.allows_judges if ledger is not None else (lambda: True)  # as a fresh run's judges
        again = regrade_run(case, reuse.stored, two_arm, judge, artefacts, session.pool.stopping, allowed)
        result = as_reused(again, reuse, self.conditions(case, run), arm)
        if ledger is not None:
            ledger.add(result.cost_usd)  # its judges: the agent was paid for in its own session
        note = REUSED_NOTE if arm == ARM else REUSED_AGAINST_NOTE
        result.notes = [note.format(session=reuse.origin.get("session"))]
        return result

    def recorded(self, case: Case, run: RunId, result: RunResult) -> RunResult:
        """`run`'s fresh `result`, with the conditions a later session needs to reuse it (without the plugin, or
        with a version of it)."""
        if result.arm not in RECORDED:
            return result
        try:
            result.conditions = self.conditions(case, run)
            result.notes += self.notes_for_fresh(case, run)
        except Exception as e:  # the run stands; it just cannot be reused later
            result.notes.append(f"{case.name}: its conditions could not be recorded ({type(e).__name__}: {e})")
        return result

    def decision(self, case: Case, run: RunId) -> Decision:
        """Which stored runs stand for the case's runs of `run`'s arm on its model. The model is one of the
        conditions, so a matrix's model finds its own runs: in a matrix's folder or in a session of it alone."""
        conditions = self.conditions(case, run)
        arm = run.arm
        with self._lock:
            key = (run.case_key, arm)
            if key not in self._decisions:
                indexes = range(1, rules.runs_for(case, self.session.options) + 1)
                baselines = self._baselines_of(case.eval_root)
                self._decisions[key] = baselines.decide(case.rel_dir, conditions, indexes, STORED_ARM[arm])
            return self._decisions[key]

    def _baselines_of(self, eval_root: Path) -> Baselines:
        if eval_root not in self._baselines:
            own = self.session.results_folder(eval_root)
            past = scan([eval_root / RESULTS_DIR], HISTORY_LIMIT, [own.path] if own else [], matrices=True)
            self._baselines[eval_root] = Baselines((s.folder, s.document) for s in past.sessions)
        return self._baselines[eval_root]

    def notes_for_fresh(self, case: Case, run: RunId) -> list[str]:
        """The notice of a fresh run of a reusable arm: why the stored ones were not taken."""
        if run.arm not in STORED_ARM or not self.enabled or case.trigger is not None:
            return []
        refused = self.decision(case, run).refused
        note = REFUSED_NOTE if run.arm == ARM else REFUSED_AGAINST_NOTE
        # a matrix's notices are the session's: each model's refusal names its model
        name = case.name if run.model is None else f"{case.name} on {run.model}"
        return [note.format(case=name, why=refused)] if refused else []
