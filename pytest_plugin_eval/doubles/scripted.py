"""An offline Anthropic Messages API that answers from scripts.

Each agent run or judge gets its own base URL, ``http://127.0.0.1:PORT/s/<token>``;
the token tells the server which script, arm and run a request belongs to.
Clients append ``/v1/messages`` to that base URL as they would for the real API.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import re
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from os import PathLike
from typing import Any
from urllib.parse import urlsplit

from ..core.prices import Usage
from ..load.script import ErrorReply, Script, TextBlock, ThinkingBlock, Turn, text_turn

log = logging.getLogger(__name__)

NO_SCRIPT_REPLY = "(scripted model: this case has no scripted.yaml)"
# A pairwise judge without answers says so — no verdict, so never a silent tie or win.
NO_PAIRWISE_REPLY = "(scripted model: no pairwise: answers in scripted.yaml)"
# A simulated user without replies ends the conversation at once (run/conversation.py's DONE), saying why.
NO_USER_REPLY = "(scripted model: no judge: {user: ...} replies in scripted.yaml) END_CONVERSATION"
# How the endpoint tells the LLM judge's request apart on a session URL: its system prompt says so (grade/judge.py).
JUDGE_MARK = "You grade the output of an AI coding agent"
# ... and an agent mock's (doubles/mcp/server.py's system prompt).
MOCK_MARK = "You are standing in for the MCP server"
EXPIRED_TURN = Turn(
    error=ErrorReply(401, "authentication_error", "OAuth token has expired. Please obtain a new token.")
)
_TOKEN_PATH = re.compile(r"^/s/([^/]+)(/.*)?$")


@dataclass(frozen=True)
class _Route:
    """What one token stands for: an agent run, or one grader's judge calls in a run."""

    kind: str  # "agent", "judge", "pairwise" (grader: the order, run: the pair) or "control" (grader\0control)
    script: Script | None
    arm: str
    run: int
    cwd: str | None = None
    grader: str | None = None
    prompt: str | None = None
    model: str | None = None  # the agent's model (a matrix's), whose own turns the script may give (models:)

    def values(self) -> dict[str, str]:
        values = {"arm": self.arm, "run": str(self.run)}
        if self.cwd is not None:
            values["cwd"] = self.cwd
        if self.model is not None:
            values["model"] = self.model
        return values


