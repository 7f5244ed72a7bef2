"""The stand-in MCP server in this process: templates, expect: guards, JSON-RPC handling, and agent responders
with replay, recording and pricing (the model played by the scripted endpoint, on a thread). The server as
Claude Code starts it — a child process over stdio — is tested in tests/acceptance/test_doubles.py."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.stand_in import PREFIX, call_log, fixed, stand_in_config, text_of

from pytest_plugin_eval.core.prices import Usage, price
from pytest_plugin_eval.doubles.mcp.expect import check
from pytest_plugin_eval.doubles.mcp.server import MockServer, description_sha, replay_key, serve
from pytest_plugin_eval.doubles.mcp.templates import TemplateError, js_json, js_number, js_string, render
from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script

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


@pytest.mark.parametrize(
    "body, expected",
    [
        ("Created #1: {{input.title}}", "Created #1: Bug X"),
        ("{{input.meta.owner}}/{{ input.meta.team }}", "ann/core"),
        ("first={{input.tags.0}} second={{input.tags.1}} third={{input.tags.2}}", "first=a second=b third="),
        ("{{input.tags}}", '["a","b"]'),
        ("{{input.meta}}", '{"owner":"ann","team":"core"}'),
        ("{{input.count}} {{input.ratio}} {{input.whole}} {{input.flag}} {{input.none}}", "42 1.5 3 true null"),
        ("[{{input.nope}}][{{input.meta.nope}}][{{input.title.x}}][{{input.tags.9}}]", "[][][][]"),
        ("{{input.items.0.name}}", "first"),
        (
            "{{input}}",
            '{"title":"Bug X","meta":{"owner":"ann","team":"core"},"tags":["a","b"],"count":42,"ratio":1.5,'
            '"whole":3,"flag":true,"none":null,"items":[{"name":"first"}]}',
        ),
        ("no placeholders {here} {{other}}", "no placeholders {here} {{other}}"),
    ],
)
def test_render_inserts_input_fields(body: str, expected: str, tmp_path: Path) -> None:
    data = {
        "title": "Bug X",
        "meta": {"owner": "ann", "team": "core"},
        "tags": ["a", "b"],
        "count": 42,
        "ratio": 1.5,
        "whole": 3.0,
        "flag": True,
        "none": None,
        "items": [{"name": "first"}],
    }
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


@pytest.mark.parametrize(
    "body, data, message",
    [
        ("{{file:../secret.txt}}", {}, "{{file:../secret.txt}} names a path outside the mock's directory"),
        (
            "{{file:fixtures/../../secret.txt}}",
            {},
            "{{file:fixtures/../../secret.txt}} names a path outside the mock's directory",
        ),
        ("{{file:/etc/passwd}}", {}, "{{file:/etc/passwd}} names a path outside the mock's directory"),
        ("{{file:fixtures/leak.json}}", {}, "{{file:fixtures/leak.json}} names a path outside the mock's directory"),
        (
            "{{file:fixtures/{input.id}.json}}",
            {"id": "../secret"},
            '{input.id} = "../secret" is not a plain file-name segment',
        ),
        ("{{file:fixtures/{input.id}}}", {"id": ".."}, '{input.id} = ".." is not a plain file-name segment'),
        ("{{file:fixtures/{input.id}}}", {"id": "."}, '{input.id} = "." is not a plain file-name segment'),
        ("{{file:fixtures/{input.id}.json}}", {"id": "a\\b"}, '{input.id} = "a\\\\b" is not a plain file-name segment'),
        ("{{file:fixtures/{input.id}.json}}", {}, '{input.id} = "" is not a plain file-name segment'),
        (
            "{{file:fixtures/{input.id}.json}}",
            {"id": 9},
            "{{file:fixtures/9.json}}: no such file in the mock's directory",
        ),
        ("{{file:fixtures}}", {}, "{{file:fixtures}}: no such file in the mock's directory"),
    ],
)
def test_render_refuses_files(mock_dir: Path, body: str, data: dict, message: str) -> None:
    with pytest.raises(TemplateError) as error:
        render(body, data, mock_dir)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "value, expected",
    [
        (42.0, "42"),
        (1.5, "1.5"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (123.456, "123.456"),
        (-2.5e30, "-2.5e+30"),
    ],
)
def test_numbers_print_as_in_javascript(value: float, expected: str) -> None:
    assert js_number(value) == expected


def test_javascript_json_and_string() -> None:
    assert js_json({"a": [1, 2.0, None, True], "b": "é"}) == '{"a":[1,2,null,true],"b":"é"}'
    values: tuple[object, ...] = (True, False, None, 42, 4.0, 1.5, "x", [1, None, "a"], {})
    assert [js_string(v) for v in values] == [
        "true",
        "false",
        "null",
        "42",
        "4",
        "1.5",
        "x",
        "1,,a",
        "[object Object]",
    ]


# -- expect: guards --------------------------------------------------------------------------------------

PRIORITY = {"path": "priority", "kind": "enum", "value": ["low", "medium", "high"]}
OWNER = {"path": "owner", "kind": "regex", "value": {"source": "^[a-z]+$", "flags": ""}}


@pytest.mark.parametrize(
    "guard, data, reason",
    [
        ({"path": "count", "kind": "type", "value": "number"}, {"count": 3}, None),
        ({"path": "count", "kind": "type", "value": "number"}, {"count": 1.5}, None),
        ({"path": "count", "kind": "type", "value": "number"}, {"count": "3"}, 'count = "3" is not a number'),
        ({"path": "count", "kind": "type", "value": "number"}, {"count": True}, "count = true is not a number"),
        ({"path": "count", "kind": "type", "value": "number"}, {}, "count = (missing) is not a number"),
        ({"path": "meta.owner", "kind": "type", "value": "string"}, {"meta": {"owner": "ann"}}, None),
        (
            {"path": "meta.owner", "kind": "type", "value": "string"},
            {"meta": "ann"},
            "meta.owner = (missing) is not a string",
        ),
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
        (
            {**OWNER, "value": {"source": "^[a-z]+$", "flags": "i"}},
            {"owner": "Ann1"},
            'owner = "Ann1" does not match /^[a-z]+$/i',
        ),
        ({"path": "body", "kind": "regex", "value": {"source": "a.b", "flags": "s"}}, {"body": "a\nb"}, None),
        (
            {"path": "body", "kind": "regex", "value": {"source": "fix", "flags": ""}},
            {"body": "a fix here"},
            None,
        ),  # search
    ],
)
def test_guards(guard: dict, data: dict, reason: str | None) -> None:
    assert check([guard], data) == reason


def test_the_first_failing_guard_is_reported() -> None:
    data = {"priority": "urgent", "owner": "Ann"}
    assert check([OWNER, PRIORITY], data) == 'owner = "Ann" does not match /^[a-z]+$/'
    assert check([], data) is None


# -- the server ------------------------------------------------------------------------------------------


def test_the_protocol(tmp_path: Path, mock_dir: Path) -> None:
    """One JSON line in, one reply line out (none for notifications), through the same loop main() runs."""
    responders = {
        "create_issue": fixed("Created #1: {{input.title}}", mock_dir, [PRIORITY]),
        "fail": fixed("Service unavailable: {{input.why}}", mock_dir, is_error=True),
    }
    config = stand_in_config(tmp_path, responders)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "create_issue", "arguments": {"title": "Bug X", "priority": "low"}},
        },
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "fail", "arguments": {"why": "x"}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nope"}},
        "this is not json",
        [1, 2],
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "fail", "arguments": [1]}},
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
    ]
    stdin = io.BytesIO(b"".join((m if isinstance(m, str) else json.dumps(m)).encode() + b"\n\n" for m in messages))
    stdout = io.BytesIO()
    serve(MockServer(config), stdin, stdout)
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [r.get("id") for r in replies] == [1, 2, 3, 4, 5, None, None, 6, 7]
    assert replies[0]["result"] == {
        "protocolVersion": "2025-03-26",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "plugin-eval-mock:tracker", "version": "1"},
    }
    assert replies[1]["result"] == {"tools": config["tools"]}
    assert replies[2]["result"] == {"content": [{"type": "text", "text": "Created #1: Bug X"}], "isError": False}
    assert replies[3]["result"]["isError"] is True
    assert replies[4]["error"] == {"code": -32602, "message": "No such tool: nope"}
    assert [r["error"]["code"] for r in replies[5:8]] == [-32700, -32600, -32602]
    assert replies[8]["result"] == {}
    assert [(e["tool"], e["verdict"]) for e in call_log(tmp_path)] == [
        (f"{PREFIX}create_issue", "ok"),
        (f"{PREFIX}fail", "tool_error"),
    ]


def test_a_listed_tool_without_a_responder_is_unknown(tmp_path: Path) -> None:
    tools = [{"name": "ghost", "description": "", "inputSchema": {"type": "object"}}]
    server = MockServer(stand_in_config(tmp_path, {}, tools=tools))
    reply = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ghost"}})
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "No such tool: ghost"}}
    assert server.handle({"jsonrpc": "2.0", "id": 2, "result": {}}) is None  # a client's reply: ignored
    assert call_log(tmp_path) == []


# -- agent responders ------------------------------------------------------------------------------------


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedEndpoint]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")  # the agent's client refuses to start without one
    with ScriptedEndpoint() as ep:
        yield ep


@pytest.fixture
def live_server() -> Iterator[Callable[[dict], MockServer]]:
    """MockServers whose agents ask the scripted endpoint, closed after the test (their client's connections)."""
    with contextlib.ExitStack() as stack:
        yield lambda config: stack.enter_context(MockServer(config))


def agent_config(
    tmp_path: Path,
    base_url: str | None,
    replay_dir: Path | None = None,
    record_dir: Path | None = None,
    model: str = "claude-haiku-5-5",
) -> dict:
    wiki = tmp_path / "mocks" / "wiki"
    responders = {
        "get_page": {"kind": "agent", "description": WIKI, "abortWhen": None, "guards": [], "baseDir": str(wiki)},
        "delete_page": {
            "kind": "agent",
            "description": WIKI,
            "abortWhen": "- the caller asks to delete a page",
            "guards": [{"path": "id", "kind": "type", "value": "number"}],
            "baseDir": str(wiki),
        },
    }
    agent = {
        "model": model,
        "baseUrl": base_url,
        "replayDir": str(replay_dir) if replay_dir else None,
        "recordDir": str(record_dir or tmp_path / "recordings" / "wiki"),
    }
    return {**stand_in_config(tmp_path, responders, agent), "server": "wiki"}


def call(server: MockServer, tool: str, arguments: dict) -> dict:
    """A tools/call through the server's JSON-RPC handling; its result."""
    reply = server.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    )
    assert reply is not None
    return reply["result"]


