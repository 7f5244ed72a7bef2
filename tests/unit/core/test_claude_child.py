"""A Claude Code child per request (pytest_plugin_eval.core.claude_child): children started ahead as many as requests
are in flight (bounded), an answer read as soon as its result event comes, a child that hangs or dies."""

import json
import os
import stat
import sys
import threading
from pathlib import Path

import anthropic
import pytest

from pytest_plugin_eval.core.claude_child import ClaudeCodeClient

# A stand-in for Claude Code: logs its pid when it gets its request, then (EVAL_FAKE_HOLD) waits for a file before
# answering, answers, and (EVAL_FAKE_LINGER) waits for another file before it exits.
FAKE = """#!{python}
import json, os, sys, time
request = sys.stdin.read()
log = os.environ["EVAL_FAKE_LOG"]
open(log, "a").write(json.dumps({{"pid": os.getpid(), "request": request}}) + "\\n")

def wait_for(name):
    for _ in range(600):
        if os.path.exists(os.path.join(os.path.dirname(log), name)):
            return
        time.sleep(0.05)

if os.environ.get("EVAL_FAKE_HOLD"):
    wait_for(os.environ["EVAL_FAKE_HOLD"])
if os.environ.get("EVAL_FAKE_DIE"):
    sys.stderr.write("it broke\\n")
    sys.exit(3)
print(json.dumps({{"type": "result", "result": "PASS", "usage": {{"input_tokens": 5, "output_tokens": 1}}}}), flush=True)
if os.environ.get("EVAL_FAKE_LINGER"):
    wait_for(os.environ["EVAL_FAKE_LINGER"])
"""


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "claude"
    path.write_text(FAKE.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path, {"PATH": os.environ["PATH"], "EVAL_FAKE_LOG": str(tmp_path / "log.jsonl")}


def ask(client: ClaudeCodeClient) -> str:
    reply = client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}])
    return reply.content[0].text


def waiting(client: ClaudeCodeClient) -> list[int]:
    return [child.process.pid for ready in client._ready.values() for child in ready]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def answer_together(client: ClaudeCodeClient, n: int, release: Path, log: Path) -> None:
    """n requests at once, each child held until all n have their request (so n are in flight together)."""
    threads = [threading.Thread(target=ask, args=(client,)) for _ in range(n)]
    for thread in threads:
        thread.start()
    while not log.exists() or len(log.read_text().splitlines()) < n:
        threading.Event().wait(0.05)
    release.write_text("")
    for thread in threads:
        thread.join()


def test_as_many_children_are_started_ahead_as_requests_were_in_flight(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_HOLD": "go"}, ahead=2, most_ahead=8)
    answer_together(client, 4, tmp_path / "go", tmp_path / "log.jsonl")  # two runs' ballots, two votes each
    try:
        assert len(waiting(client)) == 4  # the next round finds a child waiting for each of its votes
        started_ahead = set(waiting(client))
        answer_together(client, 4, tmp_path / "go", tmp_path / "log.jsonl")
        second_round = {json.loads(line)["pid"] for line in (tmp_path / "log.jsonl").read_text().splitlines()[4:]}
        assert second_round == started_ahead
    finally:
        client.close()
    assert not any(alive(pid) for pid in started_ahead)


def test_the_children_started_ahead_are_bounded(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_HOLD": "go"}, ahead=2, most_ahead=3)
    try:
        answer_together(client, 5, tmp_path / "go", tmp_path / "log.jsonl")
        assert len(waiting(client)) == 3
    finally:
        client.close()


def test_one_request_at_a_time_keeps_the_least_ahead(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, env, ahead=2, most_ahead=8)
    try:
        assert ask(client) == "PASS"
        assert len(waiting(client)) == 2
    finally:
        client.close()


def test_the_answer_is_read_at_its_result_event_and_the_child_exits_on_its_own_time(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_LINGER": "exit"}, ahead=0, most_ahead=0)
    assert ask(client) == "PASS"  # while the child still runs: it waits for a file before it exits
    [answered] = [json.loads(line)["pid"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert alive(answered)
    roots = list(client._ending)
    client.close()  # ends what is still exiting, and removes its folder
    assert not alive(answered) and not any(child.root.exists() for child in roots)


def test_a_child_that_answered_is_reaped_and_its_folder_removed_once_it_exits(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_LINGER": "exit"}, ahead=0, most_ahead=0)
    try:
        ask(client)
        [child] = list(client._ending)
        (tmp_path / "exit").write_text("")
        child.process.wait(timeout=60)
        for _ in range(200):
            if not child.root.exists():
                break
            threading.Event().wait(0.05)
        assert not child.root.exists() and not client._ending
    finally:
        client.close()


def test_a_child_that_gives_no_answer_in_time_is_stopped_and_the_error_is_retryable(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_HOLD": "never"}, timeout=0.5, ahead=0, most_ahead=0)
    try:
        with pytest.raises(anthropic.AnthropicError, match=r"no answer within 0.5s") as raised:
            ask(client)
        assert raised.value.status_code == 408
    finally:
        client.close()
    [pid] = [json.loads(line)["pid"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert not alive(pid)


def test_a_child_that_dies_without_an_answer_says_why(fake, tmp_path):
    claude, env = fake
    client = ClaudeCodeClient(claude, {**env, "EVAL_FAKE_DIE": "1"}, ahead=0, most_ahead=0)
    try:
        with pytest.raises(anthropic.AnthropicError, match=r"no answer \(exit 3\): it broke") as raised:
            ask(client)
        assert raised.value.status_code == 503
    finally:
        client.close()