class ScriptedEndpoint:
    """A local HTTP server speaking the Anthropic Messages API from scripts."""

    def __init__(self, host: str = "127.0.0.1", keep_bodies: bool = False, expire_after: int | None = None) -> None:
        self._host = host
        self._keep_bodies = keep_bodies  # calls() then has each request's parsed body (tests compare them)
        # A credential that expires mid-session: after this many agent requests, every messages request is refused
        # (401, authentication_error), as the API refuses an expired OAuth access token.
        self._expire_after = expire_after
        self._agent_requests = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._routes: dict[str, _Route] = {}
        self._judge_counts: dict[str, int] = defaultdict(int)
        self._served: dict[tuple, int] = defaultdict(int)
        self._calls: list[dict[str, Any]] = []
        self._counters: dict[str, Iterator[int]] = defaultdict(lambda: itertools.count(1))
        self._cache: dict[tuple[str, str], bool] = {}  # (token, marked prefix) → written (its reply has begun)
        self._stopping = threading.Event()

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> ScriptedEndpoint:
        self._stopping.clear()
        self._server = _Server((self._host, 0), self)
        # A short poll interval keeps stop() quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-endpoint", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # wakes handlers sleeping in a delay or stall
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> ScriptedEndpoint:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the scripted endpoint is not running; call start() first")
        host, port = str(self._server.server_address[0]), self._server.server_address[1]
        return f"http://{host}:{port}"

    # -- registration ------------------------------------------------------

    def agent_url(
        self,
        script: Script | None,
        arm: str = "with",
        run: int = 1,
        cwd: str | PathLike[str] | None = None,
        prompt: str | None = None,
        model: str | None = None,
    ) -> str:
        """The ANTHROPIC_BASE_URL for one agent run. With `prompt`, turns are counted from the user message
        that holds it, so a run that resumes an earlier conversation starts at the script's first turn. `model`:
        the run's model, whose own turns (the script's `models:`) answer it."""
        cwd_text = None if cwd is None else str(cwd)
        return self._register(_Route("agent", script, arm, run, cwd=cwd_text, prompt=prompt, model=model))

    def judge_url(self, script: Script | None, grader: str, arm: str = "with", run: int = 1) -> str:
        """The base URL for one grader's judge calls in one run."""
        return self._register(_Route("judge", script, arm, run, grader=grader))

    def user_url(self, script: Script | None, arm: str = "with", run: int = 1) -> str:
        """The base URL for one run's simulated user (a case's `user:`), answered in turn from the script's
        `judge: {user: [...]}` replies (by arm and run when given so), and once they are used up from the last."""
        return self._register(_Route("user", script, arm, run, grader="user"))

    def pairwise_url(self, script: Script | None, order: str, pair: int) -> str:
        """The base URL for one `compare --pairwise` judge call: pair `pair` of a case, shown in `order`
        (old_first or new_first), answered from the script's `pairwise:` replies."""
        return self._register(_Route("pairwise", script, "with", pair, grader=order))

    def control_url(self, script: Script | None, grader: str, control: str) -> str:
        """The base URL for one control asked of a grader's judge (`plugin-eval calibrate --controls --scripted`),
        answered from the script's `controls:` (FAIL when it has none)."""
        return self._register(_Route("control", script, "with", 1, grader=f"{grader}\0{control}"))

    def session_url(self, script: Script | None = None) -> str:
        """One base URL for a whole session pointed at the endpoint as at the real API (ANTHROPIC_BASE_URL, no
        --scripted): a request with tools is the agent's (the script's `with` turns, both arms alike), one whose
        system prompt is the LLM judge's is a vote (the script's `default` judge replies, else PASS — counted per judge
        prompt, so graders judged at once get theirs whatever order they ask in), an agent mock's is answered from
        the script's `mock` judge replies, any other is Claude Code's housekeeping."""
        return self._register(_Route("session", script, "with", 1, grader="default"))

    def _register(self, route: _Route) -> str:
        token = secrets.token_hex(8)
        with self._lock:
            self._routes[token] = route
        return f"{self.url}/s/{token}"

    def calls(self, kind: str | None = None, token: str | None = None) -> list[dict[str, Any]]:
        """Logged requests, oldest first; ``token`` may also be a URL from agent_url/judge_url. With
        `keep_bodies`, a messages request's entry has its parsed JSON body under "body"."""
        if token is not None:
            token = token.rstrip("/").rsplit("/s/", 1)[-1]
        with self._lock:
            return [
                dict(call)
                for call in self._calls
                if (kind is None or call["kind"] == kind) and (token is None or call["token"] == token)
            ]

    # -- used by the request handler ----------------------------------------

    def _route(self, token: str | None) -> _Route | None:
        with self._lock:
            return self._routes.get(token) if token else None

    def _record(
        self,
        kind: str,
        token: str | None,
        route: _Route | None,
        model: str | None,
        path: str,
        body: Any = None,
        auth: str | None = None,
    ) -> None:
        entry = {
            "kind": kind,
            "token": token,
            "arm": route.arm if route else None,
            "run": route.run if route else None,
            "grader": route.grader if route else None,
            "model": model,
            "path": path,
            "auth": auth,  # a hash of the credential the request was signed with (tests compare it, never the value)
        }
        if self._keep_bodies:
            entry["body"] = body
        with self._lock:
            self._calls.append(entry)

    def _reply(self, token: str, route: _Route, body: dict[str, Any]) -> tuple[str, Turn]:
        """The kind of a messages request and the turn that answers it."""
        if route.kind == "judge":
            return "judge", self._judge_reply(token, route)
        if route.kind == "user":
            if route.script is None or not (route.script.judge.get("user") or route.script.judge_by_arm.get("user")):
                return "judge", text_turn(NO_USER_REPLY)
            return "judge", self._judge_reply(token, route)
        if route.kind == "control":
            grader, _, control = (route.grader or "").partition("\0")
            answer = route.script.control_reply(grader, control) if route.script else text_turn("FAIL")
            return "judge", answer.substitute(route.values())
        if route.kind == "session" and not body.get("tools"):
            system = _system_text(body)
            if JUDGE_MARK in system:  # counted per judge prompt: a run's judges asked at once, in any order
                return "judge", self._judge_reply(token, route, counted=f"{token}\0{_prompt_key(body)}")
            if MOCK_MARK in system:  # an agent mock asking its model: the script's `mock` judge replies
                return "mock", self._judge_reply(token, replace(route, grader="mock"), counted=f"{token}\0mock")
            return "side", text_turn("ok")
        if route.kind == "pairwise":
            turn = route.script.pairwise_reply(route.grader or "", route.run) if route.script else None
            return "judge", (turn or text_turn(NO_PAIRWISE_REPLY)).substitute(route.values())
        # Claude Code also calls the model for housekeeping (titles, summaries);
        # those come without tools and must not consume the agent's turns.
        if not body.get("tools"):
            return "side", text_turn("ok")
        return "agent", self._agent_turn(route, body)

    def _expired(self, kind: str) -> bool:
        """Whether this request comes after the credential expired (`expire_after` agent requests were answered)."""
        if self._expire_after is None:
            return False
        with self._lock:
            if kind == "agent":
                self._agent_requests += 1
                return self._agent_requests > self._expire_after
            return self._agent_requests >= self._expire_after + 1

    def _agent_turn(self, route: _Route, body: dict[str, Any]) -> Turn:
        """The reply to the agent's request after `k` assistant turns: step k of the script. A step's faulty
        turns (errors, dropped or stalled streams) are served to successive requests — retries land on the
        same step — and then its reply. Counted per run, so a re-run of the whole run continues the count."""
        if route.script is None:
            return text_turn(NO_SCRIPT_REPLY)
        index = _turn_index(body.get("messages") or [], route.prompt)
        steps = _steps(route.script.turns(route.arm, route.run, route.model))
        if index >= len(steps):
            return text_turn(f"(scripted model: no turn {index + 1} in the script for the {route.arm} arm)")
        faults, reply = steps[index]
        with self._lock:
            key = (id(route.script), route.arm, route.run, index, route.model)
            served = self._served[key]
            self._served[key] += 1
        if served < len(faults):
            return faults[served].substitute(route.values())
        if reply is None:
            return text_turn(f"(scripted model: no turn {index + 1} in the script for the {route.arm} arm)")
        return reply.substitute(route.values())

    def _judge_reply(self, token: str, route: _Route, counted: str | None = None) -> Turn:
        key = counted or token  # whose replies are counted: one grader's (a token), or a session URL's mocks
        with self._lock:
            index = self._judge_counts[key]
            self._judge_counts[key] += 1
        if route.script is None:
            replies: tuple[Turn, ...] = (text_turn("PASS"),)
        else:
            replies = route.script.judge_replies(route.grader or "default", route.arm, route.run)
        return replies[min(index, len(replies) - 1)].substitute(route.values())

    def _cache_usage(self, token: str, body: dict[str, Any], usage: Usage) -> tuple[Usage, Callable[[], None]]:
        """Prompt caching as the API does it, for a judge's request that marks `cache_control`: the marked prefix is
        written to the cache by the first request (cache-creation tokens) and read by the later requests on the
        same judge URL (one grader in one run) that come once that reply has begun (cache-read tokens); a request that arrives while the
        writing one is still unanswered writes it again. The turn's input tokens stand for the prefix. Returns
        the usage and what to call once the reply is sent. A script's own cache figures are served as given."""
        prefix = _marked_prefix(body)
        if prefix is None or usage.cache_read_input_tokens or usage.cache_creation_input_tokens:
            return usage, _nothing
        key = (token, prefix)
        with self._lock:
            written = self._cache.setdefault(key, False)
        tokens = usage.input_tokens
        if written:
            return replace(usage, input_tokens=0, cache_read_input_tokens=tokens), _nothing

        def begun() -> None:
            with self._lock:
                self._cache[key] = True

        return replace(usage, input_tokens=0, cache_creation_input_tokens=tokens), begun

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._counters[prefix])}"

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # so neither stop() nor interpreter exit waits on open connections
    request_queue_size = 128  # the default backlog of 5 refuses connections when many runs and judges ask at once

    def __init__(self, address: tuple[str, int], endpoint: ScriptedEndpoint) -> None:
        super().__init__(address, _Handler)
        self.endpoint = endpoint


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120  # reap idle keep-alive connections
    disable_nagle_algorithm = True  # small replies on keep-alive connections would otherwise wait ~40 ms for ACKs
    server: _Server

    def do_GET(self) -> None:
        self._safely(lambda: self._answer_probe(with_body=True))

    def do_HEAD(self) -> None:
        self._safely(lambda: self._answer_probe(with_body=False))

    def do_POST(self) -> None:
        self._safely(self._answer_post)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: requests are logged for calls() instead of printed."""

    # -- dispatch ------------------------------------------------------------

    def _safely(self, answer: Callable[[], None]) -> None:
        """Run a handler so that failures become a 500 instead of a hung client."""
        self._headers_sent = False
        try:
            answer()
        except OSError:
            self.close_connection = True  # the client went away
        except Exception as exc:
            log.exception("scripted endpoint: handler failed for %s %s", self.command, self.path)
            self.close_connection = True
            if not self._headers_sent:
                self._send_json(500, _error_body("api_error", f"scripted endpoint failed: {exc!r}"))

    def _answer_probe(self, with_body: bool) -> None:
        token, _ = _split_path(self.path)
        route = self.server.endpoint._route(token)
        self.server.endpoint._record("side" if route else "unknown", token, route, None, self.path)
        self._send_json(200, {}, with_body=with_body)

    def _answer_post(self) -> None:
        endpoint = self.server.endpoint
        body = self._read_json()
        token, rest = _split_path(self.path)
        route = endpoint._route(token)
        model = body.get("model") if isinstance(body, dict) else None
        if route is None or token is None:
            endpoint._record("unknown", token, None, model, self.path)
            self._send_json(404, _error_body("not_found_error", _unknown_token_message(token)))
            return
        if not isinstance(body, dict):
            endpoint._record("side", token, route, None, self.path)
            self._send_json(400, _error_body("invalid_request_error", "the request body must be a JSON object"))
            return
        if rest != "/v1/messages":
            endpoint._record("side", token, route, model, self.path)
            if rest == "/v1/messages/count_tokens":
                self._send_json(200, {"input_tokens": 100})
            else:
                self._send_json(404, _error_body("not_found_error", f"the scripted endpoint does not serve {rest}"))
            return

        kind, turn = endpoint._reply(token, route, body)
        if endpoint._expired(kind):
            turn = EXPIRED_TURN
        endpoint._record(kind, token, route, model, self.path, body, auth=self._auth_hash())
        endpoint._pause(turn.delay)
        if turn.error is not None:
            headers = {"retry-after": f"{turn.error.retry_after:g}"} if turn.error.retry_after is not None else {}
            self._send_json(turn.error.status, _error_body(turn.error.type, turn.error.message), headers=headers)
            return
        # judges only: the agent's figures (and so the cost Claude Code reports) stay what the script says
        usage, begun = endpoint._cache_usage(token, body, turn.usage) if kind == "judge" else (turn.usage, _nothing)
        message = _message(replace(turn, usage=usage), model, endpoint._next_id, body.get("max_tokens"))
        if body.get("stream"):
            self._send_stream(message, turn)
        else:
            endpoint._pause(turn.stall)  # a reply that is not streamed stalls as a whole (Claude Code's fallback)
            self._send_json(200, message)
        begun()

    def _auth_hash(self) -> str | None:
        """The request's credential (a bearer token, else an API key), hashed: which sign-in it carried."""
        value = self.headers.get("authorization") or self.headers.get("x-api-key")
        if not value:
            return None
        return auth_hash(value.removeprefix("Bearer ").strip())

    # -- wire --------------------------------------------------------------

    def _read_json(self) -> Any:
        """The request body parsed as JSON, or None when it is missing or not JSON."""
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw)
        except ValueError:
            return None

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None, with_body: bool = True) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self._headers_sent = True
        if with_body:
            self.wfile.write(data)

    def _send_stream(self, message: dict[str, Any], turn: Turn) -> None:
        # Chunked encoding lets `drop` end the body visibly early, as a real dropped connection would.
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._headers_sent = True
        events = _stream_events(message)
        self._send_chunk(_sse(*next(events)))  # message_start
        self._wait(turn)
        if turn.drop:
            self.close_connection = True  # no terminating chunk: the client sees a broken stream
            return
        for event in events:
            for piece in _trickled(event) if turn.trickle else (event,):
                self.server.endpoint._pause(turn.trickle)
                self._send_chunk(_sse(*piece))
        self._send_chunk(b"")

    def _wait(self, turn: Turn) -> None:
        """A stall after message_start: silent, or (`pings`) a ping event every so often, as the API keeps a
        stream alive while the model works."""
        if not turn.pings:
            self.server.endpoint._pause(turn.stall)
            return
        end = time.monotonic() + turn.stall
        self._send_chunk(_sse("ping", {"type": "ping"}))
        while (left := end - time.monotonic()) > 0 and not self.server.endpoint._stopping.is_set():
            self.server.endpoint._pause(min(turn.pings, left))
            if end - time.monotonic() > 0:
                self._send_chunk(_sse("ping", {"type": "ping"}))

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def _prompt_key(body: dict[str, Any]) -> str:
    """What tells one judge prompt from another: the votes of a grader share it, other graders' differ."""
    return hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()[:16]


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "".join(block.get("text", "") for block in system if isinstance(block, dict))
    return system if isinstance(system, str) else ""


