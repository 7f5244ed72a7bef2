"""The user's side of a conversation (run/conversation.py): what it writes for each event of the agent's."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from unittest.mock import sentinel

from pytest_plugin_eval.load.conversation import Answer, Conversation, SimulatedUser
from pytest_plugin_eval.run.conversation import CONFINED, FLAGS, Dialogue, TraceTail, UserReply
from pytest_plugin_eval.run.execute import RunPlan, RunSettings, build_argv, child_env
from pytest_plugin_eval.run.refusals import why_refused
from pytest_plugin_eval.run.workspace import Workspace


class Wire:
    def __init__(self):
        self.sent: list[dict] = []
        self.closed = False

    def dialogue(self, conversation: Conversation, **kw) -> Dialogue:
        return Dialogue(conversation, self.sent.append, self.close, kw.pop("max_turns", 10), **kw)

    def close(self):
        self.closed = True

    def texts(self) -> list[str]:
        return [m["message"]["content"] for m in self.sent if m["type"] == "user"]


def result(turns: int = 1, cost: float = 0.01, subtype: str = "success") -> dict:
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "num_turns": turns,
        "total_cost_usd": cost,
    }


def ask(*questions: tuple[str, str], request_id: str = "r1", tool_use_id: str = "toolu_1") -> dict:
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "hook_callback",
            "callback_id": "plugin-eval-ask",
            "input": {
                "hook_event_name": "PreToolUse",
                "tool_name": "AskUserQuestion",
                "tool_input": {"questions": [{"question": q, "header": h, "options": []} for q, h in questions]},
                "tool_use_id": tool_use_id,
            },
        },
    }


def may_use(tool: str, tool_use_id: str, request_id: str = "r2") -> dict:
    """Claude Code asking its permission prompt tool (after a hook's `ask`, or for a tool nothing granted)."""
    request = {"subtype": "can_use_tool", "tool_name": tool, "input": {"questions": []}, "tool_use_id": tool_use_id}
    return {"type": "control_request", "request_id": request_id, "request": request}


def said(text: str) -> dict:
    return {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [{"type": "text", "text": text}]}}


def test_scripted_turns_follow_each_result_then_the_input_ends():
    wire = Wire()
    talk = wire.dialogue(Conversation(turns=("two", "three")))
    talk.open("one")
    for _ in range(3):
        talk.on_event(result())
    assert wire.texts() == ["one", "two", "three"] and wire.closed
    # the hook that answers questions is registered before the first message
    assert wire.sent[0]["request"] == {
        "subtype": "initialize",
        "hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hookCallbackIds": ["plugin-eval-ask"]}]},
    }
    assert [(s.by, s.text) for s in talk.said] == [("prompt", "one"), ("scripted", "two"), ("scripted", "three")]


def test_a_failed_turn_ends_the_conversation():
    wire = Wire()
    talk = wire.dialogue(Conversation(turns=("two",)))
    talk.open("one")
    talk.on_event(result(subtype="error_max_turns"))
    assert wire.texts() == ["one"] and wire.closed and talk.error is None


def test_turns_are_counted_over_the_whole_conversation():
    wire = Wire()
    talk = wire.dialogue(Conversation(turns=("two", "three")), max_turns=3)
    talk.open("one")
    talk.on_event(result(turns=2))
    talk.on_event(result(turns=1))
    assert wire.texts() == ["one", "two"] and wire.closed
    assert talk.error is not None and talk.error.kind == "max_turns" and "max_turns (3)" in talk.error.message


