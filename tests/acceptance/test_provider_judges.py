"""A judge on a cloud provider asks through Claude Code: the request each provider's client sends, against a local
endpoint given as the provider's base URL (Claude Code's CLAUDE_CODE_SKIP_*_AUTH leave the cloud sign-in out).
Vertex and Foundry speak the Messages API's stream, so the vote comes back; Bedrock's answer is an AWS event stream
that a plain local server does not speak, so only its request is checked."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pytest_plugin_eval.grade.clients import judge_client
from pytest_plugin_eval.grade.judge import Judge, JudgeUnavailable
from pytest_plugin_eval.run.access import detect
from pytest_plugin_eval.run.agent import bundled_claude

CLAUDE = bundled_claude()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason="needs the bundled Claude Code")
MODEL = "claude-haiku-4-5"


class Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict] = []

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append({"path": self.path})
        self._send(200, "application/json", b"{}")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        self.seen.append({"path": self.path, "body": body})
        message: dict = {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        events = [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "PASS"}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        data = b"".join(f"event: {e}\ndata: {json.dumps(d)}\n\n".encode() for e, d in events)
        self._send(200, "text/event-stream", data)

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def endpoint():
    Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def ask(environ: dict[str, str]) -> tuple[str, float]:
    client = judge_client(detect(environ), CLAUDE, 60, environ)
    try:
        return Judge(MODEL, lambda grader: client, sleep=lambda s: None).ask("g", [{"type": "text", "text": "Did it?"}])
    finally:
        client.close()


def base(tmp_path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}


def judged(path_part: str) -> dict:
    """The request(s) that reached the provider's path: each carries no tools. Returns the first one's body."""
    bodies = [r["body"] for r in Recorder.seen if path_part in r["path"]]
    assert bodies, Recorder.seen
    assert all(not body.get("tools") for body in bodies)  # a judge request carries no tools
    return bodies[0]


def test_a_vertex_judge_asks_through_claude_code(endpoint, tmp_path):
    environ = {
        **base(tmp_path),
        "CLAUDE_CODE_USE_VERTEX": "1",
        "ANTHROPIC_VERTEX_BASE_URL": endpoint,
        "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1",
        "ANTHROPIC_VERTEX_PROJECT_ID": "proj",
        "CLOUD_ML_REGION": "us-east5",
    }
    text, cost = ask(environ)
    assert text == "PASS" and cost > 0
    judged(f"/projects/proj/locations/us-east5/publishers/anthropic/models/{MODEL}:streamRawPredict")


def test_a_foundry_judge_asks_through_claude_code(endpoint, tmp_path):
    environ = {
        **base(tmp_path),
        "CLAUDE_CODE_USE_FOUNDRY": "1",
        "ANTHROPIC_FOUNDRY_BASE_URL": endpoint,
        "CLAUDE_CODE_SKIP_FOUNDRY_AUTH": "1",
    }
    text, _ = ask(environ)
    assert text == "PASS"
    assert judged("/v1/messages")["model"] == MODEL


def test_a_bedrock_judge_sends_its_request_through_claude_code(endpoint, tmp_path):
    environ = {
        **base(tmp_path),
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "ANTHROPIC_BEDROCK_BASE_URL": endpoint,
        "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1",
        "AWS_REGION": "us-east-1",
    }
    with pytest.raises(JudgeUnavailable):  # the answer is not an AWS event stream
        ask(environ)
    judged(f"/model/{MODEL}/invoke-with-response-stream")
