"""The doubles as Claude Code meets them: child processes and the real binary. The stand-in MCP server started
as Claude Code starts it (`python -m pytest_plugin_eval.doubles.mcp.server CONFIG`, over stdio), the stand-in
taking a plugin server's place in the real Claude Code, and the real Claude Code answered by the scripted
endpoint. What runs in-process is unit-tested in tests/unit/doubles/."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.stand_in import PREFIX, call_log, fixed, stand_in_config, text_of

from pytest_plugin_eval.core.prices import Usage, price
from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run import partial
from pytest_plugin_eval.run.agent import AgentCommand, Child, awaiting_model, bundled_claude
from pytest_plugin_eval.run.transcript import Transcript

PRIORITY = {"path": "priority", "kind": "enum", "value": ["low", "medium", "high"]}
CLAUDE = bundled_claude()
# Only a guard against a hung test: every wait below ends on the event itself (a line, an exit) long before this.
HANG_SECONDS = 600
needs_claude = pytest.mark.skipif(CLAUDE is None, reason="the bundled Claude Code binary is not installed")


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint() as ep:
        yield ep


@pytest.fixture
def mock_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "mocks" / "tracker"
    (folder / "fixtures").mkdir(parents=True)
    (folder / "fixtures" / "7.json").write_text('{"id": 7}')
    return folder


# -- the stand-in over stdio -----------------------------------------------------------------------------


class StdioServer:
    """The stand-in started as Claude Code starts it, spoken to one JSON line at a time."""

    def __init__(self, config_path: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_plugin_eval.doubles.mcp.server", str(config_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()
        self.next_id = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of output: the server exited

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict:
        """The next line the server writes. Waits for the line itself or the end of the server's output, never a
        fixed few seconds: a loaded machine can take long to start Python and import the model client."""
        line = self.lines.get(timeout=HANG_SECONDS)
        if line is None:
            self.lines.put(None)  # later calls see the end too
            assert self.proc.stderr is not None
            raise AssertionError(
                f"the stand-in exited ({self.proc.wait()}) without answering: {self.proc.stderr.read()!r}"
            )
        return json.loads(line)

    def rest(self) -> list[bytes]:
        """What the server wrote after the last reply read, up to the end of its output."""
        rest = []
        while (line := self.lines.get(timeout=HANG_SECONDS)) is not None:
            rest.append(line)
        self.lines.put(None)
        return rest

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
        code = self.proc.wait(timeout=HANG_SECONDS)
        return code, self.proc.stderr.read().decode()

    def stop(self) -> None:
        """Kill the server if it still runs, and close its pipes (left to the garbage collector, each is a
        ResourceWarning in whichever test runs next)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=HANG_SECONDS)
        self.pump.join(timeout=HANG_SECONDS)  # it reads stdout up to the end: done once the server is gone
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


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
        server.stop()


def test_the_protocol_over_stdio(tmp_path: Path, mock_dir: Path, start: Any) -> None:
    responders = {
        "create_issue": fixed("Created #1: {{input.title}}", mock_dir, [PRIORITY]),
        "get_issue": fixed("{{file:fixtures/{input.id}.json}}", mock_dir),
        "fail": fixed("Service unavailable: {{input.why}}", mock_dir, is_error=True),
    }
    config = stand_in_config(tmp_path, responders)
    server = start(config)

    init = server.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2"}},
    )
    assert init["result"] == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "plugin-eval-mock:tracker", "version": "1"},
    }
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # no reply expected
    assert server.request("tools/list")["result"] == {"tools": config["tools"]}
    assert server.request("ping")["result"] == {}
    assert server.request("server/discover", {})["result"] == {}

    ok = server.call("create_issue", {"title": "Bug X", "priority": "high"})
    assert (text_of(ok), ok["isError"]) == ("Created #1: Bug X", False)
    found = server.call("get_issue", {"id": 7})
    assert (text_of(found), found["isError"]) == ('{"id": 7}', False)
    missing = server.call("get_issue", {"id": 9})
    assert (text_of(missing), missing["isError"]) == (
        "{{file:fixtures/9.json}}: no such file in the mock's directory",
        True,
    )
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
    assert server.rest() == []  # nothing but replies on stdout

    log = call_log(tmp_path)
    assert [(e["tool"], e["verdict"], e["isError"]) for e in log] == [
        (f"{PREFIX}create_issue", "ok", False),
        (f"{PREFIX}get_issue", "ok", False),
        (f"{PREFIX}get_issue", "tool_error", True),
        (f"{PREFIX}fail", "tool_error", True),
        (f"{PREFIX}create_issue", "abort", True),
    ]
    assert log[0] == {
        "server": "tracker",
        "tool": f"{PREFIX}create_issue",
        "input": {"title": "Bug X", "priority": "high"},
        "output": "Created #1: Bug X",
        "isError": False,
        "verdict": "ok",
        "responder": "fixed",
        "replay": None,
        "costUsd": 0.0,
        "model": None,
    }
    assert log[4]["reason"] == reason and log[4]["output"] == f"aborted by the eval harness: {reason}"
    assert "reason" not in log[0]


