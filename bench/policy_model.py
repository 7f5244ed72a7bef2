"""A stand-in Anthropic Messages API for benchmarks: it answers by what a request holds, not by a script.

One base URL serves a whole session (any path ending in `/v1/messages` or `/v1/messages/count_tokens` is
answered, so `http://127.0.0.1:PORT` and `http://127.0.0.1:PORT/anything` both work). That lets the reference tool
(`claude plugin eval`, one ANTHROPIC_BASE_URL for the session) and our harness talk to the same model.

The policy, first match wins:

- no `tools` in the request (Claude Code's housekeeping, or an LLM judge): "PASS" when the request asks for
  PASS/FAIL, else "ok";
- a tool_result in the user turn(s) after the last assistant message → `SUMMARY: topic N in one line`;
- the skill `bp:summarize` mentioned in the system prompt, the tools, or a non-assistant message (Claude Code
  2.1.3xx lists the available skills in a `system` message) → a `Skill` tool_use with input `{"skill": "bp:summarize"}`;
- otherwise → `Here is a summary of topic N.`

N comes from the last "summary of topic N" in the conversation. Every /v1/messages answer waits `latency`
seconds first (count_tokens does not). Each answer is logged (kind, start, end) so that a benchmark can tell
how long the model kept a run waiting.

    .venv/bin/python bench/policy_model.py [--port 0] [--latency 0]     # serve until Ctrl-C
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

SKILL = "bp:summarize"
TOPIC = re.compile(r"summary of topic (\d+)", re.IGNORECASE)
VERDICT_WORDS = re.compile(r"\bPASS\b[\s\S]*\bFAIL\b|\bFAIL\b[\s\S]*\bPASS\b")


@dataclass(frozen=True)
class Answered:
    """One request the server answered: what kind, and when (time.perf_counter) it came in and was done."""

    kind: str  # "agent-skill", "agent-summary", "agent-text", "judge", "side", "count_tokens", "other"
    started: float
    ended: float

    @property
    def seconds(self) -> float:
        return self.ended - self.started


class PolicyModel:
    """A threaded local HTTP server speaking the Anthropic Messages API by the policy above."""

    def __init__(self, latency: float = 0.0, host: str = "127.0.0.1", port: int = 0) -> None:
        self.latency = latency
        self._address = (host, port)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._log: list[Answered] = []
        self._ids = itertools.count(1)
        self._stopping = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> PolicyModel:
        self._stopping.clear()
        self._server = _Server(self._address, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="policy-model", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> PolicyModel:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the policy model is not running; call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- what it answered ------------------------------------------------------------------------------

    def answered(self, since: float | None = None, until: float | None = None) -> list[Answered]:
        """Answers that started in [since, until] (perf_counter times), oldest first."""
        with self._lock:
            log = list(self._log)
        return [a for a in log if (since is None or a.started >= since) and (until is None or a.started <= until)]

    def counts(self, since: float | None = None) -> dict[str, int]:
        out: dict[str, int] = {}
        for a in self.answered(since):
            out[a.kind] = out.get(a.kind, 0) + 1
        return out

    def clear(self) -> None:
        with self._lock:
            self._log.clear()

    def _record(self, kind: str, started: float) -> None:
        with self._lock:
            self._log.append(Answered(kind, started, time.perf_counter()))

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._ids):06d}"

    def _pause(self) -> None:
        if self.latency > 0:
            self._stopping.wait(self.latency)


# -- the policy ------------------------------------------------------------------------------------------


def _texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def _blocks(message: Any) -> list[dict]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _topic(messages: list) -> str:
    found = None
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user":
            for text in _texts(message.get("content")):
                for match in TOPIC.finditer(text):
                    found = match.group(1)
    return found if found is not None else "?"


def _after_tool_result(messages: list) -> bool:
    """A tool_result among the user turns after the last assistant message."""
    tail = []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            break
        tail.append(message)
    return any(block.get("type") == "tool_result" for message in tail for block in _blocks(message))


def _mentions_skill(body: dict) -> bool:
    if any(SKILL in text for text in _texts(body.get("system"))):
        return True
    if any(SKILL in text for text in _texts(body.get("tools"))):
        return True
    # Claude Code 2.1.3xx lists the available skills in a `system` message (or a user turn's system-reminder).
    return any(
        isinstance(m, dict) and m.get("role") != "assistant" and any(SKILL in t for t in _texts(m.get("content")))
        for m in body.get("messages") or []
    )


def decide(body: dict) -> tuple[str, list[dict]]:
    """(kind, content blocks) answering one Messages request."""
    raw = body.get("messages")
    messages: list = raw if isinstance(raw, list) else []
    if not body.get("tools"):
        asked = "\n".join([*_texts(body.get("system")), *_texts(messages)])
        if VERDICT_WORDS.search(asked):
            return "judge", [{"type": "text", "text": "PASS"}]
        return "side", [{"type": "text", "text": "ok"}]
    topic = _topic(messages)
    if _after_tool_result(messages):
        return "agent-summary", [{"type": "text", "text": f"SUMMARY: topic {topic} in one line"}]
    if _mentions_skill(body):
        return "agent-skill", [{"type": "tool_use", "name": "Skill", "input": {"skill": SKILL}}]
    return "agent-text", [{"type": "text", "text": f"Here is a summary of topic {topic}."}]


# -- the wire ---------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], model: PolicyModel) -> None:
        super().__init__(address, _Handler)
        self.model = model


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120
    disable_nagle_algorithm = True  # small writes on keep-alive connections would wait ~40 ms for ACKs
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send_json(200, {})

    def do_HEAD(self) -> None:
        self._send_json(200, {}, with_body=False)

    def do_POST(self) -> None:
        started = time.perf_counter()
        model = self.server.model
        try:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            path = urlsplit(self.path).path.rstrip("/")
            if not isinstance(body, dict):
                self._send_json(400, _error("invalid_request_error", "the request body must be a JSON object"))
                model._record("other", started)
            elif path.endswith("/v1/messages/count_tokens"):
                self._send_json(200, {"input_tokens": 100})
                model._record("count_tokens", started)
            elif path.endswith("/v1/messages"):
                kind, content = decide(body)
                model._pause()
                message = _message(content, body.get("model"), model._next_id)
                if body.get("stream"):
                    self._send_stream(message)
                else:
                    self._send_json(200, message)
                model._record(kind, started)
            else:
                self._send_json(404, _error("not_found_error", f"the policy model does not serve {path}"))
                model._record("other", started)
        except OSError:
            self.close_connection = True  # the client went away

    def _send_json(self, status: int, body: Any, with_body: bool = True) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_policy")
        self.end_headers()
        if with_body:
            self.wfile.write(data)

    def _send_stream(self, message: dict) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_policy")
        self.end_headers()
        payload = b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in _events(message))
        self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload))
        self.wfile.flush()


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _message(content: list[dict], model: str | None, next_id) -> dict:
    blocks = []
    for block in content:
        if block["type"] == "tool_use":
            block = {**block, "id": next_id("toolu_policy")}
        blocks.append(block)
    uses_tools = any(b["type"] == "tool_use" for b in blocks)
    return {
        "id": next_id("msg_policy"),
        "type": "message",
        "role": "assistant",
        "model": model or "policy-model",
        "content": blocks,
        "stop_reason": "tool_use" if uses_tools else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _events(message: dict) -> Iterator[tuple[str, dict]]:
    """message_start, content_block_start/delta/stop per block, message_delta, message_stop."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        empty: dict[str, Any]
        if block["type"] == "text":
            empty, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the benchmark's policy model until Ctrl-C.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each /v1/messages answer")
    args = parser.parse_args()
    model = PolicyModel(latency=args.latency, port=args.port).start()
    print(f"ANTHROPIC_BASE_URL={model.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        model.stop()


if __name__ == "__main__":
    main()
