"""The scripted endpoint: script loading and validation, and the HTTP server (in this process, on a thread).
The real Claude Code against it: tests/acceptance/test_doubles.py."""

from __future__ import annotations

import functools
import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import pytest

from pytest_plugin_eval.core.paths import display_path
from pytest_plugin_eval.core.prices import Usage
from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.doubles.scripted import NO_USER_REPLY, ScriptedEndpoint
from pytest_plugin_eval.load.script import (
    SCRIPT_FILENAME,
    ErrorReply,
    Script,
    TextBlock,
    ToolBlock,
    load_script,
    parse_script,
)

TOOLS = [{"name": "Read", "description": "read a file", "input_schema": {"type": "object"}}]


def write_script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / SCRIPT_FILENAME
    path.write_text(text)
    return path


def script(data: dict[str, Any]) -> Script:
    return parse_script(data, "evals/case/scripted.yaml")


def history(assistant_turns: int) -> list[dict[str, str]]:
    """A conversation in which the model has already answered ``assistant_turns`` times."""
    messages = [{"role": "user", "content": "go"}]
    for _ in range(assistant_turns):
        messages += [{"role": "assistant", "content": "..."}, {"role": "user", "content": "more"}]
    return messages


@functools.cache  # building a client is slow; reuse one per URL
def client(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="x", max_retries=0)


def ask(url: str, assistant_turns: int = 0, tools: list | None = TOOLS, **kwargs: Any) -> Any:
    extra: dict[str, Any] = {"tools": tools} if tools is not None else {}
    return client(url).messages.create(
        model="claude-test", max_tokens=100, messages=history(assistant_turns), **extra, **kwargs
    )


def text_of(message: Any) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


@pytest.fixture(scope="module")
def endpoint():
    with ScriptedEndpoint() as ep:
        yield ep


# -- loading ------------------------------------------------------------------


def test_load_all_turn_forms(tmp_path: Path) -> None:
    path = write_script(
        tmp_path,
        """
with:
  - tool: Skill
    input: {skill: "my-plugin:commit-helper"}
  - tool: Bash
  - blocks: [{text: thinking}, {tool: Read, input: {file_path: x}}]
  - error: {status: 429, retry_after: 2}
    delay: 0.5
  - text: done
    usage: {input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 5}
    stall: 1
    drop: true
  - plain string
""",
    )
    turns = load_script(path).turns("with", 1)
    assert turns[0].blocks == (ToolBlock("Skill", {"skill": "my-plugin:commit-helper"}),)
    assert turns[1].blocks == (ToolBlock("Bash", {}),)
    assert turns[2].blocks == (TextBlock("thinking"), ToolBlock("Read", {"file_path": "x"}))
    assert turns[3].error == ErrorReply(
        status=429, type="rate_limit_error", message="scripted error (HTTP 429)", retry_after=2
    )
    assert turns[3].delay == 0.5
    assert turns[4].usage == Usage(input_tokens=7, output_tokens=3, cache_read_input_tokens=5)
    assert (turns[4].stall, turns[4].drop) == (1, True)
    assert turns[5].blocks == (TextBlock("plain string"),)
    assert load_script(path).turns("without", 1) == ()


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (429, "rate_limit_error"),
        (529, "overloaded_error"),
        (503, "api_error"),
    ],
)
def test_error_type_defaults_from_status(status: int, expected: str) -> None:
    assert script({"with": [{"error": {"status": status}}]}).turns("with", 1)[0].error.type == expected


def test_all_applies_to_both_arms_unless_an_arm_has_its_own() -> None:
    loaded = script({"all": ["shared"], "without": ["own"]})
    assert loaded.turns("with", 1)[0].blocks == (TextBlock("shared"),)
    assert loaded.turns("without", 1)[0].blocks == (TextBlock("own"),)


def test_per_run_lists_fall_back_to_default() -> None:
    loaded = script({"with": {2: ["second"], "default": ["other"]}, "without": {1: ["first"]}})
    assert loaded.turns("with", 2)[0].blocks == (TextBlock("second"),)
    assert loaded.turns("with", 1)[0].blocks == (TextBlock("other"),)
    assert loaded.turns("without", 1)[0].blocks == (TextBlock("first"),)
    assert loaded.turns("without", 2) == ()


