"""The stand-in MCP server: templates, expect: guards, the stdio protocol, agent responders with replay and
recording, and the stand-in taking a plugin server's place in the real Claude Code."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_plugin_eval.doubles.mcp.expect import check
from pytest_plugin_eval.doubles.mcp.server import MockServer, description_sha, replay_key
from pytest_plugin_eval.doubles.mcp.templates import TemplateError, js_json, js_number, js_string, render
from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script

PREFIX = "mcp__plugin_mockp_tracker__"
WIKI = "You are a wiki server. Pages have an id, a title and a body."


# -- templates -------------------------------------------------------------------------------------------


@pytest.fixture
def mock_dir(tmp_path: Path) -> Path:
    """A mock folder with fixtures, a secret next to it and a symlink pointing at the secret."""
    folder = tmp_path / "mocks" / "tracker"
    (folder / "fixtures").mkdir(parents=True)
    (folder / "fixtures" / "7.json").write_text('{"id": 7}')
    (folder / "fixtures" / "a b.txt").write_text("spaced")
    (tmp_path / "mocks" / "secret.txt").write_text("TOP SECRET")
    (folder / "fixtures" / "leak.json").symlink_to(tmp_path / "mocks" / "secret.txt")
    (folder / "inside.txt").symlink_to(folder / "fixtures" / "7.json")
    return folder


@pytest.mark.parametrize("body, expected", [
    ("Created #1: {{input.title}}", "Created #1: Bug X"),
    ("{{input.meta.owner}}/{{ input.meta.team }}", "ann/core"),
    ("first={{input.tags.0}} second={{input.tags.1}} third={{input.tags.2}}", "first=a second=b third="),
    ("{{input.tags}}", '["a","b"]'),
    ("{{input.meta}}", '{"owner":"ann","team":"core"}'),
    ("{{input.count}} {{input.ratio}} {{input.whole}} {{input.flag}} {{input.none}}", "42 1.5 3 true null"),
    ("[{{input.nope}}][{{input.meta.nope}}][{{input.title.x}}][{{input.tags.9}}]", "[][][][]"),
    ("{{input.items.0.name}}", "first"),
    ("{{input}}", '{"title":"Bug X","meta":{"owner":"ann","team":"core"},"tags":["a","b"],"count":42,"ratio":1.5,'
                  '"whole":3,"flag":true,"none":null,"items":[{"name":"first"}]}'),
    ("no placeholders {here} {{other}}", "no placeholders {here} {{other}}"),
])
def test_render_inserts_input_fields(body: str, expected: str, tmp_path: Path) -> None:
    data = {"title": "Bug X", "meta": {"owner": "ann", "team": "core"}, "tags": ["a", "b"], "count": 42,
            "ratio": 1.5, "whole": 3.0, "flag": True, "none": None, "items": [{"name": "first"}]}
    assert render(body, data, tmp_path) == expected


def test_inserted_values_are_not_rendered_again(tmp_path: Path) -> None:
    assert render("{{input.a}}", {"a": "{{input.b}}", "b": "no"}, tmp_path) == "{{input.b}}"


def test_render_inserts_files(mock_dir: Path) -> None:
    assert render("Issue: {{file:fixtures/7.json}}", {}, mock_dir) == 'Issue: {"id": 7}'
    assert render("{{file:fixtures/{input.id}.json}}", {"id": 7}, mock_dir) == '{"id": 7}'
    assert render("{{file:fixtures/{input.id}.json}}", {"id": "7"}, mock_dir) == '{"id": 7}'
    assert render("{{file:fixtures/{input.f.name}}}", {"f": {"name": "a b.txt"}}, mock_dir) == "spaced"
    assert render("{{file:inside.txt}}", {}, mock_dir) == '{"id": 7}'  # a symlink that stays inside is fine
    # the file's text is inserted as is, not rendered
    (mock_dir / "t.txt").write_text("{{input.x}}")
    assert render("{{file:t.txt}}", {"x": "no"}, mock_dir) == "{{input.x}}"


@pytest.mark.parametrize("body, data, message", [
    ("{{file:../secret.txt}}", {}, "{{file:../secret.txt}} names a path outside the mock's directory"),
    ("{{file:fixtures/../../secret.txt}}", {}, "{{file:fixtures/../../secret.txt}} names a path outside the mock's directory"),
    ("{{file:/etc/passwd}}", {}, "{{file:/etc/passwd}} names a path outside the mock's directory"),
    ("{{file:fixtures/leak.json}}", {}, "{{file:fixtures/leak.json}} names a path outside the mock's directory"),
    ("{{file:fixtures/{input.id}.json}}", {"id": "../secret"},
     '{input.id} = "../secret" is not a plain file-name segment'),
    ("{{file:fixtures/{input.id}}}", {"id": ".."}, '{input.id} = ".." is not a plain file-name segment'),
    ("{{file:fixtures/{input.id}}}", {"id": "."}, '{input.id} = "." is not a plain file-name segment'),
    ("{{file:fixtures/{input.id}.json}}", {"id": "a\\b"}, '{input.id} = "a\\\\b" is not a plain file-name segment'),
    ("{{file:fixtures/{input.id}.json}}", {}, '{input.id} = "" is not a plain file-name segment'),
    ("{{file:fixtures/{input.id}.json}}", {"id": 9}, "{{file:fixtures/9.json}}: no such file in the mock's directory"),
    ("{{file:fixtures}}", {}, "{{file:fixtures}}: no such file in the mock's directory"),
])
def test_render_refuses_files(mock_dir: Path, body: str, data: dict, message: str) -> None:
    with pytest.raises(TemplateError) as error:
        render(body, data, mock_dir)
    assert str(error.value) == message


@pytest.mark.parametrize("value, expected", [
    (42.0, "42"), (1.5, "1.5"), (-0.0, "0"), (0.1, "0.1"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
    (1.5e-7, "1.5e-7"), (0.000001, "0.000001"), (123.456, "123.456"), (-2.5e30, "-2.5e+30"),
])
def test_numbers_print_as_in_javascript(value: float, expected: str) -> None:
    assert js_number(value) == expected


def test_javascript_json_and_string() -> None:
    assert js_json({"a": [1, 2.0, None, True], "b": "é"}) == '{"a":[1,2,null,true],"b":"é"}'
    assert [js_string(v) for v in (True, False, None, 42, 4.0, 1.5, "x", [1, None, "a"], {})] == [
        "true", "false", "null", "42", "4", "1.5", "x", "1,,a", "[object Object]"]


# -- expect: guards --------------------------------------------------------------------------------------

PRIORITY = {"path": "priority", "kind": "enum", "value": ["low", "medium", "high"]}
OWNER = {"path": "owner", "kind": "regex", "value": {"source": "^[a-z]+$", "flags": ""}}


@pytest.mark.parametrize("guard, data, reason", [
    ({"path": "count", "kind": "type", "value": "number"}, {"count": 3}, None),
    ({"path": "count", "kind": "type", "value": "number"}, {"count": 1.5}, None),
    ({"path": "count", "kind": "type", "value": "number"}, {"count": "3"}, 'count = "3" is not a number'),
    ({"path": "count", "kind": "type", "value": "number"}, {"count": True}, "count = true is not a number"),
    ({"path": "count", "kind": "type", "value": "number"}, {}, "count = (missing) is not a number"),
    ({"path": "meta.owner", "kind": "type", "value": "string"}, {"meta": {"owner": "ann"}}, None),
    ({"path": "meta.owner", "kind": "type", "value": "string"}, {"meta": "ann"}, "meta.owner = (missing) is not a string"),
    ({"path": "flag", "kind": "type", "value": "boolean"}, {"flag": 0}, "flag = 0 is not a boolean"),
    ({"path": "flag", "kind": "type", "value": "boolean"}, {"flag": False}, None),
    ({"path": "meta", "kind": "type", "value": "object"}, {"meta": {}}, None),
    ({"path": "meta", "kind": "type", "value": "object"}, {"meta": [1]}, "meta = [1] is not a object"),
    ({"path": "tags", "kind": "type", "value": "array"}, {"tags": ["a", "b"]}, None),
    ({"path": "tags", "kind": "type", "value": "array"}, {"tags": {"a": 1}}, 'tags = {"a":1} is not a array'),
    ({"path": "name", "kind": "type", "value": "string"}, {"name": None}, "name = null is not a string"),
    (PRIORITY, {"priority": "low"}, None),
    (PRIORITY, {"priority": "urgent"}, 'priority = "urgent" is not one of [low, medium, high]'),
    (PRIORITY, {}, "priority = (missing) is not one of [low, medium, high]"),
    (PRIORITY, {"priority": ["low"]}, None),  # String(["low"]) is "low", as in JavaScript
    ({"path": "n", "kind": "enum", "value": ["42", "true", "null", "1.5"]}, {"n": 42}, None),
    ({"path": "n", "kind": "enum", "value": ["42", "true", "null", "1.5"]}, {"n": 42.0}, None),
    ({"path": "n", "kind": "enum", "value": ["42", "true", "null", "1.5"]}, {"n": True}, None),
    ({"path": "n", "kind": "enum", "value": ["42", "true", "null", "1.5"]}, {"n": None}, None),
    ({"path": "n", "kind": "enum", "value": ["42", "true", "null", "1.5"]}, {"n": 1.5}, None),
    ({"path": "n", "kind": "enum", "value": ["42", "true"]}, {"n": "True"}, 'n = "True" is not one of [42, true]'),
    (OWNER, {"owner": "ann"}, None),
    (OWNER, {"owner": "Ann"}, 'owner = "Ann" does not match /^[a-z]+$/'),
    (OWNER, {}, "owner = (missing) does not match /^[a-z]+$/"),
    ({**OWNER, "value": {"source": "^[a-z]+$", "flags": "i"}}, {"owner": "Ann"}, None),
    ({**OWNER, "value": {"source": "^[a-z]+$", "flags": "i"}}, {"owner": "Ann1"}, 'owner = "Ann1" does not match /^[a-z]+$/i'),
    ({"path": "body", "kind": "regex", "value": {"source": "a.b", "flags": "s"}}, {"body": "a\nb"}, None),
    ({"path": "body", "kind": "regex", "value": {"source": "fix", "flags": ""}}, {"body": "a fix here"}, None),  # search
])
def test_guards(guard: dict, data: dict, reason: str | None) -> None:
    assert check([guard], data) == reason


def test_the_first_failing_guard_is_reported() -> None:
    data = {"priority": "urgent", "owner": "Ann"}
    assert check([OWNER, PRIORITY], data) == 'owner = "Ann" does not match /^[a-z]+$/'
    assert check([], data) is None


# -- the server over stdio -------------------------------------------------------------------------------


class StdioServer:
    """The stand-in started as Claude Code starts it, spoken to one JSON line at a time."""

    def __init__(self, config_path: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_plugin_eval.doubles.mcp.server", str(config_path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 10) -> dict:
        return json.loads(self.lines.get(timeout=timeout))

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})})
        reply = self.reply()
        assert reply["id"] == self.next_id
        return reply

    def call(self, tool: str, arguments: dict) -> dict:
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def close(self) -> tuple[int, str]:
        """End stdin as Claude Code does at exit; the exit code and what went to stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        return code, self.proc.stderr.read().decode()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    servers: list[StdioServer] = []

    def start_server(config: dict, env: dict[str, str] | None = None) -> StdioServer:
        path = tmp_path / f"stand-in-{len(servers)}.json"
        path.write_text(json.dumps(config))
        servers.append(StdioServer(path, env))
        return servers[-1]

    yield start_server
    for server in servers:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def stand_in_config(tmp_path: Path, responders: dict, agent: dict | None = None, tools: list | None = None) -> dict:
    return {
        "server": "tracker",
        "registeredName": "plugin:mockp:tracker",
        "toolPrefix": PREFIX,
        "callLog": str(tmp_path / "out" / "mock-calls.jsonl"),
        "tools": tools if tools is not None else [
            {"name": name, "description": f"The {name} tool", "inputSchema": {"type": "object"}} for name in responders
        ],
        "responders": responders,
        "agent": agent,
    }


