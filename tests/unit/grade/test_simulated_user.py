"""The simulated user (grade/simulated_user.py): its prompt, its model, and how its reply is read."""

from __future__ import annotations

from pytest_plugin_eval.core.prices import resolve_model
from pytest_plugin_eval.grade.simulated_user import SYSTEM_PROMPT, asker, prompt, user_model
from pytest_plugin_eval.load.conversation import SimulatedUser


class FakeJudge:
    def __init__(self, text: str):
        self.text = text
        self.asked: list[tuple] = []

    def ask(self, grader, content, system, max_tokens):
        self.asked.append((grader, content, system, max_tokens))
        return self.text, 0.002


def test_the_prompt_holds_the_persona_the_conversation_and_the_question():
    user = SimulatedUser("Ada, a baker.")
    text = prompt(user, [("user", "Interview me."), ("agent", "Your name?")], None)
    assert "Ada, a baker." in text and "[USER] Interview me." in text and "[AGENT] Your name?" in text
    assert "END_CONVERSATION" in text
    asked = prompt(user, [], {"question": "Colour?", "options": [{"label": "Red"}, {"label": "Blue"}]})
    assert "The agent asks: Colour?" in asked and "Red | Blue" in asked


def test_a_reply_is_the_users_message_or_done():
    judge = FakeJudge("I am Ada.")
    reply = asker(judge, SimulatedUser("p"))([("user", "hi")], None)
    assert (reply.text, reply.done, reply.cost_usd) == ("I am Ada.", False, 0.002)
    grader, _content, system, _max = judge.asked[0]
    assert grader == "user" and system == SYSTEM_PROMPT
    done = asker(FakeJudge("Thanks! END_CONVERSATION"), SimulatedUser("p"))([], None)
    assert done.done and done.text == "Thanks!"


def test_the_model_is_the_judges_unless_the_case_names_one():
    assert user_model(None, "claude-haiku-x") == "claude-haiku-x"
    assert user_model("sonnet", "claude-haiku-x") == resolve_model("sonnet")
