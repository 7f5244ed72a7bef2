"""What model calls cost: list prices kept as data (prices.json), the arithmetic on token usage, and the
ledger that enforces --max-cost-usd across processes."""
from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .transcript import Usage

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
    model: str      # the table entry used
    known: bool     # False: an unknown id, priced as the default model


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
    return (usage.input_tokens * rates["input"] + usage.output_tokens * rates["output"]
            + usage.cache_read_input_tokens * rates["cache_read"]
            + usage.cache_creation_input_tokens * rates["cache_write"]) / 1_000_000


class CostLedger:
    """Money spent in this session, shared by every process on this host: a SQLite file of spends.

    Checked before each run starts (a run starts only while the total is below the cap; runs already in
    flight may finish) and after each run's agent part (over the cap, its paid graders are skipped).
    Rows are only ever inserted, so concurrent workers never fight over one counter."""

    def __init__(self, path: Path, cap: float | None):
        self.path = Path(path)
        self.cap = cap
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS spend (id INTEGER PRIMARY KEY, usd REAL NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60, isolation_level=None)

    def add(self, usd: float) -> None:
        if usd > 0:
            with self._connect() as db:
                db.execute("INSERT INTO spend (usd) VALUES (?)", (usd,))

    def spent(self) -> float:
        with self._connect() as db:
            return float(db.execute("SELECT COALESCE(SUM(usd), 0) FROM spend").fetchone()[0])

    def may_start(self) -> bool:
        return self.cap is None or self.spent() < self.cap

    def over(self) -> bool:
        return self.cap is not None and self.spent() > self.cap
