"""The one way every judge of the tool reaches its model, whatever the operator signs in with.

Where the Messages API can be asked directly (an API key, an auth token, an apiKeyHelper's key) the judge gets the
SDK's client, as fast as it goes: prompt caching, votes in parallel, early stop. Otherwise — a Claude Code login, a
setup token, Bedrock, Vertex, Foundry — it asks through Claude Code itself: each request is one isolated `claude -p`
child (core/claude_child.py), signed in as the runs are (run/access.py, the runs' allow-list of the operator's
environment), with no tools, no plugin, no MCP server and none of the operator's settings. It offers the part of the
SDK's client the judges use, so they do not change shape.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.model_client import model_client
from ..run.access import Access
from ..run.workspace import operator_env

JUDGE_TIMEOUT = 120
SCRIPTED_KEY = {"ANTHROPIC_API_KEY": "scripted"}  # what the scripted endpoint's clients sign with (it checks nothing)


def judge_client(access: Access, claude: Path | None, timeout: float = JUDGE_TIMEOUT, environ=None) -> Any:
    """The client every judge of a session (or a command) asks through (core/model_client.py, as the agent mocks)."""
    if access.direct:
        return model_client(None, access.environ(environ), timeout=timeout)
    if claude is None:
        raise RuntimeError("asking a judge through Claude Code needs the Claude Code binary")
    return model_client(claude, operator_env(access.environ(environ)), timeout=timeout)


def scripted_client(base_url: str) -> Any:
    """A client of the scripted endpoint at `base_url` (--scripted): it checks no key and answers at once."""
    return model_client(None, SCRIPTED_KEY, base_url=base_url, timeout=None)


def command_judge_client(
    url_for: Callable[[Any, str], str] | None, claude: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], None]]:
    """`client_for(key)` and a stop function for a command that asks judges outside a session (`compare
    --pairwise`, `calibrate --controls`): the operator's access as a session's judges have it — through `claude`
    (the command's --claude, else the bundled binary) where the API cannot be asked directly — or, given
    `url_for(endpoint, key)` (--scripted), a scripted endpoint started here, one base URL per key."""
    if url_for is None:
        from ..run.access import detect
        from ..run.agent import find_claude

        access = detect()
        client = judge_client(access, None if access.direct else find_claude(claude))
        return (lambda key: client), client.close
    from ..doubles.scripted import ScriptedEndpoint

    endpoint = ScriptedEndpoint().start()

    def client_for(key: str) -> Any:
        return scripted_client(url_for(endpoint, key))

    return client_for, endpoint.stop


def not_signed_in(option: str, environ: Any = None) -> str | None:
    """For a command's option that asks a judge outside a session (`--pairwise`, `--controls`): what to say when
    Claude Code is not signed in, or None."""
    import os

    from ..run.access import NO_ACCESS_FIX, detect

    access = detect(dict(os.environ if environ is None else environ))
    if access.kind != "none":
        return None
    return (
        f"Error: {option} asks a judge model, and Claude Code is not signed in: {access.fix or NO_ACCESS_FIX}; or "
        "pass --scripted to answer from each case's scripted.yaml offline"
    )
