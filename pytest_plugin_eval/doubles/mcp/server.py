"""The stand-in MCP server: answers one mocked server's tool calls during an eval run.

Run as `python -m pytest_plugin_eval.mocks.server CONFIG.json`; Claude Code starts it through `--mcp-config`
under the real server's registered name, so the agent sees the tools it would see in real use. It speaks
MCP over stdio (newline-delimited JSON-RPC 2.0) and answers each `tools/call` from the config's responders:

- `expect:` guards first: a violation aborts the run (the harness watches the call log and stops the agent);
- a fixed responder renders its body (templates.py);
- an agent responder replays a recording when one matches, else asks a small model to play the server,
  and records the answer so that it can be replayed next time.

Every call is appended to the run's call log (JSON lines). Start-up stays fast: `anthropic` is imported
only when a model is actually called.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from ...core.prices import Usage, price
from .expect import check
from .templates import TemplateError, render

try:  # serializes appends of several stand-in processes sharing one call log
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

DEFAULT_PROTOCOL_VERSION = "2025-06-18"
MAX_TOKENS = 1024

# JSON-RPC error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass
class Answer:
    """The result of one tool call, and what the call log says about it."""

    text: str
    is_error: bool = False
    verdict: str = "ok"  # "ok" | "tool_error" | "abort"
    replay: str | None = None  # "hit" | "miss" | "stale" | None
    cost_usd: float = 0.0
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # reason, staleRecording, agentError


def abort(reason: str) -> Answer:
    """An answer that stops the run: the agent sees an error, the harness sees the verdict."""
    return Answer(f"aborted by the eval harness: {reason}", True, "abort", extra={"reason": reason})


def tool_error(text: str) -> Answer:
    return Answer(text, True, "tool_error")


# -- the call log ----------------------------------------------------------------------------------------


class CallLog:
    """Appends one JSON line per call, flushed at once; locked so concurrent writers never interleave."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()

    def append(self, entry: Mapping[str, Any]) -> None:
        if self.path is None:
            return
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            if fcntl is not None:
                fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
            f.write(line)
            f.flush()


# -- agent responders ------------------------------------------------------------------------------------


