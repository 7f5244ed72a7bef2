"""A case that talks back: `turns:` (the user's next messages), `answers:` (replies to the agent's AskUserQuestion
calls) and `user:` (a simulated user who writes the replies nobody scripted).

They are keys of prompt.md's frontmatter and of case.yaml's `execution:`, checked here with the checks every loader
shares; run/conversation.py plays them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.problems import SpecError
from ..core.validate import known_keys, nonempty_string, subkey, type_name, whole_number

DEFAULT_MAX_USER_TURNS = 5
_max_user_turns = whole_number(1, 50)


@dataclass(frozen=True)
class SimulatedUser:
    """`user:` — who the simulated user is and what they want (`persona`), how many replies they may write, and
    the model that writes them (None: the judge model)."""

    persona: str
    max_user_turns: int = DEFAULT_MAX_USER_TURNS
    model: str | None = None


@dataclass(frozen=True)
class Answer:
    """One `answers:` entry: a question pattern (a regular expression, case-insensitive) and the reply."""

    pattern: str
    answer: str

    def matches(self, question: str, header: str = "") -> bool:
        return any(re.search(self.pattern, text, re.IGNORECASE) for text in (question, header) if text)


@dataclass(frozen=True)
class Conversation:
    """What the user says after the prompt: empty for a one-prompt case."""

    turns: tuple[str, ...] = ()
    answers: tuple[Answer, ...] = ()
    user: SimulatedUser | None = None

    @property
    def active(self) -> bool:
        """Whether the run is a conversation (stream-json input, questions answered) rather than one prompt."""
        return bool(self.turns or self.answers or self.user)

    def answer_for(self, question: str, header: str = "") -> str | None:
        """The first answer whose pattern matches the question's text or header."""
        return next((a.answer for a in self.answers if a.matches(question, header)), None)

    def conditions(self) -> dict:
        """What the agent is told, as a run's conditions count it (--reuse-baseline)."""
        out: dict = {}
        if self.turns:
            out["turns"] = list(self.turns)
        if self.answers:
            out["answers"] = [[a.pattern, a.answer] for a in self.answers]
        if self.user:
            user = self.user
            out["user"] = {"persona": user.persona, "maxUserTurns": user.max_user_turns, "model": user.model}
        return out


def turns(value: Any, key: str) -> tuple[str, ...]:
    """`turns:` — a list of non-empty messages."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise SpecError(key, f"must be a list of the user's next messages (got {type_name(value)})")
    return tuple(nonempty_string(item, f"{key}[{i}]").strip() for i, item in enumerate(value))


def answers(value: Any, key: str) -> tuple[Answer, ...]:
    """`answers:` — a mapping from a question pattern to the answer (an option's label, or free text)."""
    if not isinstance(value, dict) or not value:
        raise SpecError(
            key, f"must map a question pattern to its answer, e.g. `answers: {{color: Blue}}` (got {type_name(value)})"
        )
    out = []
    for pattern, answer in value.items():
        where = subkey(key, pattern)
        pattern = nonempty_string(str(pattern), where)
        try:
            re.compile(pattern)
        except re.error as e:
            raise SpecError(where, f"is not a valid pattern ({e}); escape characters such as ( ? [ with \\") from None
        if isinstance(answer, (int, float)) and not isinstance(answer, bool):
            answer = str(answer)
        out.append(Answer(pattern, nonempty_string(answer, where)))
    return tuple(out)


def user(value: Any, key: str) -> SimulatedUser:
    """`user:` — a persona text, or a mapping {persona, max_user_turns, model}."""
    if isinstance(value, str):
        value = {"persona": value}
    if not isinstance(value, dict):
        raise SpecError(
            key, f"must be the simulated user's persona, or a mapping with persona: (got {type_name(value)})"
        )
    known_keys(value, ("persona", "max_user_turns", "model"), key, "user:")
    if "persona" not in value:
        raise SpecError(subkey(key, "persona"), "is missing: say who the user is and what they want")
    return SimulatedUser(
        persona=nonempty_string(value["persona"], subkey(key, "persona")).strip(),
        max_user_turns=_max_user_turns(
            value.get("max_user_turns", DEFAULT_MAX_USER_TURNS), subkey(key, "max_user_turns")
        ),
        model=nonempty_string(value["model"], subkey(key, "model")) if value.get("model") is not None else None,
    )


FIELDS = {"turns": turns, "answers": answers, "user": user}


def of_settings(settings: dict) -> Conversation:
    """The conversation a case's checked settings describe."""
    return Conversation(turns=settings.get("turns", ()), answers=settings.get("answers", ()), user=settings.get("user"))
