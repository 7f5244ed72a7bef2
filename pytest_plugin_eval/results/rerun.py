"""`pytest --lf`: re-run only the runs that failed, and report the whole suite.

pytest's --lf re-runs failed items only. The results document should still describe every case, so the runs
not re-run are taken from the previous sessions' documents — each case as the newest session that ran it left it
(a `-k` session of a few cases leaves the others as the full session before it had them) — but only for cases
whose prompt and graders are unchanged (a changed case is reported with its new runs alone). Reused runs are
marked `reused: true`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .matrix import is_matrix
from .model import CaseResult, SuiteResult
from .scoring import aggregate
from .store import read_results

CACHE_KEY = "plugin-eval/last-results"
REMEMBERED = 20  # documents: the sessions since the last one of the whole suite are rarely more
# What makes two sessions' runs of a case comparable.
SAME_CASE_KEYS = ("promptMarkdown", "graders", "maxTurns", "timeoutSeconds", "model")


def remember(config, results_paths: list[Path]) -> None:
    """Note where this session's documents are (one per eval dir), for the next `--lf` session — after the
    earlier sessions' (up to REMEMBERED), so that a `-k` session of a few cases does not hide the others."""
    cache = getattr(config, "cache", None)
    if cache is not None and results_paths:
        new = [str(path) for path in results_paths]
        earlier = [p for p in _remembered(cache) if p not in new]
        cache.set(CACHE_KEY, [*earlier, *new][-REMEMBERED:])


def _remembered(cache) -> list[str]:
    paths = cache.get(CACHE_KEY, None)
    return [paths] if isinstance(paths, str) else [p for p in paths or [] if isinstance(p, str)]


def previous_results(config) -> list[tuple[SuiteResult, str]]:
    """The last results of each eval dir (by its suite's root), with the path of its newest document: every case
    as its newest session left it — a case the last session did not run keeps an earlier session's runs."""
    cache = getattr(config, "cache", None)
    by_root: dict[tuple[str, str | None], tuple[SuiteResult, str]] = {}
    for path in _remembered(cache) if cache is not None else []:
        try:
            document = read_results(Path(path))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        # a model matrix's documents (one per model, in the matrix's folder) are each model's last results
        key = (document.suite.root, document.suite.model_override if is_matrix(Path(path).parent.parent) else None)
        older = by_root.get(key)
        if older is not None:
            newer = {case.dir for case in document.cases}
            kept = [case for case in older[0].cases if case.dir not in newer]
            document = dataclasses.replace(document, cases=[*kept, *document.cases])
        by_root[key] = (document, path)
    return list(by_root.values())


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
