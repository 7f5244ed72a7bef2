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
AHEAD = 2  # children kept waiting at least: the first two votes of a grader are cast at once
MOST_AHEAD = 8  # and at most (~150 MB each while waiting): as many as votes were in flight, up to this
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


@dataclass(eq=False)
class Waiting:
    """A child started ahead: its process, waiting for its request on stdin, and its own folder (home, config and
    the file its stderr goes to)."""

    process: subprocess.Popen
    root: Path

    def end(self) -> str:
        """Stop it (if it still runs), reap it and remove its folder; the end of what it wrote to stderr."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        try:
            said = (self.root / STDERR).read_text(encoding="utf-8", errors="replace").strip()[-300:]
        except OSError:
            said = ""
        shutil.rmtree(self.root, ignore_errors=True)
        return said


STDERR = "stderr.txt"


class ClaudeCodeClient:
    """`anthropic.Anthropic`'s `messages.create`, answered by an isolated `claude -p` child."""

    def __init__(
        self,
        claude: Path,
        environ: dict[str, str],
        timeout: float = DEFAULT_TIMEOUT,
        ahead: int = AHEAD,
        most_ahead: int = MOST_AHEAD,
    ):
        self.claude = claude
        self.environ = environ
        self.timeout = timeout
        self.ahead = ahead  # children kept started, waiting for a request, per kind of request: at least
        self.most_ahead = max(ahead, most_ahead)  # and at most
        self.messages = self
        self._cwd: Path | None = None
        self._lock = threading.RLock()  # _top_up starts children (which asks cwd()) while holding it
        self._ready: dict[tuple[str, int, str], list[Waiting]] = {}
        self._in_flight = 0  # requests being answered now
        self._ending: set[Waiting] = set()  # children that answered and are exiting
        self._closed = False

    def with_options(self, **_options: Any) -> ClaudeCodeClient:
        return self

    def close(self) -> None:
        """Stop the children started ahead and those still exiting, remove their folders, and the working directory
        they shared."""
        with self._lock:
            self._closed = True
            children = [child for ready in self._ready.values() for child in ready] + list(self._ending)
            self._ready.clear()
            self._ending.clear()
            for child in children:
                child.end()
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
        key = (model, max_tokens, system)
        with self._lock:
            self._in_flight += 1
        try:
            child = self._take(key)
            result = self._answer(child, stdin, key)
        finally:
            with self._lock:
                self._in_flight -= 1
        text = str(result.get("result") or "")
        if result.get("is_error"):
            status = result.get("api_error_status")
            if not isinstance(status, int):
                status = 401 if any(w in text.lower() for w in AUTH_FAILURE) else 500
            raise child_error(status, f"Claude Code: {text[:300]}")
        usage = result.get("usage") or {}
        figures = {f: int(usage.get(f) or 0) for f in ChildUsage.__dataclass_fields__}
        return Reply([TextBlock(text)], ChildUsage(**figures), model, result.get("stop_reason"))

    def _answer(self, child: Waiting, stdin: bytes, key: tuple[str, int, str]) -> dict:
        """The child's result event for the request `stdin`. The children for the next requests are started once
        this one has its request (so their start-up does not hold up its own), and its answer is read as soon as
        its result event comes: the child exits on its own time (_reap)."""
        late = threading.Event()

        def stop() -> None:  # a child that hangs is killed: its stdout ends
            late.set()
            child.process.kill()

        timer = threading.Timer(self.timeout, stop)
        timer.start()
        try:
            try:
                assert child.process.stdin is not None and child.process.stdout is not None
                child.process.stdin.write(stdin)
                child.process.stdin.close()
            except OSError:  # it died waiting: its stdout and stderr say why
                pass
            self._top_up(key)
            result = None
            for line in child.process.stdout:  # type: ignore[union-attr]
                event = result_event(line)
                if event is not None:
                    result = event
                    break
        finally:
            timer.cancel()
        if result is None:
            said = child.end()
            if late.is_set():
                raise child_error(408, f"Claude Code gave no answer within {self.timeout:g}s")
            raise child_error(503, f"Claude Code gave no answer (exit {child.process.returncode}): {said}")
        self._reap(child)
        return result

    def _reap(self, child: Waiting) -> None:
        """Let a child that answered exit in the background, then remove its folder (close() ends it if it has not)."""
        with self._lock:
            if self._closed:
                child.end()
                return
            self._ending.add(child)

        def reap() -> None:
            try:
                for _ in child.process.stdout:  # type: ignore[union-attr]  # drained: it never blocks on a full pipe
                    pass
                child.process.wait(timeout=self.timeout)
            except (OSError, ValueError, subprocess.TimeoutExpired):  # ValueError: close() closed its stdout
                pass
            with self._lock:
                if child not in self._ending:
                    return  # close() ended it
                self._ending.discard(child)
            child.end()

        threading.Thread(target=reap, name="plugin-eval-judge-reap", daemon=True).start()

    def _take(self, key: tuple[str, int, str]) -> Waiting:
        """A child for one request of `key` (model, max_tokens, system prompt): the longest-waiting one started
        ahead, else a new one. A child spends most of its time starting (seconds on a busy machine) and little
        answering, so a vote that finds one waiting for its message skips the start."""
        with self._lock:
            ready = self._ready.setdefault(key, [])
            while ready:
                candidate = ready.pop(0)
                if candidate.process.poll() is None:
                    return candidate
                candidate.end()  # it died waiting: its output tells nothing a new child would not
        return self._start(key)

    def _top_up(self, key: tuple[str, int, str]) -> None:
        """Start children ahead for the next requests of `key`: as many as requests are in flight now (the next
        round of votes is about as large as this one — two per grader being judged, for each run being graded at
        once), at least `ahead`, at most `most_ahead`."""
        with self._lock:
            if self._closed:
                return
            ready = self._ready.setdefault(key, [])
            wanted = min(self.most_ahead, max(self.ahead, self._in_flight))
            while len(ready) < wanted:
                try:
                    ready.append(self._start(key))
                except Exception:  # not this request's failure: a request that finds none starts its own
                    return

    def _start(self, key: tuple[str, int, str]) -> Waiting:
        root = Path(tempfile.mkdtemp(prefix="pe-judge-"))
        try:
            argv, env = self._command(root, *key)
            with open(root / STDERR, "wb") as stderr:  # a file: a pipe nobody reads could fill and stall the child
                process = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=self.cwd(), env=env
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


def result_event(line: bytes) -> dict | None:
    """The child's result event, if `line` of its stream-json output is it."""
    if not line.startswith(b"{") or b'"result"' not in line:
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and event.get("type") == "result" else None