def test_a_question_is_answered_from_answers_by_text_or_header():
    wire = Wire()
    talk = wire.dialogue(Conversation(answers=(Answer("colou?r", "Blue"), Answer("size", "M"))))
    talk.on_event(ask(("Which colour?", "Pick"), ("How big?", "Size")))
    [reply] = wire.sent
    response = reply["response"]["response"]["hookSpecificOutput"]
    # The hook asks (a hook's allow is refused in evaluation mode); Claude Code then asks the prompt tool: allowed,
    # with the answers in the input AskUserQuestion reads.
    assert reply["response"]["request_id"] == "r1" and response["permissionDecision"] == "ask"
    assert response["hookEventName"] == "PreToolUse"
    answered = response["updatedInput"]
    assert answered["answers"] == {"Which colour?": "Blue", "How big?": "M"}
    assert answered["questions"][0]["question"] == "Which colour?"
    talk.on_event(may_use("AskUserQuestion", "toolu_1"))
    allowed = wire.sent[1]["response"]
    assert allowed["request_id"] == "r2" and allowed["response"] == {"behavior": "allow", "updatedInput": answered}
    assert [(a.question, a.answer, a.by) for a in talk.asked] == [
        ("Which colour?", "Blue", "answers"),
        ("How big?", "M", "answers"),
    ]


def test_an_unmatched_question_is_refused_and_named():
    wire = Wire()
    talk = wire.dialogue(Conversation(answers=(Answer("colou?r", "Blue"),)))
    talk.on_event(ask(("What is your budget?", "Budget")))
    response = wire.sent[0]["response"]["response"]["hookSpecificOutput"]
    assert response["permissionDecision"] == "deny" and "What is your budget?" in response["permissionDecisionReason"]
    assert talk.asked[0].answer is None
    assert any('"What is your budget?"' in note and "nobody answered" in note for note in talk.notes)


def test_other_permission_prompts_are_refused_as_dont_ask_mode_would():
    wire = Wire()
    talk = wire.dialogue(Conversation(turns=("x",)))
    talk.on_event(
        {
            "type": "control_request",
            "request_id": "r2",
            "request": {"subtype": "can_use_tool", "tool_name": "Write", "input": {"file_path": "/etc/x"}},
        }
    )
    response = wire.sent[0]["response"]["response"]
    assert response["behavior"] == "deny" and why_refused("Write", response["message"]) == "permission denied"


def test_a_question_the_hook_did_not_answer_is_refused_when_claude_code_asks():
    wire = Wire()
    talk = wire.dialogue(Conversation(answers=(Answer("colou?r", "Blue"),)))
    talk.on_event(ask(("Which colour?", "Pick"), tool_use_id="toolu_1"))
    talk.on_event(may_use("AskUserQuestion", "toolu_other"))  # a call the hook never saw (a plugin hook's ask)
    talk.on_event(may_use("AskUserQuestion", "toolu_1", request_id="r3"))
    talk.on_event(may_use("AskUserQuestion", "toolu_1", request_id="r4"))  # each answer is given once
    assert [m["response"]["response"]["behavior"] for m in wire.sent[1:]] == ["deny", "allow", "deny"]


def test_the_simulated_user_replies_until_done_and_answers_unmatched_questions():
    wire = Wire()
    seen = []
    replies = iter(
        [
            UserReply("What is Blue?", False, 0.5),
            UserReply("Blue", False, 0.25),
            UserReply("Thanks END_CONVERSATION", True, 0.25),
        ]
    )

    def user(history, question):
        seen.append((list(history), question))
        return next(replies)

    talk = wire.dialogue(Conversation(user=SimulatedUser("a designer")), user=user)
    talk.open("Help me pick.")
    talk.on_event(said("Which colour?"))
    talk.on_event(result())
    talk.on_event(ask(("Confirm the colour?", "Colour")))
    talk.on_event(result())
    assert wire.texts() == ["Help me pick.", "What is Blue?"] and wire.closed
    assert seen[0] == ([("user", "Help me pick."), ("agent", "Which colour?")], None)
    assert seen[1][1]["question"] == "Confirm the colour?"
    assert [(s.by, s.text) for s in talk.said][-1] == ("simulated", "What is Blue?")
    assert talk.asked[0].by == "simulated" and talk.asked[0].answer == "Blue"
    assert talk.user_cost_usd == 1.0