def fixed(body: str, base_dir: Path, guards: list | None = None, is_error: bool = False) -> dict:
    return {"kind": "fixed", "body": body, "isError": is_error, "guards": guards or [], "baseDir": str(base_dir)}


def call_log(tmp_path: Path) -> list[dict]:
    path = tmp_path / "out" / "mock-calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def text_of(result: dict) -> str:
    assert [block["type"] for block in result["content"]] == ["text"]
    return result["content"][0]["text"]


def test_the_protocol_over_stdio(tmp_path: Path, mock_dir: Path, start: Any) -> None:
    responders = {
        "create_issue": fixed("Created #1: {{input.title}}", mock_dir, [PRIORITY]),
        "get_issue": fixed("{{file:fixtures/{input.id}.json}}", mock_dir),
        "fail": fixed("Service unavailable: {{input.why}}", mock_dir, is_error=True),
    }
    config = stand_in_config(tmp_path, responders)
    server = start(config)

    init = server.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "claude-code", "version": "2"}})
    assert init["result"] == {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                              "serverInfo": {"name": "plugin-eval-mock:tracker", "version": "1"}}
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # no reply expected
    assert server.request("tools/list")["result"] == {"tools": config["tools"]}
    assert server.request("ping")["result"] == {}
    assert server.request("server/discover", {})["result"] == {}

    ok = server.call("create_issue", {"title": "Bug X", "priority": "high"})
    assert (text_of(ok), ok["isError"]) == ("Created #1: Bug X", False)
    found = server.call("get_issue", {"id": 7})
    assert (text_of(found), found["isError"]) == ('{"id": 7}', False)
    missing = server.call("get_issue", {"id": 9})
    assert (text_of(missing), missing["isError"]) == ("{{file:fixtures/9.json}}: no such file in the mock's directory", True)
    failed = server.call("fail", {"why": "maintenance"})
    assert (text_of(failed), failed["isError"]) == ("Service unavailable: maintenance", True)
    aborted = server.call("create_issue", {"title": "Bug Y", "priority": "urgent"})
    reason = 'the model\'s call violates expect: priority = "urgent" is not one of [low, medium, high]'
    assert (text_of(aborted), aborted["isError"]) == (f"aborted by the eval harness: {reason}", True)

    unknown = server.request("tools/call", {"name": "delete_issue", "arguments": {}})
    assert unknown["error"] == {"code": -32602, "message": "No such tool: delete_issue"}
    # bad requests get JSON-RPC errors, and the server keeps serving
    server.send("this is not json")
    assert server.reply()["error"]["code"] == -32700
    server.send([1, 2])
    assert server.reply()["error"]["code"] == -32600
    assert server.request("tools/call", {"arguments": {}})["error"]["code"] == -32602
    assert server.request("tools/call", {"name": "create_issue", "arguments": [1]})["error"]["code"] == -32602
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    assert server.request("ping")["result"] == {}

    code, _ = server.close()
    assert code == 0
    assert server.lines.empty()  # nothing but replies on stdout

    log = call_log(tmp_path)
    assert [(e["tool"], e["verdict"], e["isError"]) for e in log] == [
        (f"{PREFIX}create_issue", "ok", False),
        (f"{PREFIX}get_issue", "ok", False),
        (f"{PREFIX}get_issue", "tool_error", True),
        (f"{PREFIX}fail", "tool_error", True),
        (f"{PREFIX}create_issue", "abort", True),
    ]
    assert log[0] == {"server": "tracker", "tool": f"{PREFIX}create_issue", "input": {"title": "Bug X", "priority": "high"},
                      "output": "Created #1: Bug X", "isError": False, "verdict": "ok", "responder": "fixed",
                      "replay": None, "costUsd": 0.0, "model": None}
    assert log[4]["reason"] == reason and log[4]["output"] == f"aborted by the eval harness: {reason}"
    assert "reason" not in log[0]


