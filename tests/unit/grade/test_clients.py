import json
import os
import stat
import sys

import anthropic
import pytest

from pytest_plugin_eval.core import prices
from pytest_plugin_eval.core.claude_child import ClaudeCodeClient
from pytest_plugin_eval.core.prices import Usage
from pytest_plugin_eval.grade.clients import command_judge_client, judge_client, scripted_client
from pytest_plugin_eval.grade.judge import Judge, JudgeUnavailable
from pytest_plugin_eval.run.access import Access

# A stand-in for Claude Code: records its argv, environment and stdin, and answers with a result event.
FAKE = """#!{python}
import json, os, sys, time
started = time.time()
record = {{"started": started, "pid": os.getpid(), "argv": sys.argv[1:], "env": dict(os.environ), "stdin": sys.stdin.read(), "cwd": os.getcwd()}}
open({log!r}, "a").write(json.dumps(record) + "\\n")
reply = os.environ.get("EVAL_FAKE_REPLY", "PASS")
event = {{"type": "result", "is_error": reply.startswith("Not logged in"), "result": reply,
          "stop_reason": os.environ.get("EVAL_FAKE_STOP", "end_turn"),
          "usage": {{"input_tokens": 1000, "output_tokens": 3, "cache_read_input_tokens": 50}}}}
print(json.dumps({{"type": "system"}}))
print(json.dumps(event))
"""


@pytest.fixture
def fake_claude(tmp_path):
    path, log = tmp_path / "claude", tmp_path / "calls.jsonl"
    path.write_text(FAKE.format(python=sys.executable, log=str(log)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path, log


def test_a_judge_through_claude_code_asks_an_isolated_child_with_no_tools_signed_in_as_the_runs(fake_claude, tmp_path):
    claude, log = fake_claude
    access = Access("login", "Claude Code login", env={"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-A"})
    operator = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "operator"), "EDITOR": "vim"}
    client = judge_client(access, claude, environ=operator)
    assert isinstance(client, ClaudeCodeClient)
    text, cost = Judge("claude-haiku-4-5", lambda grader: client).ask("g", [{"type": "text", "text": "Is it?"}])
    assert text == "PASS"
    assert cost == prices.price("claude-haiku-4-5", Usage(1000, 3, cache_read_input_tokens=50))
    call = json.loads(log.read_text().splitlines()[0])
    assert call["env"]["CLAUDE_CODE_OAUTH_TOKEN"] == "sk-ant-oat01-A"
    assert call["env"]["HOME"] != operator["HOME"] and "EDITOR" not in call["env"]
    assert call["env"]["CLAUDE_CONFIG_DIR"].startswith(call["cwd"].rsplit("/", 1)[0])
    argv = call["argv"]
    assert argv[argv.index("--tools") + 1] == "" and argv[argv.index("--setting-sources") + 1] == ""
    assert "--strict-mcp-config" in argv and "--plugin-dir" not in argv
    assert argv[argv.index("--system-prompt") + 1].startswith("You grade the output")
    message = json.loads(call["stdin"])["message"]
    assert message == {"role": "user", "content": [{"type": "text", "text": "Is it?"}]}
    assert call["env"]["FORCE_PROMPT_CACHING_5M"] == "1" and call["env"]["MAX_THINKING_TOKENS"] == "0"
    waiting = [child.process.pid for ready in client._ready.values() for child in ready]
    Judge("claude-haiku-4-5", lambda grader: client).ask("g", [{"type": "text", "text": "Is it?"}])
    second = json.loads(log.read_text().splitlines()[1])
    assert second["pid"] in waiting  # the second vote found a child started ahead, waiting for its request
    # One working directory for every child: Claude Code names it in its prompt, so the votes' prompts (and the
    # prompt cache they share) stay the same.
    assert second["cwd"] == call["cwd"] and second["env"]["CLAUDE_CONFIG_DIR"] != call["env"]["CLAUDE_CONFIG_DIR"]
    client.close()
    assert not os.path.exists(call["cwd"])
    for each in (call, second):  # each child's home and config are gone
        assert not os.path.exists(each["env"]["CLAUDE_CONFIG_DIR"]) and not os.path.exists(each["env"]["HOME"])


def test_a_refused_sign_in_is_an_api_error_401_that_the_judge_does_not_retry(fake_claude, monkeypatch):
    claude, log = fake_claude
    monkeypatch.setenv("EVAL_FAKE_REPLY", "Not logged in · Please run /login")
    client = ClaudeCodeClient(claude, dict(os.environ))
    with pytest.raises(JudgeUnavailable, match=r"API error 401: Claude Code: Not logged in"):
        Judge("m", lambda grader: client, sleep=lambda s: None).ask("g", [{"type": "text", "text": "x"}])
    client.close()  # stops the child started ahead, which never got a request
    assert len(log.read_text().splitlines()) == 1  # not retried


def test_a_reply_cut_at_the_token_limit_says_so_through_claude_code_too(fake_claude, monkeypatch):
    claude, _ = fake_claude
    monkeypatch.setenv("EVAL_FAKE_REPLY", "The answer names the guest, so it")
    monkeypatch.setenv("EVAL_FAKE_STOP", "max_tokens")
    client = ClaudeCodeClient(claude, dict(os.environ))
    reply = client.messages.create(model="m", max_tokens=16, messages=[{"role": "user", "content": "x"}])
    client.close()
    assert reply.stop_reason == "max_tokens"  # what grade/judge.py reads to say the judge ran out of room


def test_direct_access_keeps_the_sdk_client(tmp_path):
    client = judge_client(Access("api-key-helper", "helper", env={"ANTHROPIC_API_KEY": "sk-helper"}), None)
    assert isinstance(client, anthropic.Anthropic) and client.api_key == "sk-helper"
    client.close()


def test_a_command_asks_through_the_claude_code_binary_it_is_given(fake_claude, monkeypatch, tmp_path):
    claude, _ = fake_claude
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-T")
    client_for, stop = command_judge_client(None, str(claude))  # compare --pairwise, calibrate --controls: --claude
    try:
        assert client_for("any").claude == claude
    finally:
        stop()


def test_the_scripted_endpoints_clients_are_one_kind():
    """A session's scripted judges and a command's (--scripted) ask the endpoint through the same client: the SDK's,
    aimed at its URL, with the key it does not check."""
    client = scripted_client("http://127.0.0.1:9/judge")
    assert isinstance(client, anthropic.Anthropic) and str(client.base_url).startswith("http://127.0.0.1:9/judge")
    assert client.api_key == "scripted"
    client_for, stop = command_judge_client(lambda endpoint, key: f"{endpoint.url}/{key}")
    try:
        judge = client_for("case-a")
        assert type(judge) is type(client) and (judge.api_key, judge.timeout) == (client.api_key, client.timeout)
        assert str(judge.base_url).rstrip("/").endswith("/case-a")
    finally:
        stop()
        client.close()