def test_the_simulated_user_stops_at_max_user_turns_and_at_the_cost_ceiling():
    wire = Wire()
    talk = wire.dialogue(
        Conversation(user=SimulatedUser("p", max_user_turns=1)), user=lambda h, q: UserReply("more", False, 0.1)
    )
    talk.open("go")
    talk.on_event(result())
    talk.on_event(result())
    assert wire.texts() == ["go", "more"] and wire.closed and "max_user_turns (1)" in talk.notes[0]

    wire = Wire()
    talk = wire.dialogue(
        Conversation(user=SimulatedUser("p")),
        user=lambda h, q: UserReply("more", False, 0.1),
        may_spend=lambda spent: spent < 0.15,
    )
    talk.open("go")
    for _ in range(5):
        talk.on_event(result(cost=0.0))
    assert wire.texts() == ["go", "more", "more"] and wire.closed
    assert "cost ceiling" in talk.notes[-1] and talk.user_cost_usd == 0.2


def test_max_user_turns_counts_the_simulated_users_answers_as_well_as_its_messages():
    wire = Wire()
    asked = []

    def user(history, question):
        asked.append(question)
        return UserReply("Blue" if question else "more", False, 0.1)

    talk = wire.dialogue(Conversation(user=SimulatedUser("p", max_user_turns=2)), user=user)
    talk.open("go")
    talk.on_event(ask(("Which colour?", "Colour"), request_id="r1", tool_use_id="t1"))
    talk.on_event(result())
    assert not talk.user_capped  # one answer and one message: two, not over the cap yet
    talk.on_event(ask(("Which size?", "Size"), request_id="r2", tool_use_id="t2"))
    assert len(asked) == 2  # the third question was not put to the simulated user
    decision = wire.sent[-1]["response"]["response"]["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and "Which size?" in decision["permissionDecisionReason"]
    assert talk.asked[-1].answer is None and talk.user_capped
    assert any('"Which size?"' in n and "max_user_turns (2)" in n for n in talk.notes), talk.notes
    talk.on_event(result())
    assert wire.texts() == ["go", "more"] and wire.closed and "max_user_turns (2)" in talk.notes[-1]


def test_the_trace_tail_reads_whole_lines_only(tmp_path):
    path = tmp_path / "trace.jsonl"
    tail = TraceTail(path)
    assert tail.events() == []
    path.write_text(json.dumps({"type": "a"}) + "\n" + '{"type": "b"')
    assert tail.events() == [{"type": "a"}]
    with open(path, "a") as handle:
        handle.write("}\nnot json\n")
    assert tail.events() == [{"type": "b"}]


# ---- the child's command line and environment ----------------------------------------------------------------


def _plan(case, trigger=None):
    if trigger is not None:
        case = dataclasses.replace(case, trigger=trigger)
    return RunPlan(case=case, arm="with", index=1, settings=RunSettings(), claude=Path("/c"), environ={"PATH": "/b"})


def _workspace(tmp_path):
    ws = Workspace(tmp_path / "ws")
    for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
        folder.mkdir(parents=True)
    return ws


def test_only_a_case_that_talks_back_runs_as_a_stream_json_session(suite, tmp_path):
    ws = _workspace(tmp_path)
    one = build_argv(_plan(suite.loaded()), ws)
    assert "--input-format" not in one and one[one.index("--permission-mode") + 1] == "dontAsk"
    talks = build_argv(_plan(suite.loaded(fm="turns: [Ada.]")), ws)
    assert all(f in talks for f in FLAGS) and talks[talks.index("--permission-mode") + 1] == "dontAsk"


def test_a_trigger_run_never_talks(suite):
    assert not _plan(suite.loaded(fm="turns: [Ada.]"), trigger=sentinel.trigger).talks


def test_every_run_stays_in_evaluation_mode_whatever_it_answers(suite, tmp_path):
    ws = _workspace(tmp_path)
    for fm in (None, "turns: [Ada.]", "answers: {colour: Blue}", "user: A baker."):
        assert child_env(_plan(suite.loaded(fm=fm) if fm else suite.loaded()), ws)[CONFINED] == "1", fm
