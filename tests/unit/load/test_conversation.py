"""`turns:`, `answers:` and `user:` of a case (load/conversation.py), read from prompt.md and case.yaml."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.load.conversation import Answer, Conversation, SimulatedUser


def test_a_one_prompt_case_has_no_conversation(suite):
    case = suite.loaded()
    assert case.conversation == Conversation() and not case.conversation.active


def test_frontmatter_turns_answers_and_user(suite):
    fm = (
        "turns: [I am Ada., Tea.]\n"
        "answers: {'colou?r': Blue, 'size': 3}\n"
        "user: {persona: A busy engineer., max_user_turns: 2, model: haiku}"
    )
    case = suite.loaded(fm=fm)
    talk = case.conversation
    assert talk.active
    assert talk.turns == ("I am Ada.", "Tea.")
    assert talk.answers == (Answer("colou?r", "Blue"), Answer("size", "3"))
    assert talk.user == SimulatedUser("A busy engineer.", 2, "haiku")


def test_case_yaml_execution_and_a_persona_as_text(suite):
    suite.case(
        md=False,
        case_yaml='schema_version: "1.0"\nname: c\nexecution:\n  prompt: Interview me.\n  turns: Ada.\n  user: Someone in a hurry.\n',
    )
    talk = suite.load().conversation
    assert talk.turns == ("Ada.",)
    assert talk.user == SimulatedUser("Someone in a hurry.")


def test_an_answer_matches_question_or_header_case_insensitively():
    talk = Conversation(answers=(Answer("favou?rite colou?r", "Blue"), Answer("^Size$", "M")))
    assert talk.answer_for("Which is your FAVORITE COLOR?") == "Blue"
    assert talk.answer_for("How big?", header="size") == "M"
    assert talk.answer_for("Anything else?", header="Misc") is None


@pytest.mark.parametrize(
    ("fm", "problem"),
    [
        ("turns: []", "turns: must be a list of the user's next messages (got an empty list)"),
        ("turns: ['']", "turns[0]: must be a non-empty string"),
        ("answers: [a, b]", "answers: must map a question pattern to its answer"),
        ("answers: {'col(or': Blue}", "answers.col(or: is not a valid pattern"),
        ("user: {max_user_turns: 2}", "user.persona: is missing: say who the user is and what they want"),
        ("user: {persona: x, max_user_turns: 0}", "user.max_user_turns: must be a whole number from 1 to 50 (got 0)"),
        ("user: {persona: x, mood: grumpy}", "user.mood"),
    ],
)
def test_mistakes_name_the_file_and_the_key(suite, fm, problem):
    suite.case(fm=fm)
    [found] = suite.problems()
    assert found.startswith("evals/c/prompt.md: ") and problem in found, found


def test_conditions_hold_what_the_agent_is_told():
    talk = Conversation(turns=("a",), answers=(Answer("q", "x"),), user=SimulatedUser("p", 3))
    assert talk.conditions() == {
        "turns": ["a"],
        "answers": [["q", "x"]],
        "user": {"persona": "p", "maxUserTurns": 3, "model": None},
    }
    assert Conversation().conditions() == {}