def test_a_listed_tool_without_a_responder_is_unknown(tmp_path: Path) -> None:
    tools = [{"name": "ghost", "description": "", "inputSchema": {"type": "object"}}]
    server = MockServer(stand_in_config(tmp_path, {}, tools=tools))
    reply = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ghost"}})
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "No such tool: ghost"}}
    assert server.handle({"jsonrpc": "2.0", "id": 2, "result": {}}) is None  # a client's reply: ignored
    assert call_log(tmp_path) == []


# -- agent responders ------------------------------------------------------------------------------------


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint() as ep:
        yield ep


def agent_config(tmp_path: Path, base_url: str | None, replay_dir: Path | None = None,
                 record_dir: Path | None = None) -> dict:
    wiki = tmp_path / "mocks" / "wiki"
    responders = {
        "get_page": {"kind": "agent", "description": WIKI, "abortWhen": None, "guards": [], "baseDir": str(wiki)},
        "delete_page": {"kind": "agent", "description": WIKI, "abortWhen": "- the caller asks to delete a page",
                        "guards": [{"path": "id", "kind": "type", "value": "number"}], "baseDir": str(wiki)},
    }
    agent = {"model": "claude-haiku-5-5", "baseUrl": base_url, "replayDir": str(replay_dir) if replay_dir else None,
             "recordDir": str(record_dir or tmp_path / "recordings" / "wiki"), "prices": {"input": 0.1, "output": 0.5}}
    return {**stand_in_config(tmp_path, responders, agent), "server": "wiki"}


