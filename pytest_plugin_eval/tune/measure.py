"""Measuring a description: the trigger eval of a copy of the plugin whose SKILL.md carries it.

Each measurement is an inner `plugin-eval triggers` session — the same isolation, early stop, retries and
`--runs auto` as any trigger run — on a throwaway copy of the plugin (its eval dir's results and `.git` left out),
restricted with `--case` to the queries asked for, whose results JSON is read back. Runs that erred decided
nothing: they are out of the rates (a query without a decided run has none), never a "no".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import HarnessError
from ..load.triggers import TriggerSet
from .apply import rewrite_description

SKIPPED_IN_COPY = (".git", "__pycache__", ".venv", "node_modules")
TAIL = 1500  # characters of a failed inner session's output shown


class MeasureError(HarnessError):
    """An inner trigger session that produced no results: its command and the end of its output."""


@dataclass(frozen=True)
class Measured:
    """What one description did on some queries of a trigger set."""

    rates: dict[str, float]  # query id → fire rate over its decided runs (absent: none decided)
    fires: dict[str, tuple[int, int]]  # query id → (fired, decided)
    taken_by: dict[str, dict[str, int]]  # query id → what its runs consulted → how many
    cost_usd: float
    runs: int  # runs made (decided or not)
    errors: int  # runs that decided nothing
    status: int  # the inner session's exit status
    skipped: int = 0  # queries the inner session ran no decided run of (ceiling, errors)
    ceiling_hit: bool = False  # the inner session stopped at its --max-cost-usd

    @property
    def complete(self) -> bool:
        return self.skipped == 0 and self.errors == 0


@dataclass
class Measurer:
    """Runs inner trigger sessions on copies of one plugin; `options` go to every one (--scripted, --runs, …)."""

    plugin_root: Path
    skill_path: Path  # the tuned skill's SKILL.md in the plugin
    work: Path  # where the copies and their results go
    options: list[str]
    skipped: tuple[Path, ...] = ()  # folders not copied: the eval dir's results (earlier sessions, this tuning's)
    count: int = 0

    def measure(
        self, description: str, trigger_set: TriggerSet, query_ids: list[str], ceiling: float | None = None
    ) -> Measured:
        """The fire rates of `query_ids` of `trigger_set` with the tuned skill's description set to `description`;
        `ceiling`: the inner session's --max-cost-usd (what is left of the loop's)."""
        self.count += 1
        folder = self.work / f"m{self.count:03d}"
        copy = self.copy(folder / self.plugin_root.name, description)
        set_file = copy / trigger_set.file.absolute().relative_to(self.plugin_root)
        out = folder / "results.json"
        argv = [sys.executable, "-m", "pytest_plugin_eval.cli.main", "triggers", str(copy), "--json", str(out)]
        argv += ["--output-dir", str(folder / "session"), *self.options]
        argv += [f"--case={trigger_set.name}/{query_id}" for query_id in query_ids]
        if ceiling is not None:
            argv += ["--max-cost-usd", f"{max(ceiling, 0.0):.6f}"]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=folder)
        if not out.exists():
            tail = (done.stdout + done.stderr)[-TAIL:]
            raise MeasureError(f"the trigger session on {copy} wrote no results (exit {done.returncode}):\n{tail}")
        doc = json.loads(out.read_text(encoding="utf-8"))
        return read_measured(doc, trigger_set, set_file, copy, query_ids, done.returncode)

    def copy(self, where: Path, description: str) -> Path:
        """The plugin copied to `where`, its skill's description replaced (frontmatter only)."""
        left_out = {p.absolute() for p in self.skipped}

        def ignore(folder: str, names: list[str]) -> list[str]:
            skipped = [n for n in names if n in SKIPPED_IN_COPY]
            return skipped + [n for n in names if (Path(folder) / n).absolute() in left_out]

        shutil.copytree(self.plugin_root, where, ignore=ignore, symlinks=True)
        skill_md = where / self.skill_path.absolute().relative_to(self.plugin_root)
        text = skill_md.read_bytes().decode("utf-8")
        skill_md.write_bytes(rewrite_description(text, description, str(skill_md)).encode("utf-8"))
        return where


def read_measured(
    doc: dict, trigger_set: TriggerSet, set_file: Path, copy: Path, query_ids: list[str], status: int
) -> Measured:
    """The rates of `query_ids` from an inner session's results document."""
    rel = os.path.relpath(set_file, (copy / trigger_set.eval_root.name).parent) if set_file else ""
    sets = [s for s in doc.get("triggers") or [] if s.get("name") == trigger_set.name]
    chosen = [s for s in sets if s.get("file") == rel] or sets
    rates: dict[str, float] = {}
    fires: dict[str, tuple[int, int]] = {}
    taken: dict[str, dict[str, int]] = {}
    cost, runs, errors = 0.0, 0, 0
    for s in chosen:
        for query in s.get("queries") or []:
            if query.get("id") not in query_ids:
                continue
            decided = [r for r in query.get("runs") or [] if r.get("fired") is not None]
            runs += len(query.get("runs") or [])
            errors += len(query.get("runs") or []) - len(decided)
            cost += sum(float(r.get("costUsd") or 0.0) for r in query.get("runs") or [])
            counts: dict[str, int] = {}
            for r in decided:
                name = r.get("skill") or "none"
                counts[name] = counts.get(name, 0) + 1
            taken[query["id"]] = counts
            if decided:
                k = sum(1 for r in decided if r.get("fired"))
                rates[query["id"]] = k / len(decided)
                fires[query["id"]] = (k, len(decided))
    session_cost = doc.get("costUsd")
    if isinstance(session_cost, (int, float)) and session_cost > cost:
        cost = float(session_cost)
    skipped = len([q for q in query_ids if q not in rates])
    ceiling = doc.get("partialReason") == "cost_ceiling"
    return Measured(rates, fires, taken, cost, runs, errors, status, skipped, ceiling)
