"""The scripted trigger model that reads the description: a query's `scripted:` may be a rule
`{description_has: [words…], then: fire, else: none, of: SKILL}` — the run answers `then` when the description of
the set's skill (or of the plugin's skill `of`, as the plugin on disk gives it to Claude) holds any of the words,
case-insensitively, and `else` otherwise.

It is what lets an offline test show a description change moving a skill's fire rate (`plugin-eval tune
--scripted`): the rule is decided when the set loads, from the SKILL.md the run's plugin copy carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.problems import SpecError
from ..core.validate import known_keys, nonempty_string, string, subkey, type_name

RULE_KEY = "description_has"
RULE_KEYS = (RULE_KEY, "then", "else", "of")


@dataclass(frozen=True)
class DescriptionRule:
    words: tuple[str, ...]
    then: str = "fire"
    otherwise: str = "none"
    of: str | None = None  # whose description: None, the set's skill

    def answer(self, description: str) -> str:
        text = description.lower()
        return self.then if any(word.lower() in text for word in self.words) else self.otherwise

    @property
    def names(self) -> tuple[str, ...]:
        """The words and component names it may answer with or read, checked against the plugin on load."""
        return (self.then, self.otherwise, *((self.of,) if self.of else ()))


def is_rule(value: Any) -> bool:
    return isinstance(value, dict) and RULE_KEY in value


def parse_rule(value: dict, key: str) -> DescriptionRule:
    known_keys(value, RULE_KEYS, key, "a description rule")
    words = value[RULE_KEY]
    if isinstance(words, str):
        words = [words]
    if not isinstance(words, list) or not words:
        raise SpecError(subkey(key, RULE_KEY), f"must be a word or a list of words (got {type_name(words)})")
    parsed = tuple(nonempty_string(w, f"{subkey(key, RULE_KEY)}[{i}]") for i, w in enumerate(words))
    then = string(value.get("then", "fire"), subkey(key, "then"))
    otherwise = string(value.get("else", "none"), subkey(key, "else"))
    of = nonempty_string(value["of"], subkey(key, "of")) if "of" in value else None
    return DescriptionRule(parsed, then, otherwise, of)