def test_agent_answers_live_and_records(tmp_path: Path, endpoint: ScriptedEndpoint, start: Any) -> None:
    replies = ["MOCK ANSWER", "  ERROR: no page 2 \n", "ABORT: the caller asks to delete page 3"]
    url = endpoint.judge_url(parse_script({"judge": {"default": replies}}), "mock")
    server = start(agent_config(tmp_path, url), env={"ANTHROPIC_API_KEY": "x"})

    live = server.call("get_page", {"id": 1})
    assert (text_of(live), live["isError"]) == ("MOCK ANSWER", False)
    error = server.call("get_page", {"id": 2})
    assert (text_of(error), error["isError"]) == ("no page 2", True)
    reason = "the mock agent for wiki/delete_page aborted: the caller asks to delete page 3"
    aborted = server.call("delete_page", {"id": 3})
    assert (text_of(aborted), aborted["isError"]) == (f"aborted by the eval harness: {reason}", True)
    assert server.close()[0] == 0

    calls = endpoint.calls(token=url)
    assert len(calls) == 3 and {c["model"] for c in calls} == {"claude-haiku-5-5"}
    log = call_log(tmp_path)
    assert [(e["tool"], e["verdict"], e["output"], e["replay"], e["responder"]) for e in log] == [
        (f"{PREFIX}get_page", "ok", "MOCK ANSWER", None, "agent"),
        (f"{PREFIX}get_page", "tool_error", "no page 2", None, "agent"),
        (f"{PREFIX}delete_page", "abort", f"aborted by the eval harness: {reason}", None, "agent"),
    ]
    assert log[2]["reason"] == reason
    assert all(e["costUsd"] > 0 and e["model"] == "claude-haiku-5-5" for e in log)
    assert log[0]["costUsd"] == pytest.approx((100 * 0.1 + 20 * 0.5) / 1e6)  # the endpoint's default usage

    # the ok and the error answer are recorded; the abort is not
    records = tmp_path / "recordings" / "wiki"
    assert sorted(p.name for p in records.iterdir()) == sorted(
        f"get_page-{replay_key({'id': n})}.json" for n in (1, 2))
    recording = json.loads((records / f"get_page-{replay_key({'id': 1})}.json").read_text())
    assert recording["input"] == {"id": 1} and recording["output"] == "MOCK ANSWER"
    assert recording["verdict"] == "ok" and recording["model"] == "claude-haiku-5-5"
    assert recording["descriptionSha"] == description_sha(WIKI, None)
    assert recording["recordedAt"].endswith("Z")

    # copied into .replay/, the recordings answer the same calls with no model call
    replay_dir = tmp_path / "mocks" / ".replay" / "wiki"
    replay_dir.mkdir(parents=True)
    for path in records.iterdir():
        (replay_dir / path.name).write_text(path.read_text())
    (tmp_path / "out" / "mock-calls.jsonl").unlink()
    again = start(agent_config(tmp_path, url, replay_dir, tmp_path / "rec2"), env={"ANTHROPIC_API_KEY": "x"})
    assert text_of(again.call("get_page", {"id": 1})) == "MOCK ANSWER"
    replayed_error = again.call("get_page", {"id": 2})
    assert (text_of(replayed_error), replayed_error["isError"]) == ("no page 2", True)
    assert again.close()[0] == 0
    assert len(endpoint.calls(token=url)) == 3
    assert [(e["replay"], e["verdict"], e["costUsd"]) for e in call_log(tmp_path)] == [
        ("hit", "ok", 0.0), ("hit", "tool_error", 0.0)]
    assert not (tmp_path / "rec2").exists()  # replays are not recorded again