def test_a_model_of_a_matrix_may_have_arms_of_its_own() -> None:
    loaded = script({"all": ["shared"], "models": {"haiku": {"with": ["haiku's"]}}})
    assert loaded.turns("with", 1, "haiku")[0].blocks == (TextBlock("haiku's"),)
    assert loaded.turns("without", 1, "haiku")[0].blocks == (TextBlock("shared"),)  # its other arms: the script's
    assert loaded.turns("with", 1, "sonnet")[0].blocks == (TextBlock("shared"),)
    assert loaded.turns("with", 1)[0].blocks == (TextBlock("shared"),)
    with pytest.raises(SpecError, match="models.haiku"):
        script({"with": ["x"], "models": {"haiku": {"whit": ["y"]}}})


def test_the_model_is_filled_in_and_answers_from_its_own_turns(endpoint: ScriptedEndpoint) -> None:
    loaded = script({"with": ["any {model}"], "models": {"haiku": {"with": ["mine {model}"]}}})
    assert text_of(ask(endpoint.agent_url(loaded, arm="with", run=1, model="haiku"))) == "mine haiku"
    assert text_of(ask(endpoint.agent_url(loaded, arm="with", run=1, model="opus"))) == "any opus"


def test_repeat_expands_at_load_time() -> None:
    turns = script({"with": [{"error": {"status": 429}, "repeat": 3}, "ok"]}).turns("with", 1)
    assert [turn.error.status if turn.error else "text" for turn in turns] == [429, 429, 429, "text"]


def test_substitution_fills_placeholders_everywhere_and_leaves_other_braces() -> None:
    turns = script(
        {
            "with": [
                {"text": "{arm} run {run} in {cwd}, not {other} or {{cwd}"},
                {"tool": "Write", "input": {"file_path": "{cwd}/a", "nested": [{"k": "{run}"}, 3], "{arm}": "key"}},
                {"error": {"status": 500, "message": "failed in {arm}"}},
            ]
        }
    ).turns("with", 1)
    values = {"cwd": "/w", "arm": "with", "run": "2"}
    assert turns[0].substitute(values).blocks[0].text == "with run 2 in /w, not {other} or {/w"
    tool_input = turns[1].substitute(values).blocks[0].input
    assert tool_input == {"file_path": "/w/a", "nested": [{"k": "2"}, 3], "{arm}": "key"}
    assert turns[2].substitute(values).error.message == "failed in with"