def test_an_agent_stand_in_prices_its_calls_from_the_model_alone(
    tmp_path: Path, endpoint: ScriptedEndpoint, start: Any
) -> None:
    # The config carries the model and no prices: the child process prices from the package's price table.
    url = endpoint.judge_url(parse_script({"judge": {"default": ["PAGE 1"]}}), "mock")
    responders: dict[str, dict] = {
        "get_page": {
            "kind": "agent",
            "description": "A wiki.",
            "abortWhen": None,
            "guards": [],
            "baseDir": str(tmp_path),
        }
    }
    agent = {"model": "haiku", "baseUrl": url, "replayDir": None, "recordDir": str(tmp_path / "recordings")}
    server = start(stand_in_config(tmp_path, responders, agent), env={"ANTHROPIC_API_KEY": "x"})
    assert text_of(server.call("get_page", {"id": 1})) == "PAGE 1"
    assert server.close()[0] == 0
    [entry] = call_log(tmp_path)
    assert entry["model"] == "haiku"
    assert entry["costUsd"] == pytest.approx(price("haiku", Usage(input_tokens=100, output_tokens=20)))


# -- the stand-in in the real Claude Code ----------------------------------------------------------------


def run_claude(tmp_path: Path, endpoint: ScriptedEndpoint, responder: dict, tool_input: dict) -> str:
    """Run Claude Code with a plugin declaring `tracker`, shadowed by the stand-in; the agent (scripted)
    calls create_issue with `tool_input`. Returns stdout (stream-json)."""
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "mockp"}))
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "false"}}}))
    home, cwd = tmp_path / "home", tmp_path / "home" / "cwd"
    cwd.mkdir(parents=True)
    tools = [
        {
            "name": "create_issue",
            "description": "Create an issue in the tracker.",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
        }
    ]
    config = tmp_path / "stand-in.json"
    config.write_text(json.dumps(stand_in_config(tmp_path, {"create_issue": responder}, tools=tools)))
    mcp_config = tmp_path / "mcp.json"
    mcp_config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "plugin:mockp:tracker": {
                        "command": sys.executable,
                        "args": ["-m", "pytest_plugin_eval.doubles.mcp.server", str(config)],
                    }
                }
            }
        )
    )
    script = parse_script({"all": [{"tool": f"{PREFIX}create_issue", "input": tool_input}, "done"]})
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_BASE_URL": endpoint.agent_url(script, cwd=cwd),
    }
    command = [
        str(CLAUDE),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        "3",
        "--permission-mode",
        "dontAsk",
        "--setting-sources",
        "user",
        "--plugin-dir",
        str(plugin),
        "--mcp-config",
        str(mcp_config),
        f"--allowed-tools={PREFIX}create_issue",
    ]
    done = subprocess.run(
        command, cwd=cwd, input="File a bug about X.", env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def stream_tool_results(stdout: str) -> list[tuple[str, bool]]:
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


@needs_claude
def test_claude_code_uses_the_stand_in(tmp_path: Path, endpoint: ScriptedEndpoint) -> None:
    stdout = run_claude(tmp_path, endpoint, fixed("Created: {{input.title}}", tmp_path), {"title": "Bug X"})
    assert stream_tool_results(stdout) == [("Created: Bug X", False)]
    [entry] = call_log(tmp_path)
    assert (entry["tool"], entry["verdict"], entry["input"]) == (f"{PREFIX}create_issue", "ok", {"title": "Bug X"})


@needs_claude
def test_claude_code_call_violating_expect_is_logged_as_abort(tmp_path: Path, endpoint: ScriptedEndpoint) -> None:
    responder = fixed("Created: {{input.title}}", tmp_path, [PRIORITY])
    stdout = run_claude(tmp_path, endpoint, responder, {"title": "Bug X", "priority": "urgent"})
    reason = 'the model\'s call violates expect: priority = "urgent" is not one of [low, medium, high]'
    [(text, is_error)] = stream_tool_results(stdout)
    assert is_error and reason in text
    [entry] = call_log(tmp_path)
    assert (entry["verdict"], entry["reason"]) == ("abort", reason)


# -- the real Claude Code against the scripted endpoint ----------------------------------------------------


@needs_claude
def test_real_claude_code_runs_against_the_script(endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    (cwd / "a.txt").write_text("hello\n")
    loaded = parse_script({"with": [{"tool": "Read", "input": {"file_path": "{cwd}/a.txt"}}, {"text": "done {run}"}]})
    url = endpoint.agent_url(loaded, arm="with", run=1, cwd=str(cwd))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    command = [
        str(CLAUDE),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        "3",
        "--permission-mode",
        "dontAsk",
        "--setting-sources",
        "user",
    ]
    done = subprocess.run(command, cwd=cwd, input="Read a.txt", env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    blocks = [block for event in events if event.get("type") == "assistant" for block in event["message"]["content"]]
    texts = [block["text"] for block in blocks if block["type"] == "text"]
    reads = [block["input"] for block in blocks if block["type"] == "tool_use" and block["name"] == "Read"]
    assert texts[-1] == "done 1"
    assert reads == [{"file_path": f"{cwd}/a.txt"}]
    assert len(endpoint.calls(kind="agent", token=url)) == 2


def claude_code_child(tmp_path: Path, url: str, timeout: float, *flags: str) -> Child:
    """The real Claude Code asked "Say hello." by the scripted endpoint at `url`, under a Child's supervision."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    for folder in (home, cwd):
        folder.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    argv = (str(CLAUDE), "-p", "--output-format", "stream-json", "--verbose", *flags, "--max-turns", "3")
    argv += ("--permission-mode", "dontAsk", "--setting-sources", "user")
    trace = tmp_path / f"trace{len(list(tmp_path.glob('trace*.jsonl')))}.jsonl"
    return Child(AgentCommand(argv, env, cwd, "Say hello.", timeout), trace, trace.with_suffix(".err"))


@needs_claude
def test_a_reply_still_streaming_at_the_time_limit_keeps_the_trace_growing(endpoint, tmp_path) -> None:
    # One character every 0.3 s: the reply is still coming when the 12 s limit strikes.
    slow = parse_script({"with": [{"text": "Hello from a model that takes its time to say so. " * 2, "trickle": 0.3}]})
    silent = {}
    for flags in ((), (partial.FLAG,)):
        child = claude_code_child(tmp_path, endpoint.agent_url(slow, prompt="Say hello."), 12, *flags)
        exit_ = child.run()
        assert exit_.timed_out and awaiting_model(Transcript.from_file(child.trace_path))
        silent[flags] = exit_.silent
    # Claude Code alone writes nothing until the block is complete; with partial messages every byte shows.
    assert silent[()] > 4 and silent[(partial.FLAG,)] < 2


VARYING = re.compile(r"id|uuid|session_id|tool_use_id|timestamp|messaging_socket_path|.*_ms")


def comparable(value: Any) -> Any:
    """A trace's events without what differs from one run to the next (ids, times, the child's own socket)."""
    if isinstance(value, str) and value.startswith("{"):
        return [comparable(json.loads(line)) for line in value.splitlines()]
    if isinstance(value, dict):
        return {key: None if VARYING.fullmatch(key) else comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


@needs_claude
def test_taking_the_partial_messages_out_leaves_the_trace_claude_code_writes_without_them(endpoint, tmp_path) -> None:
    loaded = parse_script({"with": [{"tool": "Glob", "input": {"pattern": "*"}}, {"text": "done"}]})
    traces = []
    for flags in ((), (partial.FLAG,)):
        child = claude_code_child(tmp_path, endpoint.agent_url(loaded, prompt="Say hello."), 60, *flags)
        assert child.run().returncode == 0
        traces.append(child.trace_path.read_text())
    plain, streamed = traces
    assert '"stream_event"' in streamed and '"stream_event"' not in plain
    assert comparable(partial.take_out(tmp_path / "trace1.jsonl")) == comparable(plain)