def test_replay_hit_stale_and_miss(tmp_path: Path, endpoint: ScriptedEndpoint, start: Any) -> None:
    url = endpoint.judge_url(parse_script({"judge": {"default": ["LIVE 1", "LIVE 2"]}}), "mock")
    replay_dir = tmp_path / "mocks" / ".replay" / "wiki"
    replay_dir.mkdir(parents=True)

    def recording(data: dict, output: str, sha: str) -> str:
        name = f"get_page-{replay_key(data)}.json"
        (replay_dir / name).write_text(json.dumps({"input": data, "output": output, "verdict": "ok",
                                                   "recordedAt": "2026-01-01T00:00:00Z", "model": "m",
                                                   "descriptionSha": sha}))
        return name

    recording({"id": 1, "title": "Home"}, "REPLAYED", description_sha(WIKI, None))
    stale = recording({"id": 2}, "OLD", description_sha("an older description", None))
    server = start(agent_config(tmp_path, url, replay_dir), env={"ANTHROPIC_API_KEY": "x"})

    hit = server.call("get_page", {"title": "Home", "id": 1})  # key order does not matter
    assert text_of(hit) == "REPLAYED"
    assert endpoint.calls(token=url) == []
    assert text_of(server.call("get_page", {"id": 2})) == "LIVE 1"
    assert text_of(server.call("get_page", {"id": 3})) == "LIVE 2"
    assert server.close()[0] == 0
    assert len(endpoint.calls(token=url)) == 2

    log = call_log(tmp_path)
    assert [(e["replay"], e["output"]) for e in log] == [("hit", "REPLAYED"), ("stale", "LIVE 1"), ("miss", "LIVE 2")]
    assert log[1]["staleRecording"] == stale
    assert "staleRecording" not in log[0] and "staleRecording" not in log[2]
    assert log[0]["costUsd"] == 0 and log[1]["costUsd"] > 0