def test_agent_answers_live_and_records(tmp_path: Path, endpoint: ScriptedEndpoint, live_server) -> None:
    replies = ["MOCK ANSWER", "  ERROR: no page 2 \n", "ABORT: the caller asks to delete page 3"]
    url = endpoint.judge_url(parse_script({"judge": {"default": replies}}), "mock")
    server = live_server(agent_config(tmp_path, url))

    live = call(server, "get_page", {"id": 1})
    assert (text_of(live), live["isError"]) == ("MOCK ANSWER", False)
    error = call(server, "get_page", {"id": 2})
    assert (text_of(error), error["isError"]) == ("no page 2", True)
    reason = "the mock agent for wiki/delete_page aborted: the caller asks to delete page 3"
    aborted = call(server, "delete_page", {"id": 3})
    assert (text_of(aborted), aborted["isError"]) == (f"aborted by the eval harness: {reason}", True)

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
    # the endpoint's default usage at haiku 5.5's list price (0.1 / 0.5 USD per million)
    assert log[0]["costUsd"] == pytest.approx((100 * 0.1 + 20 * 0.5) / 1e6)

    # the ok and the error answer are recorded; the abort is not
    records = tmp_path / "recordings" / "wiki"
    assert sorted(p.name for p in records.iterdir()) == sorted(f"get_page-{replay_key({'id': n})}.json" for n in (1, 2))
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
    again = live_server(agent_config(tmp_path, url, replay_dir, tmp_path / "rec2"))
    assert text_of(call(again, "get_page", {"id": 1})) == "MOCK ANSWER"
    replayed_error = call(again, "get_page", {"id": 2})
    assert (text_of(replayed_error), replayed_error["isError"]) == ("no page 2", True)
    assert len(endpoint.calls(token=url)) == 3
    assert [(e["replay"], e["verdict"], e["costUsd"]) for e in call_log(tmp_path)] == [
        ("hit", "ok", 0.0),
        ("hit", "tool_error", 0.0),
    ]
    assert not (tmp_path / "rec2").exists()  # replays are not recorded again


