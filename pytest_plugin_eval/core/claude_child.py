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
AHEAD = 2  # the first two votes of a grader are cast at once
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
    stop_reason: str | None = None  # the result event's: "max_tokens" when the reply was cut at the judge's limit


@dataclass
class Waiting:
    """A child started ahead: its process, waiting for its request on stdin, and its own folder."""

    process: subprocess.Popen
    root: Path


class ClaudeCodeClient:
    """`anthropic.Anthropic`'s `messages.create`, answered by an isolated `claude -p` child."""

    def __init__(self, claude: Path, environ: dict[str, str], timeout: float = DEFAULT_TIMEOUT, ahead: int = AHEAD):
        self.claude = claude
        self.environ = environ
        self.timeout = timeout
        self.ahead = ahead  # children kept started, waiting for a request, per kind of request
        self.messages = self
        self._cwd: Path | None = None
        self._lock = threading.RLock()  # _take starts a child (which asks cwd()) while holding it
        self._ready: dict[tuple[str, int, str], list[Waiting]] = {}
        self._closed = False

    def with_options(self, **_options: Any) -> ClaudeCodeClient:
        return self

    def close(self) -> None:
        """Stop the children started ahead and remove their folders, and the working directory they shared."""
        with self._lock:
            self._closed = True
            waiting = [child for ready in self._ready.values() for child in ready]
            self._ready.clear()
            for child in waiting:
                child.process.kill()
                child.process.communicate()  # waits, and closes its pipes
                shutil.rmtree(child.root, ignore_errors=True)
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
        content = messages[-1]["content"] if messages else ""
        stdin = (json.dumps({"type": "user", "message": {"role": "user", "content": content}}) + "\n").encode()
        child = self._take((model, max_tokens, system))
        try:
            stdout, stderr = child.process.communicate(stdin, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            child.process.kill()
            child.process.communicate()
            raise child_error(408, f"Claude Code gave no answer within {self.timeout:g}s") from None
        finally:
            shutil.rmtree(child.root, ignore_errors=True)
        done = subprocess.CompletedProcess(child.process.args, child.process.returncode, stdout, stderr)
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
        return Reply([TextBlock(text)], ChildUsage(**figures), model, result.get("stop_reason"))

    def _take(self, key: tuple[str, int, str]) -> Waiting:
        """A child for one request of `key` (model, max_tokens, system prompt): one started ahead if it is still
        waiting, else a new one; and a new one started ahead for the next request. A child spends most of its time
        starting (seconds on a busy machine) and little answering, so a vote that finds one waiting for its
        message skips the start."""
        with self._lock:
            ready = self._ready.setdefault(key, [])
            child = None
            while ready and child is None:
                candidate = ready.pop(0)
                if candidate.process.poll() is None:
                    child = candidate
                else:  # it died waiting: its output tells nothing a new child would not
                    candidate.process.communicate()
                    shutil.rmtree(candidate.root, ignore_errors=True)
        if child is None:
            child = self._start(key)
        with self._lock:
            if len(self._ready[key]) < self.ahead and not self._closed:
                self._ready[key].append(self._start(key))
        return child

    def _start(self, key: tuple[str, int, str]) -> Waiting:
        root = Path(tempfile.mkdtemp(prefix="pe-judge-"))
        argv, env = self._command(root, *key)
        try:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.cwd(), env=env
            )
        except OSError as e:
            shutil.rmtree(root, ignore_errors=True)
            raise child_error(503, f"Claude Code did not start: {e}") from None
        return Waiting(process, root)

    def _command(self, root: Path, model: str, max_tokens: int, system: str) -> tuple[list[str], dict[str, str]]:
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
        return argv, env


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