def test_a_failing_model_call_is_a_tool_error(tmp_path: Path) -> None:
    class Broken:
        class messages:  # noqa: N801 - the SDK's shape
            @staticmethod
            def create(**kwargs: Any) -> Any:
                raise ConnectionError("connection refused")

    server = MockServer(agent_config(tmp_path, None), agent_client_factory=Broken)
    answer = server.call_tool("get_page", {"id": 1})
    assert answer is not None
    assert (answer.text, answer.is_error) == ("the mock agent could not answer: connection refused", True)
    [entry] = call_log(tmp_path)
    assert entry["verdict"] == "tool_error" and entry["agentError"] is True and entry["replay"] is None
    assert not (tmp_path / "recordings").exists()


def test_guards_apply_to_agent_responders_before_the_model(tmp_path: Path) -> None:
    def no_model() -> Any:
        raise AssertionError("the model must not be called")

    server = MockServer(agent_config(tmp_path, None), agent_client_factory=no_model)
    answer = server.call_tool("delete_page", {"id": "3"})
    assert answer is not None and answer.verdict == "abort"
    assert call_log(tmp_path)[0]["reason"] == 'the model\'s call violates expect: id = "3" is not a number'


def test_the_system_prompt_names_the_server_and_the_abort_conditions(tmp_path: Path) -> None:
    seen: list[dict] = []

    class Recorder:
        class messages:  # noqa: N801 - the SDK's shape
            @staticmethod
            def create(**kwargs: Any) -> Any:
                seen.append(kwargs)
                raise RuntimeError("enough")

    server = MockServer(agent_config(tmp_path, None), agent_client_factory=Recorder)
    server.call_tool("delete_page", {"id": 3})
    server.call_tool("get_page", {"id": 3})
    with_abort, without = seen
    assert with_abort["model"] == "claude-haiku-5-5" and with_abort["max_tokens"] == 1024
    assert with_abort["messages"] == [{"role": "user", "content": 'Current call: delete_page\nArguments:\n{\n  "id": 3\n}'}]
    assert '"wiki"' in with_abort["system"] and WIKI in with_abort["system"] and "ERROR: <message>" in with_abort["system"]
    assert "ABORT: <reason>" in with_abort["system"] and "- the caller asks to delete a page" in with_abort["system"]
    assert "ABORT" not in without["system"]
    assert "tools" not in with_abort


