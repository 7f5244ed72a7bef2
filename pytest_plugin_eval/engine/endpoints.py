"""Where the model calls of a run go: the real API, or (--scripted) the process's scripted endpoint, on a URL of
its own for each run's agent, each grader's judge votes and each agent mock, so that the endpoint answers each
from the case's script and counts the votes apart."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..core.run_id import RunId
from ..grade.judge import Judge, resolve_judge_model
from ..load.case import Case
from .options import EvalOptions
from .resources import Resources


class ModelCalls:
    """The model settings of one session's runs, judges and agent mocks."""

    def __init__(self, options: EvalOptions, resources: Resources):
        self.options = options
        self.resources = resources

    def run_environ(self) -> dict[str, str]:
        """The environment a run starts from: the operator's, with what signs it in (a login's access token)."""
        return self.resources.access.get().environ()

    @property
    def judge_model(self) -> str:
        return resolve_judge_model(self.options.judge_model)

    def scripted_url(
        self, script: Any, prompt: str, run: RunId, agent_model: str | None = None
    ) -> Callable[[Any], str] | None:
        """cwd → the scripted endpoint's URL for `run` answered from `script` (None without --scripted).
        `agent_model`: the model the run's agent is started on (the matrix's, else the session's or the case's),
        whose own turns in the script (`models:`) answer it."""
        if not self.options.scripted:
            return None
        endpoint, arm = self.resources.endpoint.get(), scripted_arm(script, run.arm)
        return lambda cwd: endpoint.agent_url(
            script, arm=arm, run=run.index, cwd=str(cwd), prompt=prompt, model=agent_model
        )

    def judge_for(self, case: Case, script, run: RunId) -> Judge | None:
        if not any(g.kind.paid for g in case.graders):
            return None
        return self.make_judge(script, run)

    def make_judge(self, script, run: RunId) -> Judge:
        """The judge for one run: the session's judge client (grade/clients.py, signed in as the runs), or the scripted endpoint with one URL per
        grader, on which it counts that grader's votes (a copy of the shared scripted client: one pool)."""
        if not self.options.scripted:
            client = self.resources.judge_client.get()
            return Judge(self.judge_model, lambda grader: client)
        endpoint, base = self.resources.endpoint.get(), self.resources.scripted_judge_client.get()
        arm, index = scripted_arm(script, run.arm), run.index
        clients: dict = {}
        lock = threading.Lock()

        def client_for(grader: str):
            with lock:  # votes are cast from several threads
                if grader not in clients:
                    clients[grader] = base.with_options(base_url=endpoint.judge_url(script, grader, arm=arm, run=index))
                return clients[grader]

        return Judge(self.judge_model, client_for)

    def simulated_user(self, case: Case, script, run: RunId):
        """The run's simulated user (grade/simulated_user.py): the judge's client on the user's model (the judge
        model unless `user.model`), or — scripted — the endpoint's URL for this run's user. None: no `user:`."""
        user = case.conversation.user
        if user is None or case.trigger is not None:
            return None
        from ..grade.simulated_user import asker, user_model

        model = user_model(user.model, self.judge_model)
        if not self.options.scripted:
            client = self.resources.judge_client.get()
            return asker(Judge(model, lambda _grader: client), user)
        endpoint, base = self.resources.endpoint.get(), self.resources.scripted_judge_client.get()
        scripted = base.with_options(base_url=endpoint.user_url(script, arm=run.arm, run=run.index))
        return asker(Judge(model, lambda _grader: scripted), user)

    def mock_agent(self, case: Case, script, run: RunId) -> dict | None:
        """Model settings for the case's agent mocks (the judge model; scripted: its own endpoint URL)."""
        if not any(r.kind == "agent" for server in case.mocks.servers.values() for r in server.responders.values()):
            return None
        base_url = None
        if self.options.scripted:
            base_url = self.resources.endpoint.get().judge_url(
                script, "mock", arm=scripted_arm(script, run.arm), run=run.index
            )
        # Just the model: the stand-in prices its calls from the same price table. Where the API cannot be asked
        # directly, the stand-in asks through Claude Code, signed in by the run's environment it inherits.
        access = self.resources.access.get()
        claude = None if access.direct else str(self.resources.claude.get())
        return {"model": self.judge_model, "baseUrl": base_url, **({"claude": claude} if claude else {})}


def scripted_arm(script: Any, arm: str) -> str:
    """The arm of scripted.yaml that answers a run of `arm`: its own (`against:`), else — for a run that loads a
    version of the plugin (against, an ablation) — the with arm's: the scripted model answers what it is asked,
    not which version asks."""
    if arm in ("with", "without") or (script is not None and arm in script.arms):
        return arm
    return "with"
