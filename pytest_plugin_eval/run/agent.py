"""Starting and supervising the agent under test: the real Claude Code, as `claude -p` in stream-json mode."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..core.errors import HarnessError, UsageError
from ..core.kinds import ErrorKind
from . import partial
from .transcript import Transcript

KILL_GRACE_SECONDS = 3
AUTH_WORDS = re.compile(r"not logged in|authenticat|api key|x-api-key|/login", re.IGNORECASE)
# If this process dies without cleaning up (an xdist worker killed at shutdown), the child dies with it.
DEATH_SIGNAL = ("setpriv", "--pdeathsig", "KILL", "--") if sys.platform == "linux" and shutil.which("setpriv") else ()


class ClaudeNotFound(UsageError):
    """No Claude Code binary where one was looked for; the message says where and what to do."""


class AgentStartError(HarnessError):
    """The run could not start: a missing or broken binary, no sandbox for a granted shell, a failed scaffold."""


def bundled_claude() -> Path | None:
    """The binary shipped inside the claude-agent-sdk wheel, found without importing the SDK (that takes a
    second, which every session would pay before its first run)."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "_bundled" / "claude"
    return path if os.access(path, os.X_OK) else None


def find_claude(explicit: str | None) -> Path:
    """`--claude PATH`, else the bundled binary, else `claude` on PATH."""
    if explicit:
        return Path(explicit)
    found = bundled_claude() or shutil.which("claude")
    if not found:
        raise ClaudeNotFound(
            "Error: no Claude Code binary found — install claude-agent-sdk (it bundles one), "
            "put `claude` on PATH, or pass --claude PATH"
        )
    return Path(found)


@lru_cache(maxsize=8)
def claude_version(path: Path) -> str:
    """`2.1.327` from `claude --version` ('unknown' when it cannot be asked)."""
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.split()[0] if out.split() else "unknown"


@dataclass(frozen=True)
class AgentCommand:
    argv: tuple[str, ...]
    env: dict
    cwd: Path
    prompt: str
    timeout: float


@dataclass(frozen=True)
class ChildExit:
    returncode: int | None
    timed_out: bool
    duration: float
    stderr: str
    stopped: bool = False  # stopped by the harness (a mock aborted the run)
    silent: float = 0.0  # seconds the trace had not grown when the child was stopped (timeout or stop)


POLL_SECONDS = 0.2


def prompt_parts(prompt: str) -> tuple[bytes, bytes]:
    """The prompt's bytes as the child gets them: its first character at once, the rest when its run begins.

    Claude Code (2.1.x, `-p` with a piped prompt) waits 3 s for the first byte of stdin and then gives up ("no
    stdin data received in 3s"), but once a byte has come it reads until the end of input however long that
    takes, and joins what it read: the prompt reaches the model byte for byte as if written at once, in the same
    single-shot session. Stream-json input (`--input-format stream-json`) would wait too, but it makes a
    different session: measured with 2.1.327, the very first request already differs (the Bash tool's
    background time limit, 1800000 ms instead of 600000), and more changes in how background tasks, monitors
    and MCP tasks behave, so it is not used. tests/acceptance/test_prompt_delivery.py compares the requests."""
    data = prompt.encode("utf-8")
    first = len(prompt[:1].encode("utf-8"))  # a whole character: the child decodes what it reads as UTF-8
    return data[:first], data[first:]


# What Claude Code says when it gave up waiting for a piped prompt and then had none ("no stdin data received in
# 3s" first): a run started ahead that missed its prompt, never a run of the case (engine/evaluate.py).
NO_PROMPT_MESSAGE = "Input must be provided either through stdin"


def missed_its_prompt(run) -> bool:
    """Whether an agent run ended because Claude Code had stopped waiting for its prompt (no model call made)."""
    error = getattr(run, "error", None)
    return error is not None and NO_PROMPT_MESSAGE in (error.message or "")