def test_judge_replies() -> None:
    loaded = script(
        {"judge": {"quality": ["PASS", "<empty>", {"error": {"status": 529}}], "style": "FAIL", "default": ["MAYBE"]}}
    )
    quality = loaded.judge_replies("quality")
    assert [turn.blocks for turn in quality[:2]] == [(TextBlock("PASS"),), (TextBlock(""),)]
    assert quality[2].error.type == "overloaded_error"
    assert loaded.judge_replies("style")[0].blocks == (TextBlock("FAIL"),)
    assert loaded.judge_replies("unknown")[0].blocks == (TextBlock("MAYBE"),)
    assert script({}).judge_replies("quality")[0].blocks == (TextBlock("PASS"),)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("", "the script is empty"),
        ("- text: a\n", "the script must be a mapping"),
        (
            "withh: []\n",
            "withh: is not a key of a script — did you mean with? (expected: with, without, against, all, judge, pairwise, models, controls)",
        ),
        (
            "with: [{text: a, tool: b}]\n",
            "with[0]: a turn needs exactly one of text, tool, blocks, error (got: text, tool)",
        ),
        ("with: [a, {delay: 1}]\n", "with[1]: a turn needs exactly one of text, tool, blocks, error (got: none)"),
        (
            "with: [{text: a, colour: red}]\n",
            "with[0].colour: is not a key of a text turn (expected: text, delay, usage, drop, stall, trickle, pings, thinking, stop, repeat)",
        ),
        ("with: [{text: a, input: {}}]\n", "with[0].input: is not a key of a text turn"),
        ("with: [a, {tool: Read, input: [x]}]\n", "with[1].input: input must be a mapping"),
        ("with: [{tool: ''}]\n", "with[0].tool: must be a non-empty string (got an empty string)"),
        ("with: [{text: 3}]\n", "with[0].text: must be a string (got a whole number)"),
        ("with: [[a]]\n", "with[0]: a turn is a string or a mapping"),
        (
            "with: [{blocks: []}]\n",
            "with[0].blocks: blocks must be a non-empty list of text, thinking or tool blocks (got an empty list)",
        ),
        ("with: [{blocks: [{text: a, delay: 1}]}]\n", "with[0].blocks[0].delay: is not a key of a text block"),
        (
            "with: [{blocks: [{error: {status: 500}}]}]\n",
            "with[0].blocks[0]: a block needs exactly one of text, thinking, tool",
        ),
        ("with: [{error: {status: 200}}]\n", "with[0].error.status: must be a whole number from 400 to 599 (got 200)"),
        ("with: [{error: {}}]\n", "with[0].error.status: must be a whole number from 400 to 599 (got nothing (null))"),
        ("with: [{error: {status: 500, code: 1}}]\n", "with[0].error.code: is not a key of an error"),
        (
            "with: [{error: {status: 500, retry_after: soon}}]\n",
            "with[0].error.retry_after: must be a number of seconds ≥ 0 (got a string 'soon')",
        ),
        (
            "with: [{error: {status: 500}, drop: true}]\n",
            "with[0]: drop, stall, trickle, pings and stop apply to replies, not errors",
        ),
        (
            "with: [{error: {status: 500}, trickle: 1}]\n",
            "with[0]: drop, stall, trickle, pings and stop apply to replies, not errors",
        ),
        ("with: [{text: a, trickle: -1}]\n", "with[0].trickle: must be a number of seconds ≥ 0 (got -1)"),
        (
            "with: [{text: a, usage: {input_tokens: -1}}]\n",
            "with[0].usage.input_tokens: must be a whole number ≥ 0 (got -1)",
        ),
        ("with: [{text: a, usage: {tokens: 1}}]\n", "with[0].usage.tokens: is not a key of usage"),
        ("with: [{text: a, repeat: 0}]\n", "with[0].repeat: must be a whole number ≥ 1 (got 0)"),
        ("with: [{text: a, repeat: 1.5}]\n", "with[0].repeat: must be a whole number ≥ 1 (got a number 1.5)"),
        ("with: [{text: a, delay: -1}]\n", "with[0].delay: must be a number of seconds ≥ 0 (got -1)"),
        ("with: [{text: a, drop: yes please}]\n", "with[0].drop: must be true or false (got a string)"),
        # YAML 1.2, as for case files: `yes` is a string, not a boolean
        ("with: [{text: a, drop: yes}]\n", "with[0].drop: must be true or false (got a string)"),
        ("with: hello\n", "with: an arm is a list of turns"),
        ("with: {0: [a]}\n", "with.0: a run key must be a run number"),
        ("without: {default: a}\n", "without.default: expected a list of turns"),
        ("all: [{text: a, tool: b}]\nwith: []\n", "all[0]: a turn needs exactly one"),
        ("judge: [PASS]\n", "judge: judge must map grader names"),
        ("judge: {quality: 3}\n", "judge.quality: give a reply or a non-empty list"),
        ("judge: {quality: [PASS, {tool: Read}]}\n", "judge.quality[1].tool: not allowed here; use one of text, error"),
        ("with: [\n  {text: a\n", "invalid YAML: line 3, column 1: "),
    ],
)
def test_validation_errors_name_file_and_key(tmp_path: Path, source: str, expected: str) -> None:
    path = write_script(tmp_path, source)
    with pytest.raises(SpecError) as caught:
        load_script(path)
    assert caught.value.file == path
    assert str(caught.value).startswith(f"{display_path(path)}: ")
    assert expected in str(caught.value)


