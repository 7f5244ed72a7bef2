"""Shards back into one session: the results documents of `--shard 1/N … N/N` combined into the document one
unsharded session would have written (same schema; partial if any shard was)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..core.errors import UsageError
from ..results import scoring
from ..results.findings import unique
from ..results.model import SuiteResult
from ..results.store import RESULTS_FILE, read_results
from ..results.triggers import TriggerSetResult


class MergeError(UsageError, ValueError):
    """Documents that are not shares of one suite."""


def merge_shards(sources: list[str]) -> SuiteResult:
    """`plugin-eval merge DIR…`: the shards' results folders (or their documents) read and merged."""
    documents, folders = [], []
    for source in sources:
        path = Path(source)
        file = path / RESULTS_FILE if path.is_dir() else path
        try:
            documents.append(read_results(file))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise MergeError(f"{source}: not a readable results document ({e})") from None
        folders.append(str(file.parent))
    return merge(documents, folders)


def merge(documents: list[SuiteResult], sources: list[str] | None = None) -> SuiteResult:
    if not documents:
        raise MergeError("nothing to merge: name the results folders (or aggregate-result.json files) of the shards")
    first = documents[0]
    names = {tuple(p.name for p in d.suite.plugins) for d in documents}
    if len(names) > 1:
        raise MergeError(
            f"the documents evaluate different plugins ({' vs '.join(map(str, sorted(names)))}): "
            f"merge only the shards of one suite"
        )
    cases = []
    seen: dict[str, str] = {}
    for document, source in zip(documents, sources or [str(i + 1) for i in range(len(documents))], strict=True):
        for case in document.cases:
            if case.dir in seen:
                raise MergeError(
                    f"case {case.dir} is in both {seen[case.dir]} and {source}: each case belongs to "
                    f"one shard — are two of these the same shard?"
                )
            seen[case.dir] = source
            cases.append(case)
    cases.sort(key=lambda c: Path(c.dir).parts)
    load_errors = {e.dir: e for d in documents for e in d.load_errors}  # every shard lists them
    threshold = first.suite.threshold
    partial = next((d.partial_reason for d in documents if d.partial), None)
    notices = list(dict.fromkeys(n for d in documents for n in d.notices if not n.startswith("--shard ")))
    states = {tuple((p.version, p.git_commit, p.git_dirty) for p in d.suite.plugins) for d in documents}
    if len(states) > 1:
        notices.append(
            "⚠ the shards evaluated different states of the plugin (version or git commit): the merged document "
            "records the first shard's"
        )
    return dataclasses.replace(
        first,
        started_at=min(d.started_at for d in documents),
        duration_seconds=max(d.duration_seconds for d in documents),  # the shards ran side by side
        suite=dataclasses.replace(first.suite, shard=None, merged_from=list(sources) if sources else None),
        cases=cases,
        aggregates=scoring.suite_aggregates(cases, threshold),
        cost_usd=sum(d.cost_usd for d in documents),
        partial=any(d.partial for d in documents),
        partial_reason=partial,
        load_errors=[load_errors[k] for k in sorted(load_errors, key=lambda k: Path(k).parts)],
        skipped_runs=sorted(
            (r for d in documents for r in d.skipped_runs), key=lambda r: (Path(r.dir).parts, r.arm != "with", r.index)
        ),
        notices=notices,
        triggers=merged_triggers(documents),
        findings=unique(f for d in documents for f in d.findings),  # each shard's, of its own cases
    )


def merged_triggers(documents: list[SuiteResult]) -> list[TriggerSetResult]:
    """The shards' trigger sets, one per (file, skill): --shard deals queries, so a set's queries may be split."""
    sets: dict[tuple[str, str], TriggerSetResult] = {}
    for document in documents:
        for trigger_set in document.triggers:
            merged = sets.setdefault(trigger_set.key(), dataclasses.replace(trigger_set, queries=[]))
            known = {q.id for q in merged.queries}
            merged.queries += [q for q in trigger_set.queries if q.id not in known]
    return sorted(sets.values(), key=lambda s: (s.file, s.skill))