class Child:
    """A `claude -p` child, started before its prompt is given: Claude Code spends part of a run starting up
    (loading itself, reading settings and plugins) before it reads the prompt from stdin, so a run started ahead
    (`Child(...)` while an earlier run works) only has the rest to do when `run()` gives it its prompt. The
    prompt's first character is written at once, so that the child waits for the rest however long its turn
    takes to come (prompt_parts); nothing reaches the model before the end of the prompt.

    Its stdout *is* the trace: written verbatim to `trace_path`. The child gets its own process group so that a
    timeout (or Ctrl-C) stops everything it started."""

    def __init__(self, cmd: AgentCommand, trace_path: Path, stderr_path: Path):
        self.cmd = cmd
        self.started = time.monotonic()
        self.trace_path, self.stderr_path = trace_path, stderr_path
        with open(trace_path, "wb") as out, open(stderr_path, "wb") as err:  # the child writes to its own copies
            self.process = subprocess.Popen(
                [*DEATH_SIGNAL, *cmd.argv],
                cwd=cmd.cwd,
                env=cmd.env,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        self._opening()

    def _opening(self) -> None:
        """What the child gets as soon as it starts: the prompt's first character (prompt_parts)."""
        self._first, self._rest = prompt_parts(self.cmd.prompt)
        self._write(self._first, close=False)

    def _begin(self) -> None:
        """What the child gets when its run begins: the rest of the prompt, and the end of its input."""
        self._write(self._rest, close=True)

    @property
    def age(self) -> float:
        """Seconds since the child was started."""
        return time.monotonic() - self.started

    @property
    def alive(self) -> bool:
        """Whether the child is still running (a child waiting for its prompt should be)."""
        return self.process.poll() is None

    def _write(self, data: bytes, close: bool) -> None:
        stdin = self.process.stdin
        assert stdin is not None  # stdin=PIPE
        try:
            if data:
                stdin.write(data)
                stdin.flush()
            if close:
                stdin.close()
        except (BrokenPipeError, ValueError):  # the child is gone: its exit says why
            if close:
                with contextlib.suppress(OSError):
                    stdin.close()

    def run(
        self,
        should_stop: Callable[[], object] | None = None,
        poll: float = POLL_SECONDS,
        stop_grace: float = KILL_GRACE_SECONDS,
    ) -> ChildExit:
        """Give the child its prompt and supervise it to completion, its time limit (counted from now), or until
        `should_stop()` is truthy (asked every `poll` seconds; then the child has `stop_grace` seconds to exit)."""
        child = self.process
        started = time.monotonic()
        timed_out = stopped = False
        size, grew, silent = 0, started, 0.0  # the trace's size, when it last grew, and for how long it had not
        try:
            self._begin()
            while child.poll() is None:
                try:
                    now_size = self.trace_path.stat().st_size
                except OSError:
                    now_size = size
                if now_size != size:
                    size, grew = now_size, time.monotonic()
                if time.monotonic() - started > self.cmd.timeout:
                    timed_out, silent = True, time.monotonic() - grew
                elif should_stop is not None and should_stop():
                    stopped, silent = True, time.monotonic() - grew
                else:
                    try:
                        child.wait(timeout=poll)
                    except subprocess.TimeoutExpired:
                        pass
                    continue
                stop_group(child, grace=stop_grace if stopped else KILL_GRACE_SECONDS)
                break
        except BaseException:
            stop_group(child)
            raise
        stderr = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        return ChildExit(child.returncode, timed_out, time.monotonic() - started, stderr, stopped, silent)

    def kill(self) -> None:
        """Stop a child that will not be run (its run was not needed, or the session stopped)."""
        stop_group(self.process, grace=0)
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass


def stop_group(child: subprocess.Popen, grace: float = KILL_GRACE_SECONDS) -> None:
    """SIGTERM the child's process group, then SIGKILL what is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            child.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass(frozen=True)
class RunError:
    """Why a run did not end normally. `kind` decides how it counts:
    api/auth (the model could not be reached, or its stream stalled until the run's time limit: infrastructure,
    not the plugin), timeout (the agent, or the model's reply, was still coming at the limit), max_turns, prompt_too_long (the request
    outgrew the model's context — what the agent was given, plugin included, not an outage), refusal (the model
    stopped on `stop_reason: refusal` — the agent's answer was "I won't": graded, never retried), agent (the child
    reported an error), crash (no result at all), start (could not be started), interrupted (the session stopped
    it), sandbox (the OS sandbox of a granted shell did not start: the machine's fault, not graded)."""

    kind: ErrorKind
    message: str
    status: int | None = None

    @property
    def infrastructure(self) -> bool:
        return self.kind in ("api", "auth")

    @property
    def ungraded(self) -> bool:
        """The run says nothing about the plugin: the model was not reached, its shell had no sandbox, Claude Code
        did not load the plugin (start), or the session stopped it."""
        return self.infrastructure or self.kind in ("interrupted", "sandbox", "start")


# Silence: no byte at all from the model — no content, no thinking, not even a ping — while its request is open.
# Only Claude Code sees every byte (a ping never reaches the trace), so it is Claude Code that tells a silent stream
# from a slow one: it drops a stream silent for its byte idle limit and asks again, and says so in the trace. The
# harness sets that limit to a third of the run's time limit, within Claude Code's own bounds (10 s at the least).
SILENCE_MIN_SECONDS, SILENCE_MAX_SECONDS = 10.0, 90.0


def silence_limit(timeout: float) -> float:
    """Seconds of silence with a request open after which the stream counts as stalled (Claude Code's byte idle
    limit, CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS): a third of the run's time limit, from 10 s to 90 s."""
    return min(SILENCE_MAX_SECONDS, max(SILENCE_MIN_SECONDS, timeout / 3))


PROMPT_TOO_LONG = re.compile(r"prompt is too long|context (?:length|window)", re.IGNORECASE)


def awaiting_model(transcript: Transcript) -> bool:
    """Whether the trace ends waiting for the model: after the session started, after tool results, or partway
    through an assistant message (its last block not a tool call, no result line). After a tool call, the agent's
    tool is running instead. Partial-message lines say nothing about that: the reply they stream is in flight."""
    events = [event for event in transcript.events if not partial.is_partial(event)]
    if not events or transcript.result is not None:
        return False
    last = events[-1]
    kind = last.get("type")
    if kind in ("system", "user"):  # the session's start (or a status line), or tool results sent back
        return True
    if kind == "assistant":
        message = last.get("message")
        blocks = message.get("content") if isinstance(message, dict) else None
        last_block = blocks[-1] if isinstance(blocks, list) and blocks else None
        return not (isinstance(last_block, dict) and last_block.get("type") == "tool_use")
    return False


def api_trouble(transcript: Transcript) -> str | None:
    """What Claude Code reported going wrong with the open request since the model last sent something: a retry
    of a failed request, or a stream it dropped for silence (its idle limit) and asked for again."""
    for event in reversed(transcript.events):
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "api_retry":
            status = event.get("error_status")
            cause = f"HTTP {status}: {event.get('error')}" if status else str(event.get("error"))
            return f"the model's API was failing: Claude Code was retrying a request ({cause})"
        if kind == "stream_event":
            if event.get("abandoned_blocks"):
                return "the model's stream stalled: Claude Code dropped it at its idle limit and was asking again"
            return None  # a byte of the reply
        if kind in ("assistant", "user", "result"):
            return None
    return None


def stalled(exit: ChildExit, transcript: Transcript) -> str | None:
    """The evidence that the API stalled, when the time limit struck while a model request was open: Claude Code's
    own retry or dropped-stream events since the model last sent something (it drops a stream silent for
    silence_limit). None for an agent busy until the limit — a model still streaming, slowly or not, or only
    pinging (pings never reach the trace, so a quiet trace alone proves nothing), or the agent's own tool
    running."""
    if not (exit.timed_out and awaiting_model(transcript)):
        return None
    return api_trouble(transcript)


def refused(result: dict) -> bool:
    """Whether the run ended on the model's refusal (`stop_reason: refusal`; Claude Code asks once more first)."""
    return result.get("stop_reason") == "refusal"


def refusal_message(text: str) -> str:
    """What a refused run's error says: that the model refused, then Claude Code's first line (its "API Error:"
    prefix dropped: nothing failed on the way to the model)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = re.sub(r"^API Error:\s*", "", first)
    return "the model refused to answer (stop_reason: refusal)" + (f": {first}" if first else "")


def classify(exit: ChildExit, transcript: Transcript, timeout: float) -> RunError | None:
    if exit.stopped:
        return None  # the harness stopped it on purpose (a mock aborted the run): reported as `aborted`
    if exit.timed_out:
        evidence = stalled(exit, transcript)
        if evidence is not None:
            return RunError("api", f"{evidence}, until the run's time limit ({timeout:g}s) stopped it")
        return RunError("timeout", f"timed out after {timeout:g}s")
    result = transcript.result
    if result is not None:
        if not result.get("is_error") and result.get("subtype") == "success":
            return None
        errors = result.get("errors") or []
        text = (
            errors[0] if errors and isinstance(errors[0], str) else str(result.get("result") or result.get("subtype"))
        )
        message = f"exit {exit.returncode}: {text}"
        if refused(result):
            # Claude Code reports it as an API error, but the model answered: declining is the agent's outcome
            # (what the plugin made of the prompt), graded on what it produced, not an outage to retry.
            return RunError("refusal", f"exit {exit.returncode}: {refusal_message(text)}")
        status = result.get("api_error_status")
        if result.get("terminal_reason") == "prompt_too_long" or (status == 400 and PROMPT_TOO_LONG.search(text)):
            # The request was too long for the model: what the agent was given (a plugin's skills, tools and
            # files included) outgrew its context. That is the run's doing, not an outage: graded as it stands.
            return RunError("prompt_too_long", message, status if isinstance(status, int) else None)
        if isinstance(status, int) or result.get("terminal_reason") == "api_error":
            # Not logged in / a rejected key never reach the model: credentials, not the plugin.
            auth = status in (401, 403) or (status is None and AUTH_WORDS.search(text) is not None)
            return RunError("auth" if auth else "api", message, status if isinstance(status, int) else None)
        if result.get("subtype") == "error_max_turns":
            return RunError("max_turns", message)
        return RunError("agent", message)
    if exit.returncode == 0:
        return RunError("crash", "exit 0: the agent ended without a result line")
    last = [line for line in exit.stderr.strip().splitlines() if line.strip()]
    return RunError("crash", f"exit {exit.returncode}: {last[-1] if last else 'no output'}")
