"""The pairwise judge's prompt and replies (grade.pairwise_judge): blind, both outputs and the task shown, a
verdict read only when the reply gives one."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.grade import pairwise_judge as pj
from pytest_plugin_eval.grade.judge import CACHEABLE_CHARS


@pytest.mark.parametrize(
    ("reply", "preference"),
    [
        ("VERDICT: A\nREASON: it names the guest", "A"),
        ("**Verdict:** b — the second is complete", "B"),
        ("VERDICT: TIE\nREASON: the same", "tie"),
        ("verdict: a tie, both are fine", "tie"),
        ("B", "B"),
        ("VERDICT: Both are fine", None),
        ("Response A is longer but response B is right.", None),  # discusses both, chooses neither
        ("", None),
        (None, None),
    ],
)
def test_a_verdict_is_read_only_when_the_reply_gives_one(reply, preference):
    assert pj.parse_preference(reply) == preference


def test_the_reason_shown_is_what_follows_reason_or_the_reply_that_had_no_verdict():
    assert pj.reason_of("VERDICT: A\nREASON: Response A names Ada.") == "Response A names Ada"
    assert pj.reason_of("VERDICT: B") == "(no reason given)"
    assert pj.reason_of("I cannot tell") == "no verdict in the reply: 'I cannot tell'"
    assert len(pj.reason_of("VERDICT: A REASON: " + "x" * 1000)) == pj.REASON_SHOWN + 1


OLD_OUTPUT, NEW_OUTPUT = "Hi.", "Hello from the plugin, Ada!"


def prompt_text(content: list[dict]) -> str:
    return pj.SYSTEM_PROMPT + "\n".join(block["text"] for block in content)


def test_the_prompt_shows_task_rubric_and_both_outputs_and_nothing_that_tells_them_apart():
    content = pj.pair_content("Greet Ada.", ["The greeting names Ada"], OLD_OUTPUT, NEW_OUTPUT)
    text = prompt_text(content)
    assert "Greet Ada." in text and "The greeting names Ada" in text
    assert text.index(OLD_OUTPUT) < text.index(NEW_OUTPUT)  # shown as given: A first
    swapped = prompt_text(pj.pair_content("Greet Ada.", ["The greeting names Ada"], NEW_OUTPUT, OLD_OUTPUT))
    assert swapped.replace(NEW_OUTPUT, "§").replace(OLD_OUTPUT, NEW_OUTPUT).replace("§", OLD_OUTPUT) == text
    # Our own words hold no session, folder, version or time order: only the inputs differ between the orders.
    ours = text.replace("Greet Ada.", "").replace("The greeting names Ada", "")
    ours = ours.replace(OLD_OUTPUT, "").replace(NEW_OUTPUT, "")
    for word in ("old", "new", "before", "after", "earlier", "later", "baseline", "version", "session", "results"):
        assert not re.search(rf"\b{word}\b", ours, re.IGNORECASE), word
    assert "/" not in ours.replace("</", "")  # no path


def test_the_task_part_is_shared_and_marked_for_the_cache_only_when_long_enough():
    short = pj.pair_content("Greet Ada.", [], "a", "b")
    assert "cache_control" not in short[0] and "criteria" not in short[0]["text"]
    long = pj.pair_content("x" * CACHEABLE_CHARS, [], "a", "b")
    assert long[0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in long[1]
    assert pj.pair_content("x" * CACHEABLE_CHARS, [], "c", "d")[0] == long[0]  # the same prefix for every pair


def test_a_call_ceiling_grows_with_the_text_and_counts_the_whole_reply():
    small = pj.call_ceiling("claude-haiku-4-5", pj.pair_content("t", [], "a", "b"))
    large = pj.call_ceiling("claude-haiku-4-5", pj.pair_content("t", [], "a" * 30_000, "b"))
    assert 0 < small < large


class Client:
    def __init__(self, reply: str | Exception):
        self.reply = reply
        self.messages = self

    def create(self, **request):
        self.request = request
        if isinstance(self.reply, Exception):
            raise self.reply
        usage = SimpleNamespace(model_dump=lambda: {"input_tokens": 1000, "output_tokens": 20})
        return SimpleNamespace(content=[SimpleNamespace(type="text", text=self.reply)], usage=usage)


def test_ask_returns_the_preference_its_reason_and_cost_and_never_raises_for_the_judge():
    from pytest_plugin_eval.grade.judge import Judge

    client = Client("VERDICT: B\nREASON: names Ada")
    answer = pj.ask(Judge("claude-haiku-4-5", lambda key: client), "k", pj.pair_content("t", [], "a", "b"))
    assert (answer.preference, answer.reason) == ("B", "names Ada") and answer.cost_usd > 0
    assert client.request["system"] == pj.SYSTEM_PROMPT and client.request["max_tokens"] == pj.MAX_TOKENS
    broken = pj.ask(Judge("m", lambda key: Client(RuntimeError("boom"))), "k", pj.pair_content("t", [], "a", "b"))
    assert broken.preference is None and broken.reason.startswith("judge unavailable: RuntimeError: boom")
