"""`pytest --lf`: re-run only the runs that failed, and report the whole suite.

pytest's --lf re-runs failed items only. The results document should still describe every case, so the runs
not re-run are taken from the previous session's document — but only for cases whose prompt and graders are
unchanged (a changed case is reported with its new runs alone). Reused runs are marked `reused: true`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .model import CaseResult, SuiteResult
from .scoring import aggregate
from .store import read_results

CACHE_KEY = "plugin-eval/last-results"
# What makes two sessions' runs of a case comparable.
SAME_CASE_KEYS = ("promptMarkdown", "graders", "maxTurns", "timeoutSeconds", "model")


def remember(config, results_paths: list[Path]) -> None:
    """Note where this session's documents are (one per eval dir), for the next `--lf` session."""
    cache = getattr(config, "cache", None)
    if cache is not None and results_paths:
        cache.set(CACHE_KEY, [str(path) for path in results_paths])


def previous_results(config) -> list[tuple[SuiteResult, str]]:
    """The last session's documents that can still be read."""
    cache = getattr(config, "cache", None)
    paths = cache.get(CACHE_KEY, None) if cache is not None else None
    found = []
    for path in [paths] if isinstance(paths, str) else paths or []:
        try:
            found.append((read_results(Path(path)), path))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def same_case(a: CaseResult, b: CaseResult) -> bool:
    ha, hb = a.header_json(), b.header_json()
    return all(ha.get(k) == hb.get(k) for k in SAME_CASE_KEYS)


def merge(
    fresh: dict[str, CaseResult], previous: SuiteResult, current: dict[str, CaseResult], top_up: bool = True
) -> tuple[list[CaseResult], int]:
    """This session's cases completed with the previous session's runs.

    `fresh`: this session's cases by dir, with their runs; `current`: cases with no run this session, as their
    files read now (no runs), by dir; `previous`: the last results document. `top_up`: a fresh case's runs that
    did not run again are taken from the previous session too (not with --runs auto, which runs a case whole).
    Returns (cases, runs reused)."""
    old = {case.dir: case for case in previous.cases}
    cases, reused = [], 0
    for key in sorted(set(fresh) | set(old), key=lambda k: Path(k).parts):
        case = fresh.get(key) or current.get(key)
        if case is None:
            continue  # the case is gone, or no longer loads
        case = dataclasses.replace(case, arms={arm: list(runs) for arm, runs in case.arms.items()})
        prev = old.get(key)
        if prev is not None and same_case(case, prev) and (top_up or key not in fresh):
            for arm, old_runs in prev.arms.items():
                done = {run.index for run in case.runs(arm)}
                kept = [dataclasses.replace(run, reused=True) for run in old_runs if run.index not in done]
                reused += len(kept)
                if kept or arm in case.arms:
                    case.arms[arm] = [*case.runs(arm), *kept]
        if any(case.arms.values()):
            cases.append(aggregate(case))
    return cases, reused