def test_replay_hit_stale_and_miss(tmp_path: Path, endpoint: ScriptedEndpoint, live_server) -> None:
    url = endpoint.judge_url(parse_script({"judge": {"default": ["LIVE 1", "LIVE 2"]}}), "mock")
    replay_dir = tmp_path / "mocks" / ".replay" / "wiki"
    replay_dir.mkdir(parents=True)

    def recording(data: dict, output: str, sha: str) -> str:
        name = f"get_page-{replay_key(data)}.json"
        (replay_dir / name).write_text(
            json.dumps(
                {
                    "input": data,
                    "output": output,
                    "verdict": "ok",
                    "recordedAt": "2026-01-01T00:00:00Z",
                    "model": "m",
                    "descriptionSha": sha,
                }
            )
        )
        return name

    recording({"id": 1, "title": "Home"}, "REPLAYED", description_sha(WIKI, None))
    stale = recording({"id": 2}, "OLD", description_sha("an older description", None))
    server = live_server(agent_config(tmp_path, url, replay_dir))

    hit = call(server, "get_page", {"title": "Home", "id": 1})  # key order does not matter
    assert text_of(hit) == "REPLAYED"
    assert endpoint.calls(token=url) == []
    assert text_of(call(server, "get_page", {"id": 2})) == "LIVE 1"
    assert text_of(call(server, "get_page", {"id": 3})) == "LIVE 2"
    assert len(endpoint.calls(token=url)) == 2

    log = call_log(tmp_path)
    assert [(e["replay"], e["output"]) for e in log] == [("hit", "REPLAYED"), ("stale", "LIVE 1"), ("miss", "LIVE 2")]
    assert log[1]["staleRecording"] == stale
    assert "staleRecording" not in log[0] and "staleRecording" not in log[2]
    assert log[0]["costUsd"] == 0 and log[1]["costUsd"] > 0


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "haiku", "claude-opus-5-5[1m]", "claude-unknown-9"])
def test_agent_calls_are_priced_from_the_price_table(
    tmp_path: Path, endpoint: ScriptedEndpoint, live_server, model: str
) -> None:
    # The config names only the model; the stand-in prices the reply's whole usage, cache tokens included.
    tokens = {
        "input_tokens": 1200,
        "output_tokens": 80,
        "cache_read_input_tokens": 300,
        "cache_creation_input_tokens": 40,
    }
    url = endpoint.judge_url(parse_script({"judge": {"default": [{"text": "PAGE", "usage": tokens}]}}), "mock")
    config = agent_config(tmp_path, url, model=model)
    assert set(config["agent"]) == {"model", "baseUrl", "replayDir", "recordDir"}
    call(live_server(config), "get_page", {"id": 1})
    [entry] = call_log(tmp_path)
    assert entry["costUsd"] == pytest.approx(price(model, Usage(**tokens)), rel=1e-12)
    assert entry["costUsd"] > 0


