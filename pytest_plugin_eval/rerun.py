"""`pytest --lf`: re-run only the runs that failed, and report the whole suite.

pytest's --lf re-runs failed items only. The results document should still describe every case, so the runs
not re-run are taken from the previous session's document — but only for cases whose prompt and graders are
unchanged (a changed case is reported with its new runs alone). Reused runs are marked `reused: true`.
"""
from __future__ import annotations

import json
from pathlib import Path

from .results import RunResult, arms_of, case_from_arms

CACHE_KEY = "plugin-eval/last-results"


def remember(config, results_path: Path | None) -> None:
    """Note where this session's document is, for the next `--lf` session."""
    cache = getattr(config, "cache", None)
    if cache is not None and results_path is not None:
        cache.set(CACHE_KEY, str(results_path))


def previous_document(config) -> tuple[dict, str] | None:
    cache = getattr(config, "cache", None)
    path = cache.get(CACHE_KEY, None) if cache is not None else None
    if not path:
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8")), path
    except (OSError, ValueError):
        return None


def _same_case(a: dict, b: dict) -> bool:
    keys = ("promptMarkdown", "graders", "maxTurns", "timeoutSeconds", "model")
    return all(a.get(k) == b.get(k) for k in keys)


def merge(headers: dict[str, dict], runs: dict[str, list[RunResult]], previous: dict,
          current: dict[str, dict]) -> tuple[list[dict], int]:
    """Case documents of this session completed with the previous session's runs.

    `headers`/`runs`: this session's cases by dir; `current`: headers of the case files as they read now, by
    dir (for cases with no run this session); `previous`: the last results document. Returns (cases, reused)."""
    old = {case["dir"]: case for case in previous.get("cases", [])}
    cases, reused = [], 0
    for key in sorted(set(headers) | set(old), key=lambda k: Path(k).parts):
        header = headers.get(key) or current.get(key)
        if header is None:
            continue  # the case is gone, or no longer loads
        arms = arms_of(runs.get(key, []))
        prev = old.get(key)
        if prev is not None and _same_case(header, prev):
            for arm, old_runs in prev["arms"].items():
                fresh = {run["index"] for run in arms.get(arm, [])}
                kept = [{**run, "reused": True} for run in old_runs if run.get("index") not in fresh]
                reused += len(kept)
                if kept or arm in arms:
                    arms[arm] = sorted([*arms.get(arm, []), *kept], key=lambda run: run.get("index", 0))
        if any(arms.values()):
            cases.append(case_from_arms(header, arms))
    return cases, reused
