"""Unit tests for the LLM judge (pytest_plugin_eval.judge) and the paid graders (pytest_plugin_eval.graders.judge).

No network: the Anthropic client is a fake object with `.messages.create(**kw)`."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path
from types import SimpleNamespace

import anthropic
import pytest

try:  # the transport the installed anthropic SDK is built on
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from helpers.fakes import FakeJudge

from pytest_plugin_eval.core import prices as cost
from pytest_plugin_eval.core.prices import Usage
from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.grade.base import GradeContext, Verdict, registry
from pytest_plugin_eval.grade.judge import (
    ANSWER_LINE,
    BAD_REQUEST_ATTEMPTS,
    MAX_ATTEMPTS,
    MAX_TOKENS,
    SYSTEM_PROMPT,
    Ballot,
    Judge,
    JudgeUnavailable,
    describe_error,
    parse_verdict,
    resolve_judge_model,
)
from pytest_plugin_eval.grade.targets import NO_MOCKS, FileTarget, TargetError
from pytest_plugin_eval.grade.types import grader_types  # noqa: F401  (registers the built-in types)
from pytest_plugin_eval.grade.types.judged import (
    BaselineConfig,
    Evidence,
    LlmConfig,
    binary_kind,
    cut_chars,
    cut_lines,
    focus_evidence,
    judged,
)
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
HAIKU = "claude-haiku-5-5"


# ---- parse_verdict -----------------------------------------------------------------------------------------

PASS_REPLIES = [
    "PASS",
    "pass",
    "Pass",
    "PASS.",
    "**PASS**",
    "PASS!",
    "pAsS",
    "'PASS'",
    "<verdict>PASS</verdict>",
    '{"verdict": "PASS"}',
    "Verdict: PASS",
    "I would say PASS",
    "PASS\n<reason>",
    "<reason>\nPASS",
    "PASS PASS",
    "PASS (no failures)",
    "PASS\nFAILED",
    "pass-through",
]
FAIL_REPLIES = [
    "NOT PASS",
    "FAIL",
    "fail",
    "Fail",
    "PASS or FAIL",
    "FAIL - not PASS",
    "pass, not fail",
    "PASS. Nothing here would FAIL.",
    "FAIL\nPASS",
    "FAIL…",
    "does not pass",
]
# No PASS or FAIL as a word: no vote at all (the judge is asked again, and errored when it never answers).
NO_VERDICT_REPLIES = [
    "PASSED",
    "PASSING",
    "PASS_",
    "PASS1",
    "FAILPASS",
    "FAILED",
    "YES",
    "the answer is correct",
    "",
    "lorem ipsum dolor sit amet",
    "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
]


def test_reply_lists_hold_40_replies():
    assert len(PASS_REPLIES) == 18
    assert len(FAIL_REPLIES) == 11
    assert len(NO_VERDICT_REPLIES) == 11
    assert len(set(PASS_REPLIES + FAIL_REPLIES + NO_VERDICT_REPLIES)) == 40


@pytest.mark.parametrize("reply", PASS_REPLIES)
def test_parse_verdict_pass(reply):
    assert parse_verdict(reply) is True


@pytest.mark.parametrize("reply", FAIL_REPLIES)
def test_parse_verdict_fail(reply):
    assert parse_verdict(reply) is False


@pytest.mark.parametrize("reply", [*NO_VERDICT_REPLIES, None, "no"])
def test_a_reply_without_a_verdict_word_is_no_vote(reply):
    assert parse_verdict(reply) is None


@pytest.mark.parametrize(
    "reply",
    [
        "never PASS",
        "cannot pass",
        "don't pass",
        "isn't PASS",
        "won't PASS",
        "wouldn't pass",
        "can't pass",
        "doesn't pass",
    ],
)
def test_parse_verdict_more_fail_votes(reply):
    assert parse_verdict(reply) is False


@pytest.mark.parametrize("reply", ["notable PASS", "Nothing wrong. PASS", "knot PASS"])
def test_parse_verdict_negation_must_be_a_whole_word_right_before(reply):
    assert parse_verdict(reply) is True


# ---- resolve_judge_model -----------------------------------------------------------------------------------


def test_resolve_judge_model_aliases_and_ids():
    assert resolve_judge_model("haiku", {}) == "claude-haiku-5-5"
    assert resolve_judge_model("sonnet", {}) == "claude-sonnet-5-5"
    assert resolve_judge_model("opus", {}) == "claude-opus-5-5"
    assert resolve_judge_model("claude-sonnet-4-6", {}) == "claude-sonnet-4-6"
    assert resolve_judge_model("some-model-id", {}) == "some-model-id"


def test_resolve_judge_model_default_is_haiku():
    assert resolve_judge_model(None, {}) == "claude-haiku-5-5"
    assert resolve_judge_model("", {}) == "claude-haiku-5-5"


def test_resolve_judge_model_environment_precedence():
    both = {
        "ANTHROPIC_SMALL_FAST_MODEL": "small-fast",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": "my-haiku",
        "ANTHROPIC_MODEL": "main-model",
    }
    assert resolve_judge_model(None, both) == "small-fast"
    assert (
        resolve_judge_model(None, {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "my-haiku", "ANTHROPIC_MODEL": "m"}) == "my-haiku"
    )
    assert resolve_judge_model(None, {"ANTHROPIC_MODEL": "main-model"}) == "claude-haiku-5-5"
    assert resolve_judge_model(None, {"ANTHROPIC_SMALL_FAST_MODEL": "", "ANTHROPIC_DEFAULT_HAIKU_MODEL": "h"}) == "h"


def test_resolve_judge_model_option_wins_over_environment():
    env = {"ANTHROPIC_SMALL_FAST_MODEL": "small-fast", "ANTHROPIC_DEFAULT_HAIKU_MODEL": "my-haiku"}
    # `haiku` means the operator's haiku when one is set…
    assert resolve_judge_model("haiku", env) == "my-haiku"
    assert resolve_judge_model("haiku", {"ANTHROPIC_SMALL_FAST_MODEL": "small-fast"}) == "claude-haiku-5-5"
    # …other options ignore the environment.
    assert resolve_judge_model("sonnet", env) == "claude-sonnet-5-5"
    assert resolve_judge_model("claude-opus-4-1", env) == "claude-opus-4-1"


def test_resolve_judge_model_reads_os_environ(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_SMALL_FAST_MODEL", raising=False)
    monkeypatch.setenv("ANTHROPIC_DEFAULT_HAIKU_MODEL", "env-haiku")
    monkeypatch.setenv("ANTHROPIC_MODEL", "env-main")
    assert resolve_judge_model(None) == "env-haiku"
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "env-small")
    assert resolve_judge_model(None) == "env-small"


# ---- Ballot ------------------------------------------------------------------------------------------------


def test_ballot_properties():
    assert Ballot().passed is False and Ballot().decided is False
    assert Ballot([True, True]).passed and Ballot([True, True]).decided
    assert not Ballot([True, False]).decided
    assert Ballot([False, True, False]).decided and not Ballot([False, True, False]).passed
    assert Ballot([True, False, True]).explanation() == "judge votes: PASS FAIL PASS"
    assert Ballot([False, False]).explanation() == "judge votes: FAIL FAIL"


# ---- Judge.ballot with a fake client -----------------------------------------------------------------------


def status_error(status: int, message: str = "boom", retry_after: str | None = None) -> anthropic.APIStatusError:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    response = httpx.Response(status, headers=headers, request=httpx.Request("POST", "http://x"))
    classes = {
        400: anthropic.BadRequestError,
        401: anthropic.AuthenticationError,
        429: anthropic.RateLimitError,
        500: anthropic.InternalServerError,
    }
    return classes.get(status, anthropic.APIStatusError)(message, response=response, body=None)


class FakeUsage:
    def __init__(self, **tokens):
        self.tokens = tokens

    def model_dump(self):
        return dict(self.tokens)


def reply(text: str, input_tokens: int = 1000, output_tokens: int = 10, **more) -> SimpleNamespace:
    return SimpleNamespace(
        content=[SimpleNamespace(type="text", text=text)],
        usage=FakeUsage(input_tokens=input_tokens, output_tokens=output_tokens, **more),
    )


class FakeClient:
    """Answers calls in arrival order from a script of replies (text or SimpleNamespace) and exceptions."""

    def __init__(self, script):
        self.script = list(script)
        self.calls: list[dict] = []
        self.lock = threading.Lock()
        self.messages = self

    def create(self, **kw):
        with self.lock:
            self.calls.append(kw)
            item = self.script.pop(0) if self.script else AssertionError("unexpected extra call")
        if isinstance(item, BaseException):
            raise item
        return reply(item) if isinstance(item, str) else item


class Sleeps(list):
    """A sleep function that records how long it was asked to wait (list.append is atomic)."""

    def __call__(self, seconds):
        self.append(seconds)


def make_judge(script, model=HAIKU):
    client = FakeClient(script)
    sleeps = Sleeps()
    graders = []

    def client_for(grader):
        graders.append(grader)
        return client

    return Judge(model, client_for, sleep=sleeps), client, sleeps, graders


CONTENT = [{"type": "text", "text": "Criterion: x"}]


def test_ballot_pass_pass_stops_after_two_calls():
    judge, client, sleeps, graders = make_judge(["PASS", "PASS", "FAIL"])
    ballot = judge.ballot("my-grader", CONTENT)
    assert ballot.votes == [True, True]
    assert ballot.passed is True
    assert ballot.errors == []
    assert len(client.calls) == 2
    assert client.script == ["FAIL"]
    assert sleeps == []
    assert graders == ["my-grader", "my-grader"]
    assert ballot.explanation() == "judge votes: PASS PASS"


def test_ballot_sends_the_request_shape():
    judge, client, _, _ = make_judge(["PASS", "PASS"], model="claude-sonnet-4-6")
    judge.ballot("g", CONTENT)
    assert client.calls[0] == {
        "model": "claude-sonnet-4-6",
        "max_tokens": MAX_TOKENS,
        "system": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": CONTENT}],  # too short to be cached: not marked
    }
    assert MAX_TOKENS == 4096  # room for a judge that reasons before its verdict
    assert "PASS" in SYSTEM_PROMPT and "FAIL" in SYSTEM_PROMPT
    assert ANSWER_LINE == "Answer with exactly one word: PASS or FAIL."


LONG_CONTENT = [{"type": "text", "text": "Criterion: x\n"}, {"type": "text", "text": "evidence " * 600}]


class InFlight(FakeClient):
    """A FakeClient that records how many calls were in flight at once."""

    def __init__(self, script):
        super().__init__(script)
        self.now = self.most = 0
        self.both_started = threading.Barrier(2, timeout=0.5)

    def create(self, **kw):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            self.both_started.wait()  # two calls sent at once meet here; a lone call goes on after the timeout
        except threading.BrokenBarrierError:
            pass
        try:
            return super().create(**kw)
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.parametrize(("content", "most"), [(CONTENT, 2), (LONG_CONTENT, 1)])
def test_a_prompt_long_enough_to_cache_has_its_first_vote_cast_alone(content, most):
    client = InFlight(["PASS", "PASS"])
    ballot = Judge(HAIKU, lambda grader: client, sleep=Sleeps()).ballot("g", content)
    assert ballot.votes == [True, True] and client.most == most
    for call in client.calls:  # a long prompt is marked in every vote, its breakpoint on the last block
        *head, last = call["messages"][0]["content"]
        assert last.get("cache_control") == ({"type": "ephemeral"} if most == 1 else None)
        assert all("cache_control" not in b for b in head)
    assert all("cache_control" not in b for b in content)  # the caller's blocks are not marked in place


def test_cache_tokens_are_priced_in_the_ballot():
    written = reply("PASS", input_tokens=3, cache_creation_input_tokens=2000)
    read = reply("PASS", input_tokens=3, cache_read_input_tokens=2000)
    client = FakeClient([written, read])
    ballot = Judge(HAIKU, lambda grader: client, sleep=Sleeps()).ballot("g", LONG_CONTENT)
    expected = cost.price(HAIKU, Usage(input_tokens=6, output_tokens=20, cache_creation_input_tokens=2000))
    expected += cost.price(HAIKU, Usage(cache_read_input_tokens=2000))
    assert ballot.cost_usd == pytest.approx(expected)
    assert ballot.cost_usd < cost.price(HAIKU, Usage(input_tokens=2 * 2003, output_tokens=20))


def test_ballot_split_then_pass():
    judge, client, sleeps, _ = make_judge(["PASS", "FAIL", "PASS"])
    ballot = judge.ballot("g", CONTENT)
    # The first two votes are cast at once, so their order is not fixed; the third comes last.
    assert sorted(ballot.votes[:2]) == [False, True]
    assert ballot.votes[2] is True
    assert ballot.passed is True
    assert len(client.calls) == 3
    assert sleeps == []


def test_ballot_fail_fail():
    judge, client, _, _ = make_judge(["FAIL", "NOT PASS", "PASS"])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [False, False]
    assert ballot.passed is False
    assert len(client.calls) == 2
    assert ballot.explanation() == "judge votes: FAIL FAIL"


def test_ballot_split_then_fail():
    judge, client, _, _ = make_judge(["FAIL", "PASS", "FAIL"])
    ballot = judge.ballot("g", CONTENT)
    assert sorted(ballot.votes[:2]) == [False, True]
    assert ballot.votes[2] is False
    assert ballot.passed is False
    assert ballot.decided is True
    assert len(client.calls) == 3


def test_ballot_cost_is_summed_at_the_models_price():
    judge, _, _, _ = make_judge([reply("PASS", 1000, 10), reply("PASS", 3000, 30)])
    ballot = judge.ballot("g", CONTENT)
    # haiku 5.5: $0.1 per million input tokens, $0.5 per million output tokens
    expected = (1000 * 0.1 + 10 * 0.5 + 3000 * 0.1 + 30 * 0.5) / 1_000_000
    assert ballot.cost_usd == pytest.approx(expected, rel=1e-12)
    assert ballot.cost_usd == pytest.approx(cost.price(HAIKU, Usage(4000, 40)), rel=1e-12)


def test_ballot_cost_uses_cache_tokens_and_the_judge_model():
    usage = dict(input_tokens=100, output_tokens=20, cache_read_input_tokens=1000, cache_creation_input_tokens=400)
    judge, _, _, _ = make_judge([reply("FAIL", **usage), reply("FAIL", **usage)], model="sonnet")
    ballot = judge.ballot("g", CONTENT)
    # `sonnet` is priced as claude-sonnet-5-5: 2 / 10 / 0.1 / 2.5 per million
    one = (100 * 2 + 20 * 10 + 1000 * 0.1 + 400 * 2.5) / 1_000_000
    assert ballot.cost_usd == pytest.approx(2 * one, rel=1e-12)


def test_ballot_usage_without_model_dump_costs_nothing():
    bare = SimpleNamespace(content=[SimpleNamespace(type="text", text="PASS")], usage=None)
    judge, _, _, _ = make_judge([bare, bare])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [True, True]
    assert ballot.cost_usd == 0.0


def test_ballot_reads_only_text_blocks():
    message = SimpleNamespace(
        content=[
            SimpleNamespace(type="thinking", thinking="FAIL", text="FAIL"),
            SimpleNamespace(type="text", text="PA"),
            SimpleNamespace(type="text", text="SS"),
        ],
        usage=FakeUsage(input_tokens=1, output_tokens=1),
    )
    judge, _, _, _ = make_judge([message, message])
    assert judge.ballot("g", CONTENT).votes == [True, True]


def test_retry_after_is_honoured():
    judge, client, sleeps, _ = make_judge([status_error(429, "slow down", retry_after="7"), "PASS", "PASS"])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [True, True]
    assert ballot.errors == []
    assert sleeps == [7.0]
    assert len(client.calls) == 3


def test_retry_after_is_capped_at_30_seconds():
    judge, _, sleeps, _ = make_judge([status_error(429, retry_after="600"), "PASS", "PASS"])
    judge.ballot("g", CONTENT)
    assert sleeps == [30.0]


def test_unreadable_retry_after_falls_back_to_backoff():
    judge, _, sleeps, _ = make_judge([status_error(503, retry_after="soon"), "PASS", "PASS"])
    judge.ballot("g", CONTENT)
    assert sleeps == [1.0]


def test_persistent_500_makes_the_judge_unavailable():
    judge, client, sleeps, _ = make_judge([status_error(500, "overloaded")] * 20)
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    # The lost votes are counted, and the same error is named once.
    assert str(info.value) == "3 vote(s) failed after retries: API error 500: overloaded"
    # Three votes lost, each after MAX_ATTEMPTS attempts with backoff 1, 2, 4 between them.
    assert MAX_ATTEMPTS == 4
    assert len(client.calls) == 3 * MAX_ATTEMPTS
    assert sorted(sleeps) == sorted([1.0, 2.0, 4.0] * 3)


def test_bad_request_is_retried_once():
    judge, client, sleeps, _ = make_judge([status_error(400, "bad")] * 20)
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert BAD_REQUEST_ATTEMPTS == 2
    assert len(client.calls) == 3 * 2
    assert sleeps == [1.0, 1.0, 1.0]
    assert str(info.value) == "3 vote(s) failed after retries: API error 400: bad"


def test_bad_request_then_answer():
    judge, client, sleeps, _ = make_judge([status_error(400), "PASS", "PASS"])
    assert judge.ballot("g", CONTENT).votes == [True, True]
    assert len(client.calls) == 3
    assert sleeps == [1.0]


def test_pass_400_400_pass_still_passes():
    judge, client, sleeps, _ = make_judge(["PASS", status_error(400, "bad"), status_error(400, "bad"), "PASS"])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [True, True]
    assert ballot.passed is True
    assert ballot.errors == ["API error 400: bad"]
    assert len(client.calls) == 4
    assert sleeps == [1.0]


def test_votes_lost_to_errors_do_not_cost():
    judge, _, _, _ = make_judge(
        [reply("PASS", 100_000, 0), status_error(400), status_error(400), reply("PASS", 100_000, 0)]
    )
    ballot = judge.ballot("g", CONTENT)
    assert ballot.cost_usd == pytest.approx(2 * 0.01, rel=1e-12)


def test_long_prompts_are_priced_at_the_long_prompt_rate():
    # haiku 5.5 above 200,000 prompt tokens: $0.5 per million input tokens instead of $0.1
    judge, _, _, _ = make_judge([reply("PASS", 1_000_000, 0), reply("PASS", 200_000, 0)])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.cost_usd == pytest.approx(0.5 + 0.02, rel=1e-12)


def test_non_retryable_error_is_not_retried():
    judge, client, sleeps, _ = make_judge([status_error(401, "no key")] * 5)
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert len(client.calls) == 3
    assert sleeps == []
    assert str(info.value) == "3 vote(s) failed after retries: API error 401: no key"


def test_connection_errors_are_retried():
    error = anthropic.APIConnectionError(request=httpx.Request("POST", "http://x"))
    judge, client, sleeps, _ = make_judge([error, error, "FAIL", "FAIL"])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [False, False]
    assert len(client.calls) == 4
    assert sorted(sleeps) in ([1.0, 1.0], [1.0, 2.0])


def test_no_majority_after_three_lost_votes_mixed():
    # PASS, then every later vote fails for good: one vote and three errors, no majority.
    judge, client, _, _ = make_judge(["PASS"] + [status_error(401, "denied")] * 5)
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert str(info.value) == "3 vote(s) failed after retries: API error 401: denied"
    assert len(client.calls) == 4


def test_no_majority_lists_each_distinct_error():
    judge, _, _, _ = make_judge(
        [status_error(401, "denied"), status_error(403, "forbidden"), status_error(401, "denied")]
    )
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert str(info.value) in (
        "3 vote(s) failed after retries: API error 401: denied; API error 403: forbidden",
        "3 vote(s) failed after retries: API error 403: forbidden; API error 401: denied",
    )


def test_a_judge_that_never_says_pass_or_fail_is_unavailable_not_a_fail():
    judge, client, _, _ = make_judge([reply("lorem ipsum", 1000, 10)] * 3)
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert str(info.value) == "3 replies with no PASS or FAIL in it: 'lorem ipsum'"
    assert len(client.calls) == 3  # the vote budget: three lost votes
    assert info.value.cost_usd == pytest.approx(3 * (1000 * 0.1 + 10 * 0.5) / 1_000_000, rel=1e-12)


def test_a_proxy_error_page_and_an_empty_reply_are_no_votes():
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
    judge, _, _, _ = make_judge([page, "", page])
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    message = str(info.value)
    assert message.startswith("3 replies with no PASS or FAIL in it: ")
    assert "'<html><head><title>502 Bad Gateway</title></head><body><h1>5…'" in message
    assert "an empty reply" in message


def test_a_reply_without_a_verdict_is_replaced_by_another_vote():
    judge, client, _, _ = make_judge(["lorem ipsum", "PASS", "PASS"])
    ballot = judge.ballot("g", CONTENT)
    assert ballot.votes == [True, True] and ballot.passed
    assert ballot.unreadable == ["'lorem ipsum'"] and ballot.errors == []
    assert len(client.calls) == 3


def test_votes_lost_to_errors_and_to_replies_add_up_to_the_budget():
    judge, client, _, _ = make_judge([status_error(401, "denied"), "maybe?", status_error(401, "denied")])
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert len(client.calls) == 3
    assert str(info.value) == (
        "2 vote(s) failed after retries: API error 401: denied · 1 reply with no PASS or FAIL in it: 'maybe?'"
    )


def test_a_judge_that_reasons_before_its_verdict_is_read_wherever_the_verdict_is():
    reasoning = "The reply greets the user by name and keeps to one sentence, as the criterion asks. " * 5
    judge, client, _, _ = make_judge([reasoning + "\n\nPASS", "Looking at it closely:\n" + reasoning + "Verdict: PASS"])
    assert judge.ballot("g", CONTENT).votes == [True, True]
    assert client.calls[0]["max_tokens"] == MAX_TOKENS


def test_a_reply_cut_off_by_the_token_limit_says_so():
    cut = reply("The reply greets the user by name. It also")
    cut.stop_reason = "max_tokens"
    judge, _, _, _ = make_judge([cut, cut, cut])
    with pytest.raises(JudgeUnavailable) as info:
        judge.ballot("g", CONTENT)
    assert str(info.value) == (
        "3 replies stopped at the judge's token limit (max_tokens 4096) before any PASS or FAIL: "
        "'The reply greets the user by name. It also'"
    )


def test_not_pass_and_pass_or_fail_are_still_fail_votes():
    judge, _, _, _ = make_judge(["NOT PASS", "PASS or FAIL"])
    assert judge.ballot("g", CONTENT).votes == [False, False]


def test_llm_grade_with_a_judge_that_never_answers_is_errored_and_keeps_its_cost(tmp_path):
    judge, _, _, _ = make_judge([reply("lorem ipsum", 2000, 4)] * 3)
    verdict = grade("llm", {}, "Says hello.", basic_run(tmp_path), GradeContext(grader="g", judge=judge))
    assert verdict.errored is True and verdict.passed is False
    assert verdict.explanation == "judge unavailable: 3 replies with no PASS or FAIL in it: 'lorem ipsum'"
    assert verdict.cost_usd == pytest.approx(3 * (2000 * 0.1 + 4 * 0.5) / 1_000_000, rel=1e-12)


def test_describe_error():
    assert describe_error(status_error(429, "rate limited")) == "API error 429: rate limited"
    response = httpx.Response(400, request=httpx.Request("POST", "http://x"))
    error = anthropic.BadRequestError(
        "Error code: 400 - {...}",
        response=response,
        body={"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}},
    )
    assert describe_error(error) == "API error 400: prompt is too long"
    assert describe_error(ValueError("odd")) == "ValueError: odd"


# ---- cut_lines / cut_chars / binary_kind -------------------------------------------------------------------


def test_cut_lines_keeps_12_and_12():
    lines = [f"line {i}" for i in range(1, 34)]
    cut = cut_lines("\n".join(lines)).split("\n")
    assert len(cut) == 25
    assert cut[:12] == lines[:12]
    assert cut[12] == "[…9 messages elided…]"
    assert cut[13:] == lines[-12:]
    assert cut[13] == "line 22"


def test_cut_lines_leaves_24_lines_alone():
    text = "\n".join(str(i) for i in range(24))
    assert cut_lines(text) == text
    assert cut_lines("") == ""
    assert cut_lines("\n".join(str(i) for i in range(25))).split("\n")[12] == "[…1 messages elided…]"


def test_cut_chars():
    text = "h" * 80_000 + "m" * 50_010 + "t" * 20_000
    assert len(text) == 150_010
    assert cut_chars(text) == "h" * 80_000 + "\n[…50010 chars elided…]\n" + "t" * 20_000
    untouched = "x" * 100_000
    assert cut_chars(untouched) is untouched
    assert cut_chars("y" * 100_001) == "y" * 80_000 + "\n[…1 chars elided…]\n" + "y" * 20_000


@pytest.mark.parametrize(
    "data, kind",
    [
        (b"%PDF-1.7\n...", "a PDF document"),
        (b"PK\x03\x04\x14\x00", "a ZIP archive (Office documents such as .docx/.xlsx/.pptx are ZIPs)"),
        (b"abc\x00def", "a binary file"),
        (b"a" * 8191 + b"\x00", "a binary file"),
        (b"a" * 8192 + b"\x00", None),  # only the first 8 KiB are sniffed
        ("naïve text".encode(), None),
        (b"", None),
        (b"PDF-1.7", None),
    ],
)
def test_binary_kind(data, kind):
    assert binary_kind(data) == kind


# ---- focus_evidence ----------------------------------------------------------------------------------------


def line(event: dict) -> str:
    return json.dumps(event)


def text_event(text: str, mid: str) -> dict:
    return {
        "type": "assistant",
        "message": {"id": mid, "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": None,
    }


def tool_event(name: str, tool_input: dict, tid: str, mid: str) -> dict:
    return {
        "type": "assistant",
        "message": {"id": mid, "content": [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}]},
        "parent_tool_use_id": None,
    }


def make_run(tmp_path: Path, events=(), created=(), mock_calls=None) -> RunOutput:
    text = "\n".join(line(e) for e in events) + "\n"
    return RunOutput(Transcript(text), cwd=tmp_path, created_files=tuple(created), mock_calls=mock_calls)


def basic_run(tmp_path: Path, **kw) -> RunOutput:
    return make_run(
        tmp_path,
        [
            {"type": "system", "subtype": "init"},
            text_event("thinking aloud", "m1"),
            tool_event("Read", {"file_path": "a.py"}, "t1", "m1"),
            text_event("All tests pass.", "m2"),
            {"type": "result", "subtype": "success", "num_turns": 2},
        ],
        **kw,
    )


def expected_prompt(criteria: str, label: str, text: str) -> str:
    return (
        f"Criterion:\n{criteria}\n\nEvidence — {label}:\n<evidence>\n{text}\n</evidence>\n\n"
        f"Answer with exactly one word: PASS or FAIL."
    )


def test_focus_evidence_last_message(tmp_path):
    evidence = focus_evidence("last_message", basic_run(tmp_path), "Says the tests pass.")
    assert evidence.text == "All tests pass."
    assert evidence.note == ""
    assert evidence.blocks == [
        {"type": "text", "text": expected_prompt("Says the tests pass.", "last_message", "All tests pass.")}
    ]


def test_focus_evidence_trace_is_cut_to_its_edges(tmp_path):
    events = [text_event(f"step {i}", f"m{i}") for i in range(40)]
    run = make_run(tmp_path, events)
    evidence = focus_evidence("trace", run, "c")
    lines = evidence.text.split("\n")
    assert len(lines) == 25
    assert lines[12] == "[…16 messages elided…]"
    assert lines[0] == line(events[0]) and lines[-1] == line(events[-1])
    assert evidence.blocks[0]["text"] == expected_prompt("c", "trace", evidence.text)
    # A short trace is shown whole.
    short = basic_run(tmp_path)
    assert focus_evidence("trace", short, "c").text == short.transcript.text


def test_focus_evidence_files(tmp_path):
    run = basic_run(tmp_path, created=("a.md", "src/b.py"))
    evidence = focus_evidence("files", run, "c")
    assert evidence.text == "a.md\nsrc/b.py"
    assert evidence.blocks[0]["text"] == expected_prompt("c", "files", "a.md\nsrc/b.py")


def test_focus_evidence_long_last_message_is_cut_by_chars(tmp_path):
    run = make_run(tmp_path, [text_event("a" * 80_000 + "b" * 30_000 + "c" * 20_000, "m1")])
    evidence = focus_evidence("last_message", run, "c")
    assert evidence.text == "a" * 80_000 + "\n[…30000 chars elided…]\n" + "c" * 20_000
    assert evidence.note == ""  # the long-file note is for files only


def test_focus_evidence_file(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "r.md").write_text("# Report\nall good\n", encoding="utf-8")
    evidence = focus_evidence(FileTarget("out/r.md"), basic_run(tmp_path), "c")
    assert evidence.text == "# Report\nall good\n"
    assert evidence.note == ""
    assert evidence.blocks == [{"type": "text", "text": expected_prompt("c", "file out/r.md", "# Report\nall good\n")}]


def test_focus_evidence_long_file_note(tmp_path):
    (tmp_path / "exact.txt").write_text("x" * 8_000)
    (tmp_path / "long.txt").write_text("é" * 8_001, encoding="utf-8")  # counted in characters, not bytes
    run = basic_run(tmp_path)
    assert focus_evidence(FileTarget("exact.txt"), run, "c").note == ""
    evidence = focus_evidence(FileTarget("long.txt"), run, "c")
    assert evidence.note == (
        " — note: long file (8001 chars); llm judges are noisy on long inputs, prefer a regex "
        "grader for large artifacts"
    )
    assert evidence.text == "é" * 8_001


def test_focus_evidence_huge_file_is_cut_and_noted(tmp_path):
    (tmp_path / "huge.txt").write_text("z" * 150_010)
    evidence = focus_evidence(FileTarget("huge.txt"), basic_run(tmp_path), "c")
    assert "[…50010 chars elided…]" in evidence.text
    assert len(evidence.text) == 100_000 + len("\n[…50010 chars elided…]\n")
    assert "(150010 chars)" in evidence.note


def test_focus_evidence_image(tmp_path):
    (tmp_path / "shot.dat").write_bytes(PNG)  # detected by bytes, whatever the name
    evidence = focus_evidence(FileTarget("shot.dat"), basic_run(tmp_path), "Shows a chart.")
    assert evidence.note == " (image)"
    assert evidence.text == f"[image shown to the judge: shot.dat — sent as image/png, {len(PNG)} bytes]"
    assert evidence.blocks == [
        {"type": "text", "text": "Criterion:\nShows a chart.\n\nEvidence — file shot.dat, the attached image:"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode("ascii")},
        },
        {"type": "text", "text": "Answer with exactly one word: PASS or FAIL."},
    ]


def test_focus_evidence_image_too_large(tmp_path):
    data = b"\xff\xd8\xff" + b"\x00" * (5 * 1024 * 1024 - 2)
    (tmp_path / "big.jpg").write_bytes(data)
    with pytest.raises(TargetError) as info:
        focus_evidence(FileTarget("big.jpg"), basic_run(tmp_path), "c")
    assert str(info.value) == (
        f"file big.jpg is an image of {5 * 1024 * 1024 + 1} bytes; the judge takes images up to {5 * 1024 * 1024} bytes"
    )


@pytest.mark.parametrize(
    "name, data, kind",
    [
        ("doc.pdf", b"%PDF-1.4 ...", "a PDF document"),
        ("doc.docx", b"PK\x03\x04rest", "a ZIP archive (Office documents such as .docx/.xlsx/.pptx are ZIPs)"),
        ("blob.txt", b"\x01\x00\x02", "a binary file"),
    ],
)
def test_focus_evidence_refuses_binaries(tmp_path, name, data, kind):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(TargetError) as info:
        focus_evidence(FileTarget(name), basic_run(tmp_path), "c")
    assert str(info.value) == (
        f"file {name} cannot be shown to the judge as text — it is {kind}, and not an image "
        f"the judge can see (PNG/JPEG/GIF/WebP); have the case render it to an image or write "
        f"its content as UTF-8 text, and grade that"
    )


def test_focus_evidence_missing_file_and_no_mocks(tmp_path):
    with pytest.raises(TargetError) as info:
        focus_evidence(FileTarget("nope.md"), basic_run(tmp_path), "c")
    assert str(info.value) == 'file "nope.md" does not exist in the run\'s working directory'
    with pytest.raises(TargetError) as info:
        focus_evidence("mock_calls", basic_run(tmp_path), "c")
    assert str(info.value) == NO_MOCKS


# ---- llm / baseline parsing --------------------------------------------------------------------------------


def llm_parse(raw, body, case_dir=None):
    return registry()["llm"].parse(raw, body, case_dir=case_dir)


def baseline_parse(raw, body, case_dir=None):
    return registry()["baseline"].parse(raw, body, case_dir=case_dir)


def test_llm_parse():
    config = llm_parse({}, "\n  The answer names the bug.  \n")
    assert config == LlmConfig("The answer names the bug.", "last_message")
    config = llm_parse({"focus": {"source": "file", "path": "out/r.md"}}, "ok")
    assert config.focus == FileTarget("out/r.md")
    kind = registry()["llm"]
    assert kind.paid is True and kind.uses_body is True and kind.keys == ("focus",)
    assert kind.config_json(config) == {"criteria": "ok", "focus": {"source": "file", "path": "out/r.md"}}
    assert kind.with_only_by_default(llm_parse({"focus": "mock_calls"}, "x")) is True
    assert kind.with_only_by_default(llm_parse({"focus": "trace"}, "x")) is False
    assert kind.reads_created_files(config) is True
    assert kind.reads_created_files(llm_parse({"focus": "files"}, "x")) is True
    assert kind.reads_created_files(llm_parse({}, "x")) is False


@pytest.mark.parametrize("body", ["", "  \n\n\t"])
def test_llm_empty_body(body):
    with pytest.raises(SpecError) as info:
        llm_parse({}, body)
    assert info.value.key == "criteria"
    assert info.value.message == "is empty — write the rubric (what a passing run looks like) as the file's body"


def test_llm_bad_focus():
    with pytest.raises(SpecError) as info:
        llm_parse({"focus": "stdout"}, "x")
    assert info.value.key == "focus"
    with pytest.raises(SpecError) as info:
        llm_parse({"focus": {"source": "file", "path": "../x.md"}}, "x")
    assert info.value.key == "focus.path"


def test_baseline_parse_reserializes_lines_compactly(tmp_path):
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "base.jsonl").write_text(
        '{"type": "system", "n": 1.0}\n\n  \n{"text": "naïve/café", "z": [1, 2.50]}\n"just a string"\n',
        encoding="utf-8",
    )
    config = baseline_parse({"baseline_file": "ref/base.jsonl"}, "  Do it as well.  ", case_dir=tmp_path)
    assert config == BaselineConfig(
        "Do it as well.",
        "ref/base.jsonl",
        ('{"type":"system","n":1}', '{"text":"naïve/café","z":[1,2.5]}', '"just a string"'),
    )
    kind = registry()["baseline"]
    written = kind.config_json(config)
    assert {k: written[k] for k in ("criteria", "baseline_file")} == {
        "criteria": "Do it as well.",
        "baseline_file": "ref/base.jsonl",
    }
    # the reference's digest: an edited baseline is another case (--lf does not reuse runs graded against the old)
    (tmp_path / "ref" / "base.jsonl").write_text('{"type": "system", "n": 2}\n', encoding="utf-8")
    edited = baseline_parse({"baseline_file": "ref/base.jsonl"}, "  Do it as well.  ", case_dir=tmp_path)
    assert len(written["sha256"]) == 16 and kind.config_json(edited)["sha256"] != written["sha256"]
    assert kind.paid is True and kind.uses_body is True


def test_baseline_parse_without_case_dir_reads_nothing():
    config = baseline_parse({"baseline_file": "nowhere.jsonl"}, "x")
    assert config.lines == ()


def test_baseline_parse_errors(tmp_path):
    with pytest.raises(SpecError) as info:
        baseline_parse({"baseline_file": "b.jsonl"}, "   ", case_dir=tmp_path)
    assert info.value.key == "criteria"
    assert info.value.message.startswith("is empty — write what the new run must do")

    with pytest.raises(SpecError) as info:
        baseline_parse({}, "x", case_dir=tmp_path)
    assert (info.value.key, info.value.message) == ("baseline_file", "is required")

    with pytest.raises(SpecError) as info:
        baseline_parse({"baseline_file": ""}, "x", case_dir=tmp_path)
    assert (info.value.key, info.value.message) == ("baseline_file", "must be a non-empty string (got an empty string)")

    with pytest.raises(SpecError) as info:
        baseline_parse({"baseline_file": "missing.jsonl"}, "x", case_dir=tmp_path)
    assert (info.value.key, info.value.message) == (
        "baseline_file",
        '"missing.jsonl" does not exist in the case folder',
    )

    (tmp_path / "bad.jsonl").write_text('{"ok": 1}\n\n{not json}\n')
    with pytest.raises(SpecError) as info:
        baseline_parse({"baseline_file": "bad.jsonl"}, "x", case_dir=tmp_path)
    assert info.value.key == "baseline_file"
    assert info.value.message.startswith('"bad.jsonl" line 3 is not JSON (')
    assert info.value.message.endswith("); a baseline is a JSON Lines transcript such as a run's trace.jsonl")

    for path in ("../outside.jsonl", "/etc/passwd"):
        with pytest.raises(SpecError) as info:
            baseline_parse({"baseline_file": path}, "x", case_dir=tmp_path)
        assert info.value.key == "baseline_file"
        assert "leaves the run's working directory" in info.value.message

    (tmp_path / "latin1.jsonl").write_bytes(b'"caf\xe9"\n')
    with pytest.raises(SpecError) as info:
        baseline_parse({"baseline_file": "latin1.jsonl"}, "x", case_dir=tmp_path)
    assert info.value.key == "baseline_file"
    assert info.value.message.startswith('"latin1.jsonl" cannot be read: ')


# ---- grading with a fake judge -----------------------------------------------------------------------------


def grade(kind, raw, body, run, ctx, case_dir=None):
    grader = registry()[kind]
    return grader.grade(grader.parse(raw, body, case_dir=case_dir), run, ctx)


def test_llm_grade_pass(tmp_path):
    judge = FakeJudge(Ballot([True, True], cost_usd=0.25))
    verdict = grade("llm", {}, "Says the tests pass.", basic_run(tmp_path), GradeContext(grader="g", judge=judge))
    assert verdict == Verdict(
        True,
        "judge votes: PASS PASS",
        cost_usd=0.25,
        details={"judgeModel": HAIKU, "judgeVotes": [True, True], "evidence": "All tests pass."},
    )
    assert judge.calls == [
        ("g", [{"type": "text", "text": expected_prompt("Says the tests pass.", "last_message", "All tests pass.")}])
    ]


def test_llm_grade_fail_with_note(tmp_path):
    (tmp_path / "long.md").write_text("w" * 9_000)
    judge = FakeJudge(Ballot([True, False, False], cost_usd=0.5))
    verdict = grade(
        "llm",
        {"focus": {"source": "file", "path": "long.md"}},
        "x",
        basic_run(tmp_path),
        GradeContext(grader="g", judge=judge),
    )
    assert verdict.passed is False
    assert verdict.errored is False
    assert verdict.explanation == (
        "judge votes: PASS FAIL FAIL — note: long file (9000 chars); llm judges are noisy "
        "on long inputs, prefer a regex grader for large artifacts"
    )
    assert verdict.cost_usd == 0.5
    assert verdict.details["judgeVotes"] == [True, False, False]


def test_llm_grade_image(tmp_path):
    (tmp_path / "chart.png").write_bytes(PNG)
    judge = FakeJudge(Ballot([True, True]))
    verdict = grade(
        "llm",
        {"focus": {"source": "file", "path": "chart.png"}},
        "x",
        basic_run(tmp_path),
        GradeContext(grader="g", judge=judge),
    )
    assert verdict.explanation == "judge votes: PASS PASS (image)"
    assert verdict.details["evidence"].startswith("[image shown to the judge: chart.png")
    assert [b["type"] for b in judge.calls[0][1]] == ["text", "image", "text"]


def test_llm_grade_judge_unavailable_is_errored(tmp_path):
    judge = FakeJudge(error="API error 500: overloaded")
    verdict = grade("llm", {}, "x", basic_run(tmp_path), GradeContext(grader="g", judge=judge))
    assert verdict == Verdict(
        False, "judge unavailable: API error 500: overloaded", errored=True, details={"judgeModel": HAIKU}
    )


def test_llm_grade_without_judge_is_errored(tmp_path):
    expected = Verdict(False, "judge unavailable: no judge is configured for this session", errored=True)
    assert grade("llm", {}, "x", basic_run(tmp_path), GradeContext(grader="g")) == expected
    grader = registry()["llm"]
    assert grader.grade(grader.parse({}, "x"), basic_run(tmp_path)) == expected  # no context at all


def test_llm_grade_unreadable_focus_fails_without_a_judge_call(tmp_path):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4")
    judge = FakeJudge(Ballot([True, True]))
    verdict = grade(
        "llm",
        {"focus": {"source": "file", "path": "doc.pdf"}},
        "x",
        basic_run(tmp_path),
        GradeContext(grader="g", judge=judge),
    )
    assert verdict.passed is False and verdict.errored is False
    assert verdict.explanation.startswith("file doc.pdf cannot be shown to the judge as text — it is a PDF document")
    verdict = grade("llm", {"focus": "mock_calls"}, "x", basic_run(tmp_path), GradeContext(grader="g", judge=judge))
    assert verdict == Verdict(False, NO_MOCKS)
    assert judge.calls == []


def test_baseline_grade(tmp_path):
    (tmp_path / "base.jsonl").write_text('{"type": "result", "v": 2.0}\n')
    judge = FakeJudge(Ballot([False, False], cost_usd=0.125))
    run = basic_run(tmp_path)
    verdict = grade(
        "baseline",
        {"baseline_file": "base.jsonl"},
        "Fixes the bug.",
        run,
        GradeContext(grader="b", judge=judge),
        case_dir=tmp_path,
    )
    assert verdict == Verdict(
        False,
        "judge votes: FAIL FAIL",
        cost_usd=0.125,
        details={"judgeModel": HAIKU, "judgeVotes": [False, False]},
    )
    ((grader_name, blocks),) = judge.calls
    assert grader_name == "b"
    assert blocks == [
        {
            "type": "text",
            "text": (
                "Criterion:\nFixes the bug.\n\nBASELINE trajectory (a reference run):\n<baseline>\n"
                '{"type":"result","v":2}\n</baseline>\n\nNEW trajectory (the run being graded):\n<new>\n'
                f"{run.transcript.text}\n</new>\n\nDoes the NEW trajectory meet the criterion at least as well as the "
                "BASELINE? Answer with exactly one word: PASS or FAIL."
            ),
        }
    ]


def test_baseline_grade_cuts_long_trajectories(tmp_path):
    (tmp_path / "base.jsonl").write_text("\n".join(json.dumps({"i": i}) for i in range(30)) + "\n")
    run = make_run(tmp_path, [text_event(f"s{i}", f"m{i}") for i in range(50)])
    judge = FakeJudge(Ballot([True, True]))
    verdict = grade(
        "baseline", {"baseline_file": "base.jsonl"}, "x", run, GradeContext(grader="b", judge=judge), case_dir=tmp_path
    )
    assert verdict.passed is True
    prompt = judge.calls[0][1][0]["text"]
    assert "[…6 messages elided…]" in prompt  # 30 baseline lines
    assert "[…26 messages elided…]" in prompt  # 50 new lines
    assert '{"i":11}\n[…6 messages elided…]\n{"i":18}' in prompt


def test_baseline_grade_unavailable(tmp_path):
    (tmp_path / "base.jsonl").write_text("{}\n")
    verdict = grade(
        "baseline",
        {"baseline_file": "base.jsonl"},
        "x",
        basic_run(tmp_path),
        GradeContext(grader="b", judge=FakeJudge(error="API error 529: overloaded")),
        case_dir=tmp_path,
    )
    assert verdict.errored is True
    assert verdict.explanation == "judge unavailable: API error 529: overloaded"
    verdict = grade("baseline", {"baseline_file": "base.jsonl"}, "x", basic_run(tmp_path), None, case_dir=tmp_path)
    assert verdict == Verdict(False, "judge unavailable: no judge is configured for this session", errored=True)


def test_judged_records_evidence_only_when_asked():
    judge = FakeJudge(Ballot([True, True]))
    evidence = Evidence([{"type": "text", "text": "p"}], "the text", " (n)")
    with_evidence = judged(GradeContext(grader="g", judge=judge), evidence, record_evidence=True)
    assert with_evidence.details == {"judgeModel": HAIKU, "judgeVotes": [True, True], "evidence": "the text"}
    assert with_evidence.explanation == "judge votes: PASS PASS (n)"
    without = judged(GradeContext(grader="g", judge=judge), evidence, record_evidence=False)
    assert "evidence" not in without.details


def test_llm_grade_end_to_end_with_the_real_judge(tmp_path):
    judge, client, sleeps, graders = make_judge([reply("PASS", 2000, 4), reply("**PASS**", 2000, 4)])
    verdict = grade(
        "llm", {}, "Says the tests pass.", basic_run(tmp_path), GradeContext(grader="says-pass", judge=judge)
    )
    assert verdict.passed is True
    assert verdict.explanation == "judge votes: PASS PASS"
    assert verdict.details["judgeModel"] == HAIKU
    assert verdict.cost_usd == pytest.approx(2 * (2000 * 0.1 + 4 * 0.5) / 1_000_000, rel=1e-12)
    assert graders == ["says-pass", "says-pass"]
    assert client.calls[0]["messages"][0]["content"][0]["text"].endswith("Answer with exactly one word: PASS or FAIL.")
