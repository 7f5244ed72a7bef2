"""The simulated user of a conversation (`user:`): a model that writes the user's next message, or answers the
agent's question, from the case's persona and the conversation so far — and says when the user is done.

It asks through the judge's client (grade/judge.Judge: the one judge-client factory of grade/clients.py, so it
works on every sign-in, with the judge's retries), on the judge model unless `user.model` names another, and its
calls are priced as judge calls are. Under --scripted the scripted endpoint answers it from scripted.yaml's
`judge: {user: [...]}` replies."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.prices import resolve_model
from ..load.conversation import SimulatedUser
from ..run.conversation import DONE, UserReply
from .judge import Judge

MAX_TOKENS = 1024
SHOWN = 4000  # characters of one message shown to the simulated user (the rest is cut, and says so)
SYSTEM_PROMPT = (
    "You play the user of an AI coding agent, in a test of the agent. Stay in character: write as the user "
    "described below would, in their words, briefly. Never do the agent's work and never mention the test. "
    f"When the user has what they came for, or would stop here, reply with {DONE} alone."
)


def user_model(option: str | None, judge_model: str) -> str:
    """`user.model` (haiku/sonnet/opus or an id), else the judge model."""
    return resolve_model(option) if option else judge_model


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + " […cut]"


def prompt(user: SimulatedUser, history: Sequence[tuple[str, str]], question: dict | None) -> str:
    lines = [f"The user you play:\n{user.persona}", "", "The conversation so far:"]
    lines += [f"[{'USER' if role == 'user' else 'AGENT'}] {_shown(text)}" for role, text in history]
    lines.append("")
    if question is not None:
        options = [str(o.get("label", "")) for o in question.get("options") or () if isinstance(o, dict)]
        lines.append(f"The agent asks: {question.get('question', '')}")
        if options:
            lines.append("Its options: " + " | ".join(options) + " (answer with one label, or in your own words)")
        lines.append("Write only the user's answer.")
    else:
        lines.append(f"The agent has ended its turn. Write only the user's next message, or {DONE} if they are done.")
    return "\n".join(lines)


def asker(judge: Judge, user: SimulatedUser):
    """The run's UserModel: one judge request per reply, its cost counted."""

    def reply(history: Sequence[tuple[str, str]], question: dict | None) -> UserReply:
        content = [{"type": "text", "text": prompt(user, history, question)}]
        text, cost = judge.ask("user", content, system=SYSTEM_PROMPT, max_tokens=MAX_TOKENS)
        done = DONE in text and question is None
        return UserReply(text.replace(DONE, "").strip(), done, cost)

    return reply