def auth_hash(credential: str) -> str:
    """What calls() records for a request signed with `credential`."""
    return hashlib.sha256(credential.encode()).hexdigest()[:16]


def _message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def _turn_index(messages: list, prompt: str | None) -> int:
    """Assistant messages since the run's prompt (all of them when the prompt is not found)."""
    start = 0
    if prompt:
        for i in range(len(messages) - 1, -1, -1):
            message = messages[i]
            if isinstance(message, dict) and message.get("role") == "user" and prompt.strip() in _message_text(message):
                start = i
                break
    return sum(1 for m in messages[start:] if isinstance(m, dict) and m.get("role") == "assistant")


def _faulty(turn: Turn) -> bool:
    return turn.error is not None or turn.drop or turn.stall > 0


def _steps(turns: tuple[Turn, ...]) -> list[tuple[list[Turn], Turn | None]]:
    """Group turns into steps: the faulty turns before each reply, and the reply (None after trailing faults)."""
    steps: list[tuple[list[Turn], Turn | None]] = []
    faults: list[Turn] = []
    for turn in turns:
        if _faulty(turn):
            faults.append(turn)
        else:
            steps.append((faults, turn))
            faults = []
    if faults:
        steps.append((faults, None))
    return steps


def _split_path(raw_path: str) -> tuple[str | None, str]:
    """``/s/<token>/v1/messages?beta=true`` -> (token, "/v1/messages")."""
    path = urlsplit(raw_path).path
    match = _TOKEN_PATH.match(path)
    if not match:
        return None, path
    return match.group(1), (match.group(2) or "").rstrip("/")


