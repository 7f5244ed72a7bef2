"""The one way the tool builds a client that asks a model outside an agent run — the judges (grade/clients.py) and
the agent mocks (doubles/mcp/server.py) alike.

Where the Messages API can be asked directly (an API key, an auth token, an apiKeyHelper's key, the scripted
endpoint) it is the SDK's own client, signed in by the given environment's key or token. Otherwise (a Claude Code
login, a setup token, Bedrock, Vertex, Foundry) it is an isolated Claude Code child per request
(core/claude_child.py), signed in by that environment. Both offer what the callers use: `messages.create`,
`with_options`, `close`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .claude_child import DEFAULT_TIMEOUT, ClaudeCodeClient


def model_client(
    claude: Path | None,
    environ: Mapping[str, str],
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    base_url: str | None = None,
    max_retries: int = 0,
) -> Any:
    """The SDK's client (`claude` None: the API is asked directly) or a Claude Code client, signed in by `environ`
    (what signs the session's runs in). `base_url` overrides the environment's (the scripted endpoint's URL);
    `timeout` None: the SDK's own."""
    if claude is not None:
        return ClaudeCodeClient(claude, dict(environ), DEFAULT_TIMEOUT if timeout is None else timeout)
    import anthropic  # the HTTP client: loaded when a model is first asked

    return anthropic.Anthropic(
        api_key=environ.get("ANTHROPIC_API_KEY"),
        auth_token=environ.get("ANTHROPIC_AUTH_TOKEN"),
        base_url=base_url or environ.get("ANTHROPIC_BASE_URL") or None,
        max_retries=max_retries,
        timeout=anthropic.DEFAULT_TIMEOUT if timeout is None else timeout,
    )
