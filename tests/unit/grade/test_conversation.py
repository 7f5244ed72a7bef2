"""Graders over a conversation (grade/conversation.py): turns of a trace, and the conversation the judge reads."""

from __future__ import annotations

import json

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.grade.conversation import conversation_lines, is_conversation, turn_texts, turn_view
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.graders import parse_grader
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript


def user(text: str) -> dict:
    return {"type": "user", "isReplay": True, "message": {"role": "user", "content": text}}


def agent(text: str) -> dict:
    return {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [{"type": "text", "text": text}]}}


TRACE = "\n".join(
    json.dumps(e)
    for e in [
        {"type": "system", "subtype": "init"},
        user("Interview me."),
        agent("Your name?"),
        {"type": "result", "subtype": "success"},
        user("Ada."),
        agent("Summary: Ada."),
        {"type": "result", "subtype": "success"},
    ]
)


def test_a_trace_splits_into_turns_at_each_user_message(tmp_path):
    transcript = Transcript(TRACE)
    assert len(turn_texts(transcript)) == 2 and is_conversation(transcript)
    run = RunOutput(transcript, tmp_path)
    assert turn_view(run, 1).last_message == "Your name?"
    assert turn_view(run, 2).last_message == "Summary: Ada."
    assert turn_view(run, 3).last_message == ""  # the conversation never got there
    assert run.last_message == "Summary: Ada."


def test_a_one_prompt_run_is_one_turn():
    transcript = Transcript("\n".join(json.dumps(e) for e in [agent("Hi.")]))
    assert len(turn_texts(transcript)) == 1 and not is_conversation(transcript)


def test_the_judge_reads_the_conversation_in_order():
    assert conversation_lines(Transcript(TRACE)) == [
        "[user] Interview me.",
        "[agent] Your name?",
        "[user] Ada.",
        "[agent] Summary: Ada.",
    ]


@pytest.mark.parametrize(("value", "ok"), [(1, True), (3, True), ("every", True), (0, False), ("last", False)])
def test_a_graders_turn_is_a_number_or_every(value, ok):
    raw = {"type": "regex", "pattern": "x", "turn": value}
    if ok:
        assert parse_grader(raw, "", "g", "src", grader_types()).turn == value
    else:
        with pytest.raises(SpecError, match="turn: must be a turn number from 1, or `every`"):
            parse_grader(raw, "", "g", "src", grader_types())


def test_a_conversations_turns_add_up_over_its_result_lines():
    results = [{"type": "result", "num_turns": 2}, {"type": "result", "num_turns": 1}]
    assert Transcript("\n".join(json.dumps(e) for e in results)).num_turns == 3