def test_a_failing_model_call_is_a_tool_error(tmp_path: Path) -> None:
    class Broken:
        class messages:
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
        class messages:
            @staticmethod
            def create(**kwargs: Any) -> Any:
                seen.append(kwargs)
                raise RuntimeError("enough")

    server = MockServer(agent_config(tmp_path, None), agent_client_factory=Recorder)
    server.call_tool("delete_page", {"id": 3})
    server.call_tool("get_page", {"id": 3})
    with_abort, without = seen
    assert with_abort["model"] == "claude-haiku-5-5" and with_abort["max_tokens"] == 1024
    assert with_abort["messages"] == [
        {"role": "user", "content": 'Current call: delete_page\nArguments:\n{\n  "id": 3\n}'}
    ]
    assert (
        '"wiki"' in with_abort["system"] and WIKI in with_abort["system"] and "ERROR: <message>" in with_abort["system"]
    )
    assert "ABORT: <reason>" in with_abort["system"] and "- the caller asks to delete a page" in with_abort["system"]
    assert "ABORT" not in without["system"]
    assert "tools" not in with_abort


def test_a_server_closes_its_agents_model_client_when_it_ends(tmp_path: Path, endpoint: ScriptedEndpoint) -> None:
    url = endpoint.judge_url(parse_script({"judge": {"default": ["MOCK ANSWER"]}}), "mock")
    with MockServer(agent_config(tmp_path, url)) as server:
        assert text_of(call(server, "get_page", {"id": 1})) == "MOCK ANSWER"
        assert server.agent is not None
        client = server.agent._client
    assert client.is_closed()  # its sockets are closed now, not by the garbage collector in some later test


def test_an_agent_mock_asks_its_model_as_the_judges_do_signed_in_by_the_runs_model_env(tmp_path: Path) -> None:
    from pytest_plugin_eval.core.claude_child import ClaudeCodeClient
    from pytest_plugin_eval.doubles.mcp.server import AgentResponder

    signed = tmp_path / "mock-model-env.json"
    signed.write_text(json.dumps({"ANTHROPIC_API_KEY": "sk-from-a-helper", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}))
    direct = AgentResponder("wiki", {"model": "m", "modelEnv": str(signed)})._anthropic_client()
    assert (direct.api_key, str(direct.base_url).rstrip("/")) == ("sk-from-a-helper", "http://127.0.0.1:9")
    direct.close()
    signed.write_text(json.dumps({"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-run"}))
    through = AgentResponder(
        "wiki", {"model": "m", "modelEnv": str(signed), "claude": "/bin/claude"}
    )._anthropic_client()
    assert isinstance(through, ClaudeCodeClient) and str(through.claude) == "/bin/claude"
    assert through.environ["CLAUDE_CODE_OAUTH_TOKEN"] == "sk-ant-oat01-run"
    through.close()
