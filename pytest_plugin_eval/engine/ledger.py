"""The --max-cost-usd ledger: money spent in a session, shared by every process on a host."""

from __future__ import annotations

import sqlite3
from pathlib import Path


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

    def allows_judges(self) -> bool:
        """Whether a paid grader may begin: the session is not past its cap (those begun below it finish)."""
        return not self.over()
