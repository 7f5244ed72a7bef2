"""Unit tests for `pytest --lf` (pytest_plugin_eval.results.rerun): this session's cases completed with the previous
session's runs of unchanged cases, and where the previous document is remembered."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pytest_plugin_eval.results import rerun, scoring
from pytest_plugin_eval.results.model import CaseResult, GraderInfo, RunResult, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.rerun import CACHE_KEY, merge, previous_results, remember, same_case
from pytest_plugin_eval.results.store import write_json


def case(case_dir: str, runs: Sequence[RunResult] = (), *, prompt: str = "Say hi.", **kw) -> CaseResult:
    out = CaseResult(
        name=Path(case_dir).name,
        dir=case_dir,
        source="prose",
        prompt=prompt,
        runs_per_case=3,
        timeout_seconds=kw.pop("timeout_seconds", 300),
        max_turns=kw.pop("max_turns", 10),
        graders=kw.pop("graders", [GraderInfo("says-hi", "regex", 1, {"pattern": "hi"})]),
        runs_per_arm=2,
        **kw,
    )
    out.arms = {}
    for run in runs:
        out.arms.setdefault(run.arm, []).append(run)
    out.arms.setdefault("with", [])
    return out


def run(arm: str, index: int, score: float | None, **kw) -> RunResult:
    return RunResult(arm, index, score=score, passed=score == 1.0, **kw)


def previous(*cases: CaseResult) -> SuiteResult:
    aggregated = [scoring.aggregate(c) for c in cases]
    return SuiteResult(
        claude_version="2.1.0",
        started_at="2026-01-01T00:00:00.000Z",
        duration_seconds=1,
        suite=SuiteInfo(root="/suite", ablation="with-without"),
        cases=aggregated,
        aggregates=scoring.suite_aggregates(aggregated, 1.0),
    )


def runs_of(merged: list[CaseResult], case_dir: str) -> dict[str, list[tuple[int, float | None, bool]]]:
    found = next(c for c in merged if c.dir == case_dir)
    return {arm: [(r.index, r.score, r.reused) for r in runs] for arm, runs in found.arms.items()}


# ---- merge ---------------------------------------------------------------------------------------------------


def test_an_unchanged_case_reuses_the_runs_not_rerun():
    old = previous(
        case("evals/a", [run("with", 1, 0.0), run("with", 2, 1.0), run("without", 1, 0.0), run("without", 2, 0.0)])
    )
    fresh = {"evals/a": case("evals/a", [run("with", 1, 1.0)])}
    merged, reused = merge(fresh, old, {})
    assert reused == 3
    assert runs_of(merged, "evals/a") == {
        "with": [(1, 1.0, False), (2, 1.0, True)],
        "without": [(1, 0.0, True), (2, 0.0, True)],
    }
    a = merged[0]
    assert (a.aggregates.score, a.aggregates.score_without, a.aggregates.delta) == (1.0, 0.0, 1.0)


def test_a_rerun_in_the_without_arm_replaces_that_run_only():
    old = previous(case("evals/a", [run("with", 1, 1.0), run("without", 1, 1.0), run("without", 2, 0.0)]))
    fresh = {"evals/a": case("evals/a", [run("without", 2, 0.5)])}
    merged, reused = merge(fresh, old, {})
    assert reused == 2
    assert runs_of(merged, "evals/a") == {"with": [(1, 1.0, True)], "without": [(1, 1.0, True), (2, 0.5, False)]}


def test_without_top_up_a_rerun_case_keeps_its_new_runs_and_the_others_are_reused_whole():
    old = previous(
        case("evals/a", [run("with", 1, 0.0), run("with", 2, 1.0), run("without", 1, 0.0)]),
        case("evals/b", [run("with", 1, 1.0)]),
    )
    fresh = {"evals/a": case("evals/a", [run("with", 1, 1.0), run("without", 1, 1.0)])}
    merged, reused = merge(fresh, old, {"evals/b": case("evals/b")}, top_up=False)
    assert reused == 1
    assert runs_of(merged, "evals/a") == {"with": [(1, 1.0, False)], "without": [(1, 1.0, False)]}
    assert runs_of(merged, "evals/b") == {"with": [(1, 1.0, True)]}


def test_a_changed_case_keeps_only_its_new_runs():
    old = previous(case("evals/a", [run("with", 1, 0.0), run("with", 2, 1.0)]))
    for changed in (
        dict(prompt="Say hello."),
        dict(max_turns=20),
        dict(timeout_seconds=60),
        dict(model="opus"),
        dict(graders=[GraderInfo("says-hi", "regex", 2, {"pattern": "hi"})]),
    ):
        fresh = {"evals/a": case("evals/a", [run("with", 1, 1.0)], **changed)}
        merged, reused = merge(fresh, old, {})
        assert (reused, runs_of(merged, "evals/a")) == (0, {"with": [(1, 1.0, False)]}), changed


def test_what_does_not_change_a_runs_meaning_keeps_the_case_the_same():
    old = case("evals/a", [run("with", 1, 0.0)], tags=("x",), description="old words")
    new = case("evals/a", tags=("y",), description="new words")
    new.runs_per_arm = 5
    assert same_case(new, old)
    assert not same_case(case("evals/a", prompt="Other."), old)


def test_cases_gone_are_dropped_and_cases_not_rerun_come_from_current():
    old = previous(
        case("evals/gone", [run("with", 1, 1.0)]),
        case("evals/kept", [run("with", 1, 1.0), run("with", 2, 0.0)]),
        case("evals/edited", [run("with", 1, 1.0)]),
        case("evals/rerun", [run("with", 1, 0.0)]),
    )
    fresh = {"evals/rerun": case("evals/rerun", [run("with", 1, 1.0)])}
    current = {
        "evals/kept": case("evals/kept", description="read now"),
        "evals/edited": case("evals/edited", prompt="Edited since."),
    }
    merged, reused = merge(fresh, old, current)
    # gone: no longer loads; edited: changed and not re-run, so it has no run to report.
    assert [c.dir for c in merged] == ["evals/kept", "evals/rerun"]
    assert reused == 2
    kept = merged[0]
    assert kept.description == "read now"  # the case as its files read now
    assert runs_of(merged, "evals/kept") == {"with": [(1, 1.0, True), (2, 0.0, True)]}
    assert (kept.aggregates.score, kept.aggregates.pass_rate) == (0.5, 0.5)


def test_a_new_case_has_its_runs_alone():
    merged, reused = merge({"evals/new": case("evals/new", [run("with", 1, 1.0)])}, previous(), {})
    assert (reused, [c.dir for c in merged], runs_of(merged, "evals/new")) == (
        0,
        ["evals/new"],
        {"with": [(1, 1.0, False)]},
    )


def test_merged_cases_are_sorted_by_path_parts():
    old = previous(case("evals/b", [run("with", 1, 1.0)]), case("evals/a-b", [run("with", 1, 1.0)]))
    fresh = {"evals/a/z": case("evals/a/z", [run("with", 1, 1.0)])}
    current = {"evals/b": case("evals/b"), "evals/a-b": case("evals/a-b")}
    merged, _ = merge(fresh, old, current)
    assert [c.dir for c in merged] == ["evals/a/z", "evals/a-b", "evals/b"]


def test_merge_changes_neither_input():
    old = previous(case("evals/a", [run("with", 1, 0.0), run("with", 2, 1.0)]))
    fresh_case = case("evals/a", [run("with", 1, 1.0)])
    merge({"evals/a": fresh_case}, old, {})
    assert [(r.index, r.reused) for r in old.cases[0].runs()] == [(1, False), (2, False)]
    assert [r.index for r in fresh_case.runs()] == [1]


# ---- remember / previous_results -----------------------------------------------------------------------------


class Cache:
    def __init__(self):
        self.values = {}

    def get(self, key, default):
        return self.values.get(key, default)

    def set(self, key, value):
        self.values[key] = value


class Config:
    def __init__(self, cache):
        self.cache = cache


def test_the_last_document_is_remembered_and_read_back(tmp_path):
    path = tmp_path / "results" / "aggregate-result.json"
    document = previous(case("evals/a", [run("with", 1, 1.0)]))
    write_json(path, document.to_json())
    config = Config(Cache())
    remember(config, [path])
    assert config.cache.values == {CACHE_KEY: [str(path)]}
    [(found, where)] = previous_results(config)
    assert where == str(path)
    assert found.to_json() == document.to_json()


def test_one_document_per_eval_dir_is_remembered(tmp_path):
    paths = [tmp_path / name / "aggregate-result.json" for name in ("a", "b")]
    for path in paths:
        document = previous(case("evals/a", [run("with", 1, 1.0)]))
        document.suite.root = f"/suite-{path.parent.name}"  # two eval dirs
        write_json(path, document.to_json())
    config = Config(Cache())
    remember(config, paths)
    assert [where for _, where in previous_results(config)] == [str(p) for p in paths]


def test_a_single_path_from_an_older_cache_is_still_read(tmp_path):
    path = tmp_path / "aggregate-result.json"
    write_json(path, previous(case("evals/a", [run("with", 1, 1.0)])).to_json())
    config = Config(Cache())
    config.cache.set(CACHE_KEY, str(path))
    assert [where for _, where in previous_results(config)] == [str(path)]


def test_nothing_to_remember_or_read(tmp_path):
    config = Config(Cache())
    remember(config, [])
    assert config.cache.values == {}
    assert previous_results(config) == []
    assert previous_results(Config(None)) == []
    remember(Config(None), [tmp_path / "x.json"])  # no cache plugin: nothing happens


def test_an_unreadable_previous_document_is_ignored(tmp_path):
    config = Config(Cache())
    config.cache.set(CACHE_KEY, str(tmp_path / "missing.json"))
    assert previous_results(config) == []
    (tmp_path / "bad.json").write_text("{not json")
    config.cache.set(CACHE_KEY, str(tmp_path / "bad.json"))
    assert previous_results(config) == []
    (tmp_path / "list.json").write_text(json.dumps([1]))
    config.cache.set(CACHE_KEY, str(tmp_path / "list.json"))
    assert previous_results(config) == []
    assert rerun.SAME_CASE_KEYS == ("promptMarkdown", "graders", "maxTurns", "timeoutSeconds", "model")


def test_a_session_of_a_few_cases_leaves_the_others_as_the_full_session_had_them(tmp_path):
    """Issue 23 item 5: after `-k` ran one case, --lf still knows every case of the full session before."""
    full, some = tmp_path / "full.json", tmp_path / "some.json"
    write_json(full, previous(case("evals/a", [run("with", 1, 0.0)]), case("evals/b", [run("with", 1, 0.0)])).to_json())
    write_json(some, previous(case("evals/b", [run("with", 1, 1.0)])).to_json())
    config = Config(Cache())
    remember(config, [full])
    remember(config, [some])
    assert config.cache.values[CACHE_KEY] == [str(full), str(some)]
    [(document, where)] = previous_results(config)
    assert where == str(some)
    assert {c.dir: c.runs()[0].score for c in document.cases} == {"evals/a": 0.0, "evals/b": 1.0}
    remember(config, [full])  # remembered again: it moves to the end, once
    assert config.cache.values[CACHE_KEY] == [str(some), str(full)]


def test_only_the_last_documents_are_remembered(tmp_path):
    config = Config(Cache())
    for i in range(rerun.REMEMBERED + 5):
        remember(config, [tmp_path / f"{i}.json"])
    assert config.cache.values[CACHE_KEY][0] == str(tmp_path / "5.json")
    assert len(config.cache.values[CACHE_KEY]) == rerun.REMEMBERED