# -- the real Claude Code --------------------------------------------------------------------------------


def claude_binary() -> Path:
    import claude_agent_sdk

    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def run_claude(tmp_path: Path, endpoint: ScriptedEndpoint, responder: dict, tool_input: dict) -> str:
    """Run Claude Code with a plugin declaring `tracker`, shadowed by the stand-in; the agent (scripted)
    calls create_issue with `tool_input`. Returns stdout (stream-json)."""
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "mockp"}))
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "false"}}}))
    home, cwd = tmp_path / "home", tmp_path / "home" / "cwd"
    cwd.mkdir(parents=True)
    tools = [{"name": "create_issue", "description": "Create an issue in the tracker.",
              "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}]
    config = tmp_path / "stand-in.json"
    config.write_text(json.dumps(stand_in_config(tmp_path, {"create_issue": responder}, tools=tools)))
    mcp_config = tmp_path / "mcp.json"
    mcp_config.write_text(json.dumps({"mcpServers": {"plugin:mockp:tracker": {
        "command": sys.executable, "args": ["-m", "pytest_plugin_eval.doubles.mcp.server", str(config)]}}}))
    script = parse_script({"all": [{"tool": f"{PREFIX}create_issue", "input": tool_input}, "done"]})
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_BASE_URL": endpoint.agent_url(script, cwd=cwd),
    }
    command = [str(claude_binary()), "-p", "--output-format", "stream-json", "--verbose", "--max-turns", "3",
               "--permission-mode", "dontAsk", "--setting-sources", "user", "--plugin-dir", str(plugin),
               "--mcp-config", str(mcp_config), f"--allowed-tools={PREFIX}create_issue"]
    done = subprocess.run(command, cwd=cwd, input="File a bug about X.", env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def tool_results(stdout: str) -> list[tuple[str, bool]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    results = []
    for event in events:
        if event.get("type") != "user":
            continue
        for block in event["message"]["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
                results.append((text, bool(block.get("is_error"))))
    return results


needs_claude = pytest.mark.skipif(not claude_binary().exists(), reason="the bundled Claude Code binary is not installed")


@needs_claude
def test_claude_code_uses_the_stand_in(tmp_path: Path, endpoint: ScriptedEndpoint) -> None:
    stdout = run_claude(tmp_path, endpoint, fixed("Created: {{input.title}}", tmp_path), {"title": "Bug X"})
    assert tool_results(stdout) == [("Created: Bug X", False)]
    [entry] = call_log(tmp_path)
    assert (entry["tool"], entry["verdict"], entry["input"]) == (f"{PREFIX}create_issue", "ok", {"title": "Bug X"})


@needs_claude
def test_claude_code_call_violating_expect_is_logged_as_abort(tmp_path: Path, endpoint: ScriptedEndpoint) -> None:
    responder = fixed("Created: {{input.title}}", tmp_path, [PRIORITY])
    stdout = run_claude(tmp_path, endpoint, responder, {"title": "Bug X", "priority": "urgent"})
    reason = 'the model\'s call violates expect: priority = "urgent" is not one of [low, medium, high]'
    [(text, is_error)] = tool_results(stdout)
    assert is_error and reason in text
    [entry] = call_log(tmp_path)
    assert (entry["verdict"], entry["reason"]) == ("abort", reason)