def _unknown_token_message(token: str | None) -> str:
    if token is None:
        return "no scripted token in the URL; use a base URL from ScriptedEndpoint.agent_url() or judge_url()"
    return f"unknown scripted token {token!r}; use a base URL from agent_url() or judge_url() of this running endpoint"


def _nothing() -> None:
    pass


def _marked_prefix(body: dict[str, Any]) -> str | None:
    """The request up to its last `cache_control` mark, in the API's order (tools, system, messages), as
    canonical JSON; None when nothing is marked."""
    blocks: list[Any] = []
    for part in (body.get("tools"), body.get("system"), *(body.get("messages") or [])):
        content = part.get("content") if isinstance(part, dict) and "role" in part else part
        blocks += [part.get("role")] if content is not part else []
        blocks += content if isinstance(content, list) else [content]
    marked = [i for i, block in enumerate(blocks) if isinstance(block, dict) and block.get("cache_control")]
    return json.dumps(blocks[: marked[-1] + 1], sort_keys=True) if marked else None


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


# About four characters a token: how much text a request's max_tokens lets a reply hold before it is cut.
CHARS_PER_TOKEN = 4


def _message(turn: Turn, model: str | None, next_id: Callable[[str], str], max_tokens: Any = None) -> dict[str, Any]:
    """The full Messages API reply for a (non-error) turn. Its text is cut where the request's `max_tokens` runs out
    (about CHARS_PER_TOKEN characters a token), and the reply then stops on max_tokens, as the API's would."""
    content: list[dict[str, Any]] = []
    budget = max_tokens * CHARS_PER_TOKEN if isinstance(max_tokens, int) and max_tokens > 0 else None
    cut = False
    for block in turn.blocks:
        if cut:
            break
        if isinstance(block, (TextBlock, ThinkingBlock)):
            field = "text" if isinstance(block, TextBlock) else "thinking"
            text = block.text if isinstance(block, TextBlock) else block.thinking
            if budget is not None:
                cut, text = len(text) > budget, text[:budget]
                budget -= len(text)
            content.append({"type": field, field: text, **({"signature": "scripted"} if field == "thinking" else {})})
        else:
            tool_id = next_id("toolu_scripted")
            content.append({"type": "tool_use", "id": tool_id, "name": block.name, "input": dict(block.input)})
    uses_tools = any(block["type"] == "tool_use" for block in content)
    return {
        "id": next_id("msg_scripted"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "max_tokens" if cut else turn.stop or ("tool_use" if uses_tools else "end_turn"),
        "stop_sequence": None,
        "usage": _usage_json(turn.usage),
    }


def _usage_json(usage: Usage) -> dict[str, int]:
    """The API's usage object: input and output tokens always, cache tokens when there are any (an absent
    field and a 0 cost Claude Code the same)."""
    out = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    for name in ("cache_read_input_tokens", "cache_creation_input_tokens"):
        if getattr(usage, name):
            out[name] = getattr(usage, name)
    return out


def _stream_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events that stream ``message``, in API order."""
    usage = message["usage"]
    # Output tokens arrive with message_delta (cumulative), as the real API reports them.
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        empty: dict[str, Any]
        if block["type"] == "text":
            empty = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        elif block["type"] == "thinking":
            empty = {"type": "thinking", "thinking": "", "signature": ""}
            delta = {"type": "thinking_delta", "thinking": block["thinking"]}
            yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            signature = {"type": "signature_delta", "signature": block["signature"]}
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": signature}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
            continue
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": usage,
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _trickled(event: tuple[str, dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A content delta as one delta per character (other events as they are)."""
    name, data = event
    delta = data.get("delta") or {}
    field = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}.get(
        str(delta.get("type"))
    )
    if name != "content_block_delta" or field is None or not delta[field]:
        yield event
        return
    for char in delta[field]:
        yield name, {**data, "delta": {**delta, field: char}}


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