def test_errors_carry_the_key_and_the_message_apart(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_script(write_script(tmp_path, "with: [{text: a, repeat: 0}]\n"))
    assert (caught.value.key, caught.value.message) == ("with[0].repeat", "must be a whole number ≥ 1 (got 0)")
    with pytest.raises(SpecError) as caught:
        parse_script({"with": [{"text": 3}]})
    assert caught.value.file == Path(SCRIPT_FILENAME)


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    path = write_script(tmp_path, "with:\n  - text: a\n  - text: [b\n")
    with pytest.raises(SpecError, match=r"scripted\.yaml: invalid YAML: line 4, column 1: "):
        load_script(path)


def test_missing_file_is_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot read the script"):
        load_script(tmp_path / "nope.yaml")


def test_scalars_are_read_as_yaml_1_2(tmp_path: Path) -> None:
    # `yes`, `no`, `on`, `off` and dates are strings, as in case files; only true/false are booleans.
    path = write_script(tmp_path, "with: [yes, {text: no}, off, 2024-01-01, {text: done, drop: false}]\n")
    turns = load_script(path).turns("with", 1)
    assert [turn.blocks[0].text for turn in turns] == ["yes", "no", "off", "2024-01-01", "done"]
    assert turns[-1].drop is False


def test_whole_floats_count_as_whole_numbers() -> None:
    turns = script({"with": [{"text": "a", "repeat": 2.0, "usage": {"output_tokens": 5.0}}]}).turns("with", 1)
    assert len(turns) == 2 and turns[0].usage == Usage(input_tokens=100, output_tokens=5)


# -- serving ------------------------------------------------------------------


def test_agent_turns_follow_the_assistant_count(endpoint: ScriptedEndpoint) -> None:
    loaded = script({"with": [{"tool": "Read", "input": {"file_path": "{cwd}/a.txt"}}, "done {arm} {run}"]})
    url = endpoint.agent_url(loaded, arm="with", run=3, cwd="/work/x")

    first = ask(url)
    assert first.stop_reason == "tool_use"
    assert first.model == "claude-test"
    assert first.id.startswith("msg_scripted_")
    (tool,) = first.content
    assert (tool.type, tool.name, tool.input) == ("tool_use", "Read", {"file_path": "/work/x/a.txt"})
    assert tool.id.startswith("toolu_scripted_")

    second = ask(url, assistant_turns=1)
    assert (text_of(second), second.stop_reason) == ("done with 3", "end_turn")
    assert text_of(ask(url, assistant_turns=2)) == "(scripted model: no turn 3 in the script for the with arm)"
    assert [call["kind"] for call in endpoint.calls(token=url)] == ["agent"] * 3


def test_runs_without_a_script_say_so(endpoint: ScriptedEndpoint) -> None:
    assert text_of(ask(endpoint.agent_url(None))) == "(scripted model: this case has no scripted.yaml)"


def test_streaming_matches_the_messages_api(endpoint: ScriptedEndpoint) -> None:
    loaded = script(
        {
            "without": [
                {
                    "blocks": ["looking", {"tool": "Read", "input": {"path": "{arm}"}}],
                    "usage": {"input_tokens": 11, "output_tokens": 4, "cache_creation_input_tokens": 9},
                }
            ]
        }
    )
    url = endpoint.agent_url(loaded, arm="without")
    with client(url).messages.stream(model="claude-test", max_tokens=100, messages=history(0), tools=TOOLS) as stream:
        event_types = [event.type for event in stream]
        message = stream.get_final_message()
    assert event_types[0] == "message_start" and event_types[-1] == "message_stop"
    assert event_types.count("content_block_stop") == 2
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.content[0].text == "looking"
    assert message.content[1].input == {"path": "without"}
    assert message.stop_reason == "tool_use"
    usage = message.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens) == (11, 4, 9)
    assert usage.cache_read_input_tokens is None


def test_error_turns_fail_the_request(endpoint: ScriptedEndpoint) -> None:
    loaded = script(
        {
            "with": [
                {"error": {"status": 429, "retry_after": 3}, "repeat": 2},
                {"error": {"status": 503, "message": "down in {arm}", "type": "custom_error"}},
                "recovered",
            ]
        }
    )
    url = endpoint.agent_url(loaded)
    # Faulty turns are served to successive requests of the same step (retries), then the step's reply.
    for _ in range(2):
        with pytest.raises(anthropic.RateLimitError) as caught:
            ask(url, assistant_turns=0)
        assert caught.value.response.headers["retry-after"] == "3"
        assert caught.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
    with pytest.raises(anthropic.InternalServerError) as failed:
        ask(url, assistant_turns=0, stream=True)
    assert failed.value.status_code == 503
    assert failed.value.body == {"type": "error", "error": {"type": "custom_error", "message": "down in with"}}
    assert text_of(ask(url, assistant_turns=0)) == "recovered"
    assert text_of(ask(url, assistant_turns=0)) == "recovered"


def test_faults_are_counted_per_run_across_tokens(endpoint: ScriptedEndpoint) -> None:
    # A whole run started again (a new agent URL for the same arm and run) continues past the faults.
    loaded = script({"with": [{"error": {"status": 529}}, "second attempt"]})
    with pytest.raises(anthropic.APIStatusError):
        ask(endpoint.agent_url(loaded, run=1))
    assert text_of(ask(endpoint.agent_url(loaded, run=1))) == "second attempt"
    with pytest.raises(anthropic.APIStatusError):
        ask(endpoint.agent_url(loaded, run=2))  # another run starts from the beginning