def replay_key(input: Mapping[str, Any]) -> str:
    """The recording key of a call: sha256 of its input as canonical JSON."""
    canonical = json.dumps(input, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def description_sha(description: str, abort_when: str | None) -> str:
    """What a recording was made for: a changed description makes it stale."""
    text = description + ("\n" + abort_when if abort_when else "")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def system_prompt(server: str, description: str, abort_when: str | None) -> str:
    lines = [
        f'You are standing in for the MCP server "{server}" inside an automated evaluation of an AI agent. '
        "The agent has just called one of the server's tools.",
        "Answer exactly as the real server would: reply with only the tool's result, with no commentary, "
        "no explanation and no markdown fences around it.",
        "If the real server would report a failure for this call, reply `ERROR: <message>` instead.",
    ]
    if abort_when:
        lines.append(
            "If the call matches any of the following conditions, reply `ABORT: <reason>` instead, "
            f"and nothing else:\n{abort_when}"
        )
    lines.append(f"\nThe server:\n{description}")
    return "\n".join(lines)


def user_turn(tool: str, input: Mapping[str, Any]) -> str:
    return f"Current call: {tool}\nArguments:\n{json.dumps(input, indent=2, ensure_ascii=False)}"


def interpret_reply(text: str, server: str, tool: str) -> Answer:
    """The model's reply as a tool answer: `ERROR:` → a tool error, `ABORT:` → an abort, else the result."""
    stripped = text.strip()
    if stripped.startswith("ERROR:"):
        return tool_error(stripped[len("ERROR:") :].strip())
    if stripped.startswith("ABORT:"):
        return abort(f"the mock agent for {server}/{tool} aborted: {stripped[len('ABORT:') :].strip()}")
    return Answer(stripped)


class AgentResponder:
    """Tools played by a small model, with replay of earlier recordings and recording of new answers."""

    def __init__(self, server: str, agent: Mapping[str, Any], client_factory: Callable[[], Any] | None = None):
        self.server = server
        self.agent = agent
        self._client_factory = client_factory or self._anthropic_client
        self._client: Any = None

    def answer(self, tool: str, spec: Mapping[str, Any], input: Mapping[str, Any]) -> Answer:
        key = replay_key(input)
        sha = description_sha(spec["description"], spec.get("abortWhen"))
        replay, stale = self._replay(tool, key, sha)
        if isinstance(replay, Answer):
            return replay
        answer = self._live(tool, spec, input)
        answer.replay = replay
        if stale:
            answer.extra["staleRecording"] = stale
        if answer.verdict != "abort" and not answer.extra.get("agentError"):
            self._record(tool, key, sha, input, answer)
        return answer

    def _replay(self, tool: str, key: str, sha: str) -> tuple[Answer | str | None, str | None]:
        """A replayed answer, or the replay status ("miss", "stale", None) and a stale file's name."""
        replay_dir = self.agent.get("replayDir")
        if not replay_dir:
            return None, None
        path = Path(replay_dir) / f"{tool}-{key}.json"
        if not path.is_file():
            return "miss", None
        try:
            recording = json.loads(path.read_text(encoding="utf-8"))
            output, verdict, recorded_sha = recording["output"], recording.get("verdict"), recording["descriptionSha"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _warn(f"ignoring unreadable recording {path}: {exc}")
            return "miss", None
        if recorded_sha != sha:
            return "stale", path.name
        is_error = verdict == "tool_error"
        return Answer(str(output), is_error, "tool_error" if is_error else "ok", replay="hit"), None

    def _live(self, tool: str, spec: Mapping[str, Any], input: Mapping[str, Any]) -> Answer:
        model = self.agent["model"]
        try:
            if self._client is None:
                self._client = self._client_factory()
            reply = self._client.messages.create(
                model=model,
                max_tokens=MAX_TOKENS,
                system=system_prompt(self.server, spec["description"], spec.get("abortWhen")),
                messages=[{"role": "user", "content": user_turn(tool, input)}],
            )
        except Exception as exc:  # any failure becomes a tool error the agent can react to
            _warn(f"the mock agent for {self.server}/{tool} failed: {exc!r}")
            answer = tool_error(f"the mock agent could not answer: {exc or type(exc).__name__}")
            answer.extra["agentError"] = True
            answer.model = model
            return answer
        text = "".join(getattr(block, "text", "") for block in reply.content if block.type == "text")
        answer = interpret_reply(text, self.server, tool)
        answer.cost_usd = price(model, Usage.of_reply(reply.usage))
        answer.model = model
        return answer

    def _record(self, tool: str, key: str, sha: str, input: Mapping[str, Any], answer: Answer) -> None:
        """Write the answer where copying it into `.replay/` makes the next run replay it."""
        record_dir = self.agent.get("recordDir")
        if not record_dir:
            return
        recording = {
            "input": input,
            "output": answer.text,
            "verdict": answer.verdict,
            "recordedAt": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "model": answer.model,
            "descriptionSha": sha,
        }
        path = Path(record_dir) / f"{tool}-{key}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            partial.write_text(json.dumps(recording, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            os.replace(partial, path)  # readers never see half a recording
        except OSError as exc:
            _warn(f"could not record {path}: {exc}")

    def _anthropic_client(self) -> Any:
        """The client the session's judges would have (core/model_client.py): the API's own where the session asks it
        directly, else (`claude` in the agent settings: a Claude Code login, a setup token, a cloud provider) a Claude
        Code child — either signed in as the run that started this server, by the variables the run left in its
        `modelEnv` file (Claude Code hands an MCP server none of them)."""
        from ...core.model_client import model_client  # imported late: most servers never call a model

        model_env = self.agent.get("modelEnv")
        signed = json.loads(Path(model_env).read_text(encoding="utf-8")) if model_env else {}
        claude = self.agent.get("claude")
        return model_client(
            Path(claude) if claude else None,
            {**os.environ, **signed},
            base_url=self.agent.get("baseUrl") or None,
            max_retries=2,
        )

    def close(self) -> None:
        """Close the model client's connections, if one was made (not left to the garbage collector)."""
        close = getattr(self._client, "close", None)
        if close is not None:
            close()


# -- the server ------------------------------------------------------------------------------------------


class MockServer:
    """Answers the JSON-RPC messages of one MCP client from a stand-in config."""

    def __init__(self, config: Mapping[str, Any], agent_client_factory: Callable[[], Any] | None = None) -> None:
        self.config = config
        self.name: str = config["server"]
        self.responders: Mapping[str, Mapping[str, Any]] = config.get("responders") or {}
        self.log = CallLog(config.get("callLog"))
        self.abort_hold = float(config.get("abortHoldSeconds", 0))
        agent = config.get("agent")
        self.agent = AgentResponder(self.name, agent, agent_client_factory) if agent else None

    def __enter__(self) -> MockServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.agent is not None:
            self.agent.close()

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The reply to one message: None for notifications and for responses the client sends us."""
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "Invalid Request: expected a JSON object")
        request_id, method = message.get("id"), message.get("method")
        if not isinstance(method, str):
            if "result" in message or "error" in message:
                return None  # a reply to a request we never send; nothing to answer
            return _error(request_id, INVALID_REQUEST, "Invalid Request: no method")
        if "id" not in message:
            return None  # a notification (initialized, cancelled, ...)
        try:
            return self._dispatch(request_id, method, message.get("params"))
        except Exception as exc:  # keep serving whatever happens to one request
            _warn(f"request {method} failed:\n{traceback.format_exc()}")
            return _error(request_id, INTERNAL_ERROR, f"the mock server failed: {exc!r}")

    def _dispatch(self, request_id: Any, method: str, params: Any) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        if method == "initialize":
            return _result(
                request_id,
                {
                    "protocolVersion": params.get("protocolVersion") or DEFAULT_PROTOCOL_VERSION,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": f"plugin-eval-mock:{self.name}", "version": "1"},
                },
            )
        if method == "tools/list":
            return _result(request_id, {"tools": self.config.get("tools") or []})
        if method == "tools/call":
            return self._tools_call(request_id, params)
        return _result(request_id, {})  # ping, server/discover probes and anything else

    def _tools_call(self, request_id: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            return _error(request_id, INVALID_PARAMS, "tools/call needs a tool name")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return _error(request_id, INVALID_PARAMS, "tools/call arguments must be an object")
        answer = self.call_tool(name, arguments)
        if answer is None:
            _warn(f"the agent called {name}, which {self.name} does not mock")
            return _error(request_id, INVALID_PARAMS, f"No such tool: {name}")
        return _result(request_id, {"content": [{"type": "text", "text": answer.text}], "isError": answer.is_error})

    def call_tool(self, name: str, input: Mapping[str, Any]) -> Answer | None:
        """Answer one call and log it; None for a tool this server does not mock."""
        spec = self.responders.get(name)
        if spec is None:
            return None
        answer = self._answer(name, spec, input)
        entry = {
            "server": self.name,
            "tool": f"{self.config.get('toolPrefix', '')}{name}",
            "input": input,
            "output": answer.text,
            "isError": answer.is_error,
            "verdict": answer.verdict,
            "responder": spec["kind"],
            "replay": answer.replay,
            "costUsd": answer.cost_usd,
            "model": answer.model,
            **answer.extra,
        }
        self.log.append(entry)
        if answer.verdict == "abort":
            # Hold the answer: the harness sees the logged abort and stops the agent before it acts on the reply.
            time.sleep(self.abort_hold)
        return answer

    def _answer(self, name: str, spec: Mapping[str, Any], input: Mapping[str, Any]) -> Answer:
        problem = check(spec.get("guards") or [], input)
        if problem is not None:
            return abort(f"the model's call violates expect: {problem}")
        if spec["kind"] == "fixed":
            try:
                text = render(spec["body"], input, spec["baseDir"])
            except TemplateError as exc:
                return tool_error(str(exc))
            return Answer(text, True, "tool_error") if spec.get("isError") else Answer(text)
        if self.agent is None:
            return tool_error(f"the mock for {self.name}/{name} is played by a model, but no model is configured")
        return self.agent.answer(name, spec, input)


def _result(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _warn(message: str) -> None:
    print(f"plugin-eval mock server: {message}", file=sys.stderr, flush=True)


# -- stdio -----------------------------------------------------------------------------------------------


def serve(server: MockServer, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer one JSON message per line until stdin ends; only replies ever go to stdout."""
    for raw in iter(stdin.readline, b""):
        if not raw.strip():
            continue
        try:
            message = json.loads(raw)
        except ValueError as exc:
            reply: dict[str, Any] | None = _error(None, PARSE_ERROR, f"Parse error: {exc}")
        else:
            reply = server.handle(message)
        if reply is not None:
            stdout.write(json.dumps(reply).encode("utf-8") + b"\n")
            stdout.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        _warn("usage: python -m pytest_plugin_eval.mocks.server CONFIG.json")
        return 2
    try:
        config = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _warn(f"cannot read the config {args[0]}: {exc}")
        return 2
    try:
        with MockServer(config) as server:
            serve(server, sys.stdin.buffer, sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the client went away
    return 0


if __name__ == "__main__":
    sys.exit(main())
