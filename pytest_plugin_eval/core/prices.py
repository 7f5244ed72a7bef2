"""What model calls cost: list prices kept as data (prices.json), and the arithmetic on token usage."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class Usage:
    """Tokens of one or more model calls, by kind."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @classmethod
    def from_json(cls, data: dict | None) -> Usage:
        data = data or {}
        return cls(**{name: int(data.get(name) or 0) for name in cls.__dataclass_fields__})

    @classmethod
    def of_reply(cls, usage: object) -> Usage:
        """The usage of a Messages API reply as the SDK gives it (an object with model_dump), else nothing."""
        return cls.from_json(usage.model_dump() if hasattr(usage, "model_dump") else None)

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))


DATE_SUFFIX = re.compile(r"-\d{8}$")
CONTEXT_SUFFIX = re.compile(r"\[[^\]]*\]$")  # e.g. claude-opus-5-5[1m]: same price


@lru_cache(maxsize=1)
def price_table() -> dict:
    return json.loads(resources.files(__package__).joinpath("prices.json").read_text(encoding="utf-8"))


def resolve_model(model: str) -> str:
    """An alias (haiku, sonnet, opus) → its current id; ids pass through."""
    return price_table()["aliases"].get(model, model)


@dataclass(frozen=True)
class PriceLookup:
    model: str  # the table entry used
    known: bool  # False: an unknown id, priced as the default model


def lookup(model: str | None) -> PriceLookup:
    table = price_table()
    name = CONTEXT_SUFFIX.sub("", resolve_model(model or table["default"]))
    for candidate in (name, DATE_SUFFIX.sub("", name)):
        if candidate in table["models"]:
            return PriceLookup(candidate, True)
    return PriceLookup(table["default"], False)


def price(model: str | None, usage: Usage) -> float:
    """USD for `usage` at the list price of `model` (unknown models at the default model's price)."""
    rates = dict(price_table()["models"][lookup(model).model])
    long_prompt = rates.pop("long_prompt", None)
    prompt_tokens = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    if long_prompt and prompt_tokens > long_prompt["above_input_tokens"]:
        rates.update({k: v for k, v in long_prompt.items() if k != "above_input_tokens"})
    return (
        usage.input_tokens * rates["input"]
        + usage.output_tokens * rates["output"]
        + usage.cache_read_input_tokens * rates["cache_read"]
        + usage.cache_creation_input_tokens * rates["cache_write"]
    ) / 1_000_000
