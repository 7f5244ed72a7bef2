"""A Claude Code child that answers one Messages API request: what asks a model through Claude Code when the API
cannot be asked directly (a Claude Code login, a setup token, a cloud provider).

`ClaudeCodeClient` offers the small part of `anthropic.Anthropic` that the judges and the agent mocks use
(`messages.create`, `with_options`, `close`). Each request is one `claude -p` with no tools, no plugin, no MCP server
and no settings, in a throwaway home and config of its own; it is signed in by the environment it is given (the
caller's allow-listed one, holding what signs the runs in). Its reply carries the child's token usage, priced as any
other reply.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 120
AUTH_FAILURE = ("not logged in", "/login", "invalid api key", "authentication", "oauth token")


@dataclass
class ChildUsage:
    """A reply's usage as the SDK's Usage gives it (`model_dump`), from the child's result event."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def model_dump(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class TextBlock:
    text: str
    type: str = "text"


@dataclass
class Reply:
    content: list[TextBlock]
    usage: ChildUsage
    model: str


class ClaudeCodeClient:
    """`anthropic.Anthropic`'s `messages.create`, answered by an isolated `claude -p` child."""

    def __init__(self, claude: Path, environ: dict[str, str], timeout: float = DEFAULT_TIMEOUT):
        self.claude = claude
        self.environ = environ
        self.timeout = timeout
        self.messages = self
        self._cwd: Path | None = None
        self._lock = threading.Lock()

    def with_options(self, **_options: Any) -> ClaudeCodeClient:
        return self

    def close(self) -> None:
        """Remove the working directory the children shared (each child's home and config go with its request)."""
        with self._lock:
            if self._cwd is not None:
                shutil.rmtree(self._cwd, ignore_errors=True)
                self._cwd = None

    def cwd(self) -> Path:
        """One empty working directory for every child of this client: Claude Code names it in the prompt it sends,
        so the same folder keeps the votes' prompts identical — the later ones read the prompt cache the first one
        wrote instead of each writing its own."""
        with self._lock:
            if self._cwd is None:
                self._cwd = Path(tempfile.mkdtemp(prefix="pe-judge-cwd-"))
            return self._cwd

    def create(self, *, model: str, max_tokens: int, system: str = "", messages: list[dict], **_: Any) -> Reply:
        root = Path(tempfile.mkdtemp(prefix="pe-judge-"))
        try:
            argv, env, stdin = self._command(root, model, max_tokens, system, messages)
            try:
                done = subprocess.run(
                    argv, input=stdin, capture_output=True, cwd=self.cwd(), env=env, timeout=self.timeout
                )
            except subprocess.TimeoutExpired:
                raise child_error(408, f"Claude Code gave no answer within {self.timeout:g}s") from None
            except OSError as e:
                raise child_error(503, f"Claude Code did not start: {e}") from None
        finally:
            shutil.rmtree(root, ignore_errors=True)
        result = last_result(done.stdout.decode("utf-8", errors="replace"))
        if result is None:
            stderr = done.stderr.decode("utf-8", errors="replace").strip()[-300:]
            raise child_error(503, f"Claude Code gave no answer (exit {done.returncode}): {stderr}")
        text = str(result.get("result") or "")
        if result.get("is_error"):
            status = result.get("api_error_status")
            if not isinstance(status, int):
                status = 401 if any(w in text.lower() for w in AUTH_FAILURE) else 500
            raise child_error(status, f"Claude Code: {text[:300]}")
        usage = result.get("usage") or {}
        figures = {f: int(usage.get(f) or 0) for f in ChildUsage.__dataclass_fields__}
        return Reply([TextBlock(text)], ChildUsage(**figures), model)

    def _command(
        self, root: Path, model: str, max_tokens: int, system: str, messages: list[dict]
    ) -> tuple[list[str], dict[str, str], bytes]:
        home, config = root / "home", root / "config"
        for folder in (home, config):
            folder.mkdir()
        (config / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
        (config / "settings.json").write_text(json.dumps({"env": {"DISABLE_AUTOUPDATER": "1"}}))
        env = dict(self.environ)  # already the caller's allow-list: what reaches the model, and what signs in
        env.update(
            {
                "HOME": str(home),
                "CLAUDE_CONFIG_DIR": str(config),
                "CLAUDE_CODE_MANAGED_SETTINGS_PATH": str(config),
                "TMPDIR": str(root),
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
                "ENABLE_CLAUDEAI_MCP_SERVERS": "false",
                "MAX_THINKING_TOKENS": "0",  # a one-word verdict: no thinking
                "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens),
                "CLAUDE_CODE_MAX_RETRIES": "0",  # the judge retries itself, honouring retry-after
                "FORCE_PROMPT_CACHING_5M": "1",  # the votes of one grader come within seconds: 1 h writes cost more
            }
        )
        argv = [
            str(self.claude),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            model,
            "--system-prompt",
            system,
            "--tools",
            "",
            "--setting-sources",
            "",
            "--strict-mcp-config",
            "--max-turns",
            "1",
            "--no-session-persistence",
        ]
        content = messages[-1]["content"] if messages else ""
        line = {"type": "user", "message": {"role": "user", "content": content}}
        return argv, env, (json.dumps(line) + "\n").encode()


def child_error(status: int, message: str) -> Exception:
    """An error the judges read as they read the SDK's (an `anthropic.AnthropicError` with a `status_code`): 408, 429
    and 5xx are retried, 401 is not."""
    import anthropic  # loaded with the first failure, as the SDK's errors are

    error = anthropic.AnthropicError(message)
    error.status_code = status  # type: ignore[attr-defined]
    error.message = message  # type: ignore[attr-defined]
    return error


def last_result(stdout: str) -> dict | None:
    """The child's result event (the last one), or None."""
    found = None
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            found = event
    return found