def test_trailing_faults_end_the_script(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": ["one", {"error": {"status": 500}}]}))
    assert text_of(ask(url)) == "one"
    with pytest.raises(anthropic.InternalServerError):
        ask(url, assistant_turns=1)
    assert "no turn 2" in text_of(ask(url, assistant_turns=1))


def test_usage_defaults_and_overrides(endpoint: ScriptedEndpoint) -> None:
    custom_usage = {"input_tokens": 1, "cache_read_input_tokens": 2}
    url = endpoint.agent_url(script({"with": ["a", {"text": "b", "usage": custom_usage}]}))
    default = ask(url).usage
    assert (default.input_tokens, default.output_tokens, default.cache_read_input_tokens) == (100, 20, None)
    custom = ask(url, assistant_turns=1).usage
    assert (custom.input_tokens, custom.output_tokens, custom.cache_read_input_tokens) == (1, 20, 2)


def test_delay_and_stall_slow_the_reply(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": [{"text": "slow", "delay": 0.3}, {"text": "stalled", "stall": 0.3}]}))
    started = time.monotonic()
    assert text_of(ask(url)) == "slow"
    assert time.monotonic() - started >= 0.3
    started = time.monotonic()
    with client(url).messages.stream(model="m", max_tokens=10, messages=history(1), tools=TOOLS) as stream:
        assert stream.get_final_text() == "stalled"
    assert time.monotonic() - started >= 0.3


def test_trickle_streams_the_reply_one_character_at_a_time(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": [{"text": "slow", "trickle": 0.05}, {"tool": "Glob", "trickle": 0.01}]}))
    started = time.monotonic()
    with client(url).messages.stream(model="m", max_tokens=10, messages=history(0), tools=TOOLS) as stream:
        pieces = [event.delta.text for event in stream if event.type == "content_block_delta"]
    assert pieces == ["s", "l", "o", "w"]
    assert time.monotonic() - started >= 0.2
    with client(url).messages.stream(model="m", max_tokens=10, messages=history(1), tools=TOOLS) as stream:
        assert [block.name for block in stream.get_final_message().content] == ["Glob"]


def test_a_reply_that_is_not_streamed_stalls_as_a_whole(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": [{"text": "late", "stall": 0.3}]}))
    started = time.monotonic()
    assert text_of(ask(url)) == "late"
    assert time.monotonic() - started >= 0.3


def test_drop_breaks_the_stream(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": [{"text": "never", "drop": True}]}))
    with (
        pytest.raises(Exception, match="incomplete chunked read|peer closed"),
        client(url).messages.stream(model="m", max_tokens=10, messages=history(0), tools=TOOLS) as stream,
    ):
        stream.get_final_message()


def test_side_requests_do_not_consume_turns(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": ["first"]}))
    assert text_of(ask(url, tools=None)) == "ok"
    assert text_of(ask(url, tools=[])) == "ok"
    assert text_of(ask(url)) == "first"
    assert [call["kind"] for call in endpoint.calls(token=url)] == ["side", "side", "agent"]


def test_judge_replies_in_sequence_per_grader(endpoint: ScriptedEndpoint) -> None:
    loaded = script(
        {
            "judge": {
                "quality": ["PASS", "PASS", "FAIL"],
                "default": ["<empty>", "run {run}"],
                "flaky": [{"error": {"status": 529}}, "PASS"],
            }
        }
    )
    quality = endpoint.judge_url(loaded, grader="quality", arm="with", run=1)
    other = endpoint.judge_url(loaded, grader="style", arm="without", run=2)
    assert [text_of(ask(quality, tools=None)) for _ in range(4)] == ["PASS", "PASS", "FAIL", "FAIL"]
    assert [text_of(ask(other, tools=None)) for _ in range(3)] == ["", "run 2", "run 2"]
    flaky = endpoint.judge_url(loaded, grader="flaky")
    with pytest.raises(anthropic.InternalServerError):
        ask(flaky, tools=None)
    assert text_of(ask(flaky, tools=None)) == "PASS"
    assert text_of(ask(endpoint.judge_url(None, grader="quality"), tools=None)) == "PASS"
    calls = endpoint.calls(kind="judge", token=other)
    assert [(call["grader"], call["arm"], call["run"]) for call in calls] == [("style", "without", 2)] * 3


def test_a_simulated_user_answers_from_its_own_replies_only(endpoint: ScriptedEndpoint) -> None:
    loaded = script({"judge": {"user": ["I am Ada.", "END_CONVERSATION"], "default": ["PASS"]}})
    user = endpoint.user_url(loaded, arm="without", run=2)
    assert [text_of(ask(user, tools=None)) for _ in range(3)] == ["I am Ada.", "END_CONVERSATION", "END_CONVERSATION"]
    # without `user:` replies it ends the conversation at once, never borrowing a judge's PASS
    for silent in (script({"judge": {"default": ["PASS"]}}), None):
        assert text_of(ask(endpoint.user_url(silent), tools=None)) == NO_USER_REPLY


def test_judge_counting_is_thread_safe(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.judge_url(script({"judge": {"default": [str(n) for n in range(20)]}}), grader="q")
    client(url)  # build the shared client before the threads race to
    replies: list[str] = []
    threads = [threading.Thread(target=lambda: replies.append(text_of(ask(url, tools=None)))) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(replies, key=int) == [str(n) for n in range(20)]


def test_unknown_tokens_get_a_404(endpoint: ScriptedEndpoint) -> None:
    with pytest.raises(anthropic.NotFoundError, match="unknown scripted token 'nope'"):
        ask(f"{endpoint.url}/s/nope")
    assert endpoint.calls(token="nope")[0]["kind"] == "unknown"


def test_count_tokens_and_probes(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": ["a"]}))
    count = client(url).messages.count_tokens(model="m", messages=history(0))
    assert count.input_tokens == 100
    with urllib.request.urlopen(f"{url}/api/hello") as response:
        assert (response.status, json.load(response)) == (200, {})
    head = urllib.request.Request(f"{endpoint.url}/anything", method="HEAD")
    with urllib.request.urlopen(head) as response:
        assert response.status == 200
    assert [call["kind"] for call in endpoint.calls(token=url)] == ["side", "side"]


def test_handler_failures_answer_500(endpoint: ScriptedEndpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(endpoint, "_reply", fail)
    with pytest.raises(anthropic.InternalServerError, match="scripted endpoint failed: RuntimeError"):
        ask(endpoint.agent_url(script({"with": ["a"]})))


def test_bad_request_bodies_answer_400(endpoint: ScriptedEndpoint) -> None:
    request = urllib.request.Request(f"{endpoint.agent_url(None)}/v1/messages", data=b"not json", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 400
    assert json.load(caught.value)["error"]["type"] == "invalid_request_error"


def test_stop_does_not_wait_for_a_stalled_stream() -> None:
    ep = ScriptedEndpoint().start()
    url = ep.agent_url(script({"with": [{"text": "late", "stall": 60}]}))
    worker = threading.Thread(target=lambda: list(ask(url, stream=True)), daemon=True)
    worker.start()
    while not ep.calls():
        time.sleep(0.01)
    started = time.monotonic()
    ep.stop()
    worker.join(timeout=5)
    assert time.monotonic() - started < 2
    assert not worker.is_alive()


def marked(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]}]


def test_a_request_marking_cache_control_writes_then_reads_the_cache(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.judge_url(script({"judge": {"g": ["PASS"]}}), "g")
    ask_marked = functools.partial(client(url).messages.create, model="claude-test", max_tokens=10)
    first, second, third = (ask_marked(messages=marked("criterion and evidence")).usage for _ in range(3))
    assert (first.input_tokens, first.cache_creation_input_tokens, first.cache_read_input_tokens) == (0, 100, None)
    assert (second.input_tokens, second.cache_creation_input_tokens, second.cache_read_input_tokens) == (0, None, 100)
    assert third.cache_read_input_tokens == 100
    other = ask_marked(messages=marked("another prompt")).usage  # another prefix is another cache entry
    assert other.cache_creation_input_tokens == 100
    plain = ask_marked(messages=[{"role": "user", "content": "criterion and evidence"}]).usage  # nothing marked
    assert (plain.input_tokens, plain.cache_read_input_tokens, plain.cache_creation_input_tokens) == (100, None, None)
    elsewhere = endpoint.judge_url(script({}), "g")  # the cache is per run and grader, like the scripts' counts
    assert (
        client(elsewhere)
        .messages.create(model="claude-test", max_tokens=10, messages=marked("criterion and evidence"))
        .usage.cache_creation_input_tokens
        == 100
    )


def test_a_script_s_own_cache_figures_are_served_as_given(endpoint: ScriptedEndpoint) -> None:
    given = {"input_tokens": 7, "cache_read_input_tokens": 5}
    url = endpoint.judge_url(script({"judge": {"g": [{"text": "PASS", "usage": given}]}}), "g")
    usage = client(url).messages.create(model="claude-test", max_tokens=10, messages=marked("x")).usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (7, 5, None)


def test_agent_requests_keep_the_script_s_figures_whatever_they_mark(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": ["a", "b"]}))
    for _ in range(2):
        usage = (
            client(url).messages.create(model="claude-test", max_tokens=10, messages=marked("go"), tools=TOOLS).usage
        )
        assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (
            100,
            None,
            None,
        )


def test_pairwise_answers_by_order_and_pair_and_a_judge_without_answers_gives_no_verdict(
    endpoint: ScriptedEndpoint,
) -> None:
    biased = script({"pairwise": "VERDICT: A"})  # one answer for both orders: a judge that prefers position A
    assert biased.pairwise_reply("old_first", 1) == biased.pairwise_reply("new_first", 7)
    loaded = script({"pairwise": {"old_first": ["VERDICT: B", "VERDICT: A"], "new_first": "<empty>"}})
    answers = [
        text_of(ask(endpoint.pairwise_url(loaded, order, pair), tools=None))
        for order, pair in (("old_first", 1), ("old_first", 2), ("old_first", 3), ("new_first", 1))
    ]
    assert answers == ["VERDICT: B", "VERDICT: A", "VERDICT: A", ""]  # one per pair, the last repeated
    silent = text_of(ask(endpoint.pairwise_url(script({"with": ["hi"]}), "old_first", 1), tools=None))
    assert silent == "(scripted model: no pairwise: answers in scripted.yaml)"
    assert text_of(ask(endpoint.pairwise_url(None, "new_first", 1), tools=None)) == silent
    assert [c["kind"] for c in endpoint.calls()][-1] == "judge"


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("pairwise: {old_first: A}\n", "pairwise", "give both orders, old_first and new_first (missing: new_first)"),
        ("pairwise: {a_first: A, old_first: A, new_first: B}\n", "pairwise.a_first", "is not a key of pairwise"),
        ("pairwise: []\n", "pairwise", "give a reply or a non-empty list of replies"),
        ("pairwise: {old_first: A, new_first: [{tool: Read}]}\n", "pairwise.new_first[0].tool", "not allowed here"),
    ],
)
def test_pairwise_answers_are_validated_naming_the_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_script(write_script(tmp_path, text))
    assert caught.value.key == key and words in caught.value.message


def test_judge_replies_by_arm_and_run():
    loaded = script(
        {
            "judge": {
                "quality": {"with": "PASS", "without": {1: ["PASS"], "default": ["FAIL", "PASS"]}},
                "default": "FAIL",
            }
        }
    )
    assert loaded.judge_replies("quality", "with", 3)[0].blocks == (TextBlock("PASS"),)
    assert loaded.judge_replies("quality", "without", 1)[0].blocks == (TextBlock("PASS"),)
    assert [t.blocks for t in loaded.judge_replies("quality", "without", 2)] == [
        (TextBlock("FAIL"),),
        (TextBlock("PASS"),),
    ]
    assert loaded.judge_replies("style", "without", 2)[0].blocks == (TextBlock("FAIL"),)


def test_control_replies():
    loaded = script({"controls": {"quality": {"inject": "PASS"}, "default": "FAIL"}})
    assert loaded.control_reply("quality", "inject").blocks == (TextBlock("PASS"),)
    assert loaded.control_reply("quality", "empty").blocks == (TextBlock("FAIL"),)
    assert script({}).control_reply("x", "echo").blocks == (TextBlock("FAIL"),)


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"judge": {"q": {"both": "PASS"}}}, "judge.q.both"),
        ({"judge": {"q": {"without": {"first": "PASS"}}}}, "judge.q.without.first"),
        ({"controls": {"q": {"sneaky": "PASS"}}}, "controls.q.sneaky"),
        ({"controls": "PASS"}, "controls"),
    ],
)
def test_bad_judge_and_control_replies_are_named(data, key):
    with pytest.raises(SpecError) as raised:
        script(data)
    assert raised.value.key == key


# ---- a real model's traffic: thinking, parallel calls, stop reasons, max_tokens, pings --------------------------


def test_a_turn_thinks_before_it_answers_and_may_call_tools_in_parallel(endpoint: ScriptedEndpoint) -> None:
    loaded = script(
        {
            "with": [
                {
                    "thinking": "two globs at once",
                    "blocks": [
                        {"tool": "Glob", "input": {"pattern": "*"}},
                        {"tool": "Read", "input": {"file_path": "a"}},
                    ],
                },
                {"blocks": [{"thinking": "done"}, "Hello {arm}"]},
            ]
        }
    )
    url = endpoint.agent_url(loaded)
    with client(url).messages.stream(model="m", max_tokens=1000, messages=history(0), tools=TOOLS) as stream:
        first = stream.get_final_message()
    assert [block.type for block in first.content] == ["thinking", "tool_use", "tool_use"]
    assert first.content[0].thinking == "two globs at once" and first.content[0].signature == "scripted"
    assert first.stop_reason == "tool_use"
    second = ask(url, assistant_turns=1)
    assert [block.type for block in second.content] == ["thinking", "text"] and second.content[1].text == "Hello with"


def test_a_turn_may_stop_on_a_refusal(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(script({"with": [{"text": "I won't.", "stop": "refusal"}]}))
    with client(url).messages.stream(model="m", max_tokens=1000, messages=history(0), tools=TOOLS) as stream:
        reply = stream.get_final_message()
    assert (reply.stop_reason, text_of(reply)) == ("refusal", "I won't.")


def test_a_reply_longer_than_max_tokens_is_cut_and_stops_on_max_tokens(endpoint: ScriptedEndpoint) -> None:
    paragraph = "The reply greets the user by name, in one sentence, as asked. " * 4 + "PASS"
    url = endpoint.judge_url(script({"judge": {"quality": [paragraph]}}), grader="quality")
    cut = client(url).messages.create(model="m", max_tokens=16, messages=history(0))
    assert (cut.stop_reason, text_of(cut)) == ("max_tokens", paragraph[:64])
    whole = client(url).messages.create(model="m", max_tokens=1024, messages=history(0))
    assert (whole.stop_reason, text_of(whole)) == ("end_turn", paragraph)


def sse_events(url: str, assistant_turns: int) -> list[str]:
    """The event names of a streamed reply, as they come over the wire (the SDK hides pings)."""
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": history(assistant_turns), "tools": TOOLS}
    request = urllib.request.Request(
        f"{url}/v1/messages", data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        lines = response.read().decode().splitlines()
    return [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]


def test_pings_keep_a_stalled_stream_alive(endpoint: ScriptedEndpoint) -> None:
    url = endpoint.agent_url(
        script({"with": [{"text": "late", "stall": 0.5, "pings": 0.1}, {"text": "x", "stall": 0.3}]})
    )
    events = sse_events(url, 0)
    assert events[0] == "message_start" and events.count("ping") >= 3 and events[-1] == "message_stop"
    assert set(events[1 : events.index("content_block_start")]) == {"ping"}
    assert "ping" not in sse_events(url, 1)  # a stall without pings is silent


@pytest.mark.parametrize(
    ("turn", "message"),
    [
        ({"text": "x", "stop": "nope"}, "with[0].stop: 'nope' is not a stop reason of the Messages API"),
        ({"error": {"status": 500}, "pings": 1}, "with[0]: drop, stall, trickle, pings and stop apply to replies"),
        ({"blocks": [{"thinking": 3}]}, "with[0].blocks[0].thinking"),
    ],
)
def test_traffic_keys_are_validated(turn: dict, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        script({"with": [turn]})
    assert message in str(raised.value)


def test_a_credential_told_to_expire_is_refused_after_so_many_agent_requests() -> None:
    with ScriptedEndpoint(expire_after=2) as ep:
        url = ep.session_url()
        assert text_of(ask(url)) and text_of(ask(url))  # two agent requests answered
        assert text_of(ask(url, tools=None, system="You grade the output of an AI coding agent")) == "PASS"
        for kwargs in ({}, {"tools": None}):  # the third agent request, and everything after it
            with pytest.raises(anthropic.AuthenticationError, match="OAuth token has expired"):
                ask(url, **kwargs)
        assert [c["kind"] for c in ep.calls()] == ["agent", "agent", "judge", "agent", "side"]


def test_judge_votes_on_a_session_url_are_counted_per_judge_prompt_whatever_order_they_come_in() -> None:
    # A run's judges are asked at once: each grader's prompt gets the `default` replies from the first, however
    # its requests interleave with the other graders'.
    system = "You grade the output of an AI coding agent against one criterion."

    def vote(url: str, criterion: str) -> str:
        messages = [{"role": "user", "content": criterion}]
        return text_of(
            client(url).messages.create(model="claude-test", max_tokens=10, system=system, messages=messages)
        )

    with ScriptedEndpoint() as ep:
        url = ep.session_url(script({"judge": {"default": ["FAIL", "PASS"]}}))
        assert [vote(url, "says hi"), vote(url, "says bye"), vote(url, "says bye"), vote(url, "says hi")] == [
            "FAIL",
            "FAIL",
            "PASS",
            "PASS",
        ]
