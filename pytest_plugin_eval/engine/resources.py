"""What a session makes only when it is first needed: the scratch folder, the cost ledger, the --runs auto board,
the scripted endpoint, the judge's HTTP client and the Claude Code binary. Runs ask for them from the pool's
threads, so each is made once, under a lock of its own (one slow start — the endpoint's server, a binary search —
holds up only those waiting for it)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from ..grade.clients import judge_client, scripted_client
from ..run.access import SCRIPTED, Access
from ..run.access import detect as detect_access
from ..run.access import verify as verify_access
from ..run.agent import ClaudeNotFound, find_claude
from .ledger import CostLedger
from .options import EvalOptions
from .rounds import RoundBoard
from .scratch import Scratch

T = TypeVar("T")
JUDGE_TIMEOUT = 120


class Lazy(Generic[T]):
    """A value made on first use, once, whichever thread asks first. A `make` that raises makes nothing: the next
    use tries again."""

    def __init__(self, make: Callable[[], T]):
        self._make = make
        self._lock = threading.Lock()
        self._made = False
        self._value: T | None = None

    def get(self) -> T:
        with self._lock:
            if not self._made:
                self._value = self._make()
                self._made = True
            return cast(T, self._value)  # made: a T (which may itself be None)

    @property
    def made(self) -> T | None:
        """The value if it was made, without making it (None otherwise)."""
        return self._value


class Resources:
    """The lazily made resources of one process of a session. `shared`: what the controller handed this worker
    (its scratch folder, ledger and host), empty on the controller."""

    def __init__(self, options: EvalOptions, shared: dict, is_worker: bool):
        self.options = options
        self.shared = shared
        self.is_worker = is_worker
        self.scratch = Lazy(self._scratch)
        self.ledger = Lazy(self._ledger)
        self.rounds = Lazy(self._rounds)
        self.endpoint = Lazy(self._endpoint)
        self.access = Lazy(self._access)
        self.checked_access = Lazy(self._checked_access)
        self.judge_client = Lazy(self._judge_client)
        self.scripted_judge_client = Lazy(self._scripted_judge_client)
        self.claude = Lazy(lambda: find_claude(options.claude))

    def _on_this_host(self) -> bool:
        return self.shared.get("host") == socket.gethostname()

    def _scratch(self) -> Scratch:
        """Workspaces and the ledger: a worker on this host uses its controller's folder (the controller removes
        it at the end), a worker elsewhere makes its own."""
        if self.shared.get("scratch") and self._on_this_host():
            return Scratch(Path(self.shared["scratch"]), self.shared["tag"], owner=False)
        return Scratch.create()

    def _ledger(self) -> CostLedger | None:
        """The --max-cost-usd ledger: a SQLite file shared by the processes of this host. A worker on another
        host keeps its own ledger with an equal share of the cap, which keeps the cap a hard bound."""
        cap, shared = self.options.max_cost_usd, self.shared
        if cap is None:
            return None
        if self.is_worker and shared.get("ledger") and self._on_this_host():
            return CostLedger(Path(shared["ledger"]), cap)
        if self.is_worker and shared.get("ledger"):
            return CostLedger(self.scratch.get().ledger, cap / max(1, shared.get("workers", 1)))
        return CostLedger(self.scratch.get().ledger, cap)  # this session's own: a fresh ceiling every session

    def _rounds(self) -> RoundBoard:
        """--runs auto: the runs finished so far, shared with the workers on this host."""
        plan = self.options.auto_runs
        assert plan is not None
        return RoundBoard(self.scratch.get().path / "rounds.sqlite", plan)

    def _endpoint(self) -> Any:
        """The scripted endpoint of this process (--scripted)."""
        from ..doubles.scripted import ScriptedEndpoint  # an HTTP server: only for --scripted sessions

        return ScriptedEndpoint().start()

    def _access(self) -> Access:
        """How this session reaches the model (run/access.py): what signs in its runs and its judges."""
        return SCRIPTED if self.options.scripted else detect_access()

    def _checked_access(self) -> Access:
        """The access as Claude Code's `auth status` finds it in a run's isolated config (said before the first run)."""
        access = self.access.get()
        if access.kind == "scripted":
            return access
        try:
            claude = self.claude.get()
        except ClaudeNotFound:
            return access
        return verify_access(access, claude)

    def _judge_client(self) -> Any:
        """The client shared by every judge of the session: the API's own where it can be asked directly, else
        Claude Code signed in as the runs are (grade/clients.py)."""
        access = self.access.get()
        return judge_client(access, None if access.direct else self.claude.get(), JUDGE_TIMEOUT)

    def _scripted_judge_client(self) -> Any:
        """The scripted endpoint's judge client: one connection pool for every grader of every run, each asking
        through a copy aimed at its own URL (`with_options(base_url=…)` shares the pool), closed with the session."""
        return scripted_client(self.endpoint.get().url)

    def worker_input(self, started_at: str, workers: int) -> dict:
        """What a pytest-xdist worker is handed: this session's scratch folder, ledger, start and host."""
        scratch, ledger = self.scratch.get(), self.ledger.get()
        return {
            "scratch": str(scratch.path),
            "tag": scratch.tag,
            "started_at": started_at,
            "ledger": str(ledger.path) if ledger else None,
            "host": socket.gethostname(),
            "workers": workers,
        }

    def close(self) -> None:
        """Close the judge clients' connections, stop what was started (the endpoint) and remove what was made (the
        scratch folder, if this process's)."""
        for client in (self.judge_client.made, self.scripted_judge_client.made):
            if client is not None:
                client.close()
        endpoint, scratch = self.endpoint.made, self.scratch.made
        if endpoint is not None:
            endpoint.stop()
        if scratch is not None:
            scratch.close()
