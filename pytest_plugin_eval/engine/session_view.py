"""What the controller reads of the eval session (session/eval_session.py's EvalSession), and nothing more: the controller's unit
tests build it around a fake, which mypy checks against this."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from ..analysis.regrade import StoredResults
from ..load.case import Case
from ..load.graders import GraderKind
from ..load.triggers import TriggerSet
from ..results.model import CaseResult, SuiteInfo
from ..results.store import ResultsFolder
from .ledger import CostLedger
from .options import EvalOptions


class RunsInFlight(Protocol):
    def in_flight(self) -> int: ...


class SessionView(Protocol):
    @property
    def options(self) -> EvalOptions: ...

    @property
    def config(self) -> Any: ...  # the pytest.Config (unit tests: a fake with the few parts the controller uses)

    @property
    def pytest_session(self) -> Any: ...  # the pytest.Session, once it has started

    @property
    def active(self) -> bool: ...

    @property
    def eval_roots(self) -> list[Path]: ...

    @property
    def started_at(self) -> str: ...

    @property
    def started(self) -> float: ...  # time.monotonic() at the start

    @property
    def judge_model(self) -> str: ...

    @property
    def access(self) -> dict | None: ...  # run/access.py's Access.to_json(), none when scripted

    @property
    def claude(self) -> Path: ...  # raises run.agent.ClaudeNotFound

    @property
    def stored(self) -> StoredResults | None: ...  # --regrade

    @property
    def ledger(self) -> CostLedger | None: ...  # --max-cost-usd

    @property
    def pool(self) -> RunsInFlight: ...

    @property
    def rerun_status(self) -> str | None: ...  # --lf

    @property
    def shard_share(self) -> tuple[int, int, int, int] | None: ...  # --shard

    def eval_root(self, path: Path) -> Path | None: ...

    def results_folder(self, eval_root: Path | None, model: str | None = None) -> ResultsFolder | None: ...

    def session_folder(self, eval_root: Path | None) -> ResultsFolder | None: ...  # a matrix's: above the models'

    def suite_label(self, eval_root: Path, model: str | None = None) -> str: ...

    def load(self, case_dir: Path, eval_root: Path) -> Case: ...

    def grader_types(self) -> Mapping[str, GraderKind]: ...

    def load_triggers(self, path: Path, eval_root: Path) -> list[TriggerSet]: ...

    def case_result(self, case: Case, model: str | None = None) -> CaseResult: ...

    def suite_info(self, case: Case, model: str | None = None) -> SuiteInfo: ...

    def stop_runs(self) -> list: ...

    @property
    def workspace_base(self) -> Path | None: ...  # where runs' workspaces are (None: --keep-temp)
