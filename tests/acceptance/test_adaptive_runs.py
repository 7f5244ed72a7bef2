"""--runs auto through the real binary: each case stops adding runs for its own reason, in one process, with
-j and under pytest-xdist."""

from __future__ import annotations

import pytest
from helpers.e2e import GREETING_GRADERS

GREETING = {"greeting": GREETING_GRADERS["greeting"]}
HELPS = {"with": ["Hello from the plugin."], "without": ["Nope."]}  # with-arm 1, without-arm 0 every run
SAME = {"all": ["Hello from the plugin."]}  # both arms 1 every run


def auto_runs(run, name: str) -> tuple[dict, list[int], list[int]]:
    case = run.case(name)
    return (
        case["autoRuns"],
        [r["index"] for r in case["arms"]["with"]],
        [r["index"] for r in case["arms"].get("without", [])],
    )


@pytest.mark.parametrize("extra", [[], ["-j", "3"], ["-n", "2"]], ids=["serial", "pool", "xdist"])
def test_each_case_stops_for_its_own_reason(suite, extra):
    suite.case("helps", graders=GREETING, script=HELPS)
    suite.case("same", graders=GREETING, script=SAME)
    run = suite.run("--runs", "auto:6", "--threshold", "0", *extra)
    assert run.rc == 0, run.out
    # 3 passes against 3 failures is not yet decided at the stricter per-look level; 4 against 4 is.
    assert auto_runs(run, "helps") == ({"runs": 4, "stopped": "decided"}, [1, 2, 3, 4], [1, 2, 3, 4])
    # Both arms always pass: Δ is 0, and 6 runs going on like the first 4 would not settle it.
    assert auto_runs(run, "same") == ({"runs": 4, "stopped": "futile"}, [1, 2, 3, 4], [1, 2, 3, 4])
    assert run.case("helps")["runsPerArm"] == 4
    assert run.doc["suite"]["autoRuns"]["max"] == 6 and run.doc["suite"]["autoRuns"]["first"] == 3
    assert "8 not needed" in run.out  # runs 5 and 6 of both arms of both cases were never made
    assert not run.doc.get("skippedRuns")


def test_a_wide_enough_width_stops_at_the_first_runs_and_single_arm_cases_too(suite):
    suite.case("same", graders=GREETING, script=SAME)
    run = suite.run("--runs", "auto:5:2", "--threshold", "0", "-v")
    assert auto_runs(run, "same")[0] == {"runs": 3, "stopped": "precise"}
    assert "same[with-plugin-4] NOT NEEDED" in run.out
    single = suite.run("--runs", "auto", "--ablation", "none", "--threshold", "0")
    assert auto_runs(single, "same") == ({"runs": 3, "stopped": "single_arm"}, [1, 2, 3], [])


def test_bad_auto_values_are_option_errors(suite):
    suite.case("same", graders=GREETING, script=SAME)
    for value, words in [("auto:2", "at least 3"), ("auto:6:0", "WIDTH above 0"), ("automatic", "auto:MAX")]:
        run = suite.run("--runs", value, json_out=False)
        assert run.rc == 1
        assert words in run.out + run.err, (value, run.out, run.err)


def test_lf_runs_a_failed_case_again_whole_and_reuses_the_passed_ones(suite):
    half = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
    suite.case("half", graders=GREETING, script=half)
    suite.case("helps", graders=GREETING, script=HELPS)
    lf = ("-p", "cacheprovider", "--runs", "auto:4")
    first = suite.run(*lf)
    assert first.rc == 1 and first.case("half")["aggregates"]["score"] < 1
    (suite.root / "evals" / "half" / "scripted.yaml").write_text(
        "with: ['Hello from the plugin.']\nwithout: ['Nope.']\n"
    )
    second = suite.run(*lf, "--lf")
    assert second.rc == 0, second.out
    assert "whole (--runs auto decides their runs afresh)" in second.out
    # Its run count was decided on this session's runs alone: with at most 4 runs there is one look, at 95%, and
    # 3 passes against 3 failures settle it.
    assert auto_runs(second, "half") == ({"runs": 3, "stopped": "decided"}, [1, 2, 3], [1, 2, 3])
    assert not any(r.get("reused") for runs in second.case("half")["arms"].values() for r in runs)
    assert all(r.get("reused") for runs in second.case("helps")["arms"].values() for r in runs)


def test_the_maximum_and_runs_that_never_happened_stop_a_case_too(suite):
    suite.case("same", graders=GREETING, script=SAME)
    capped = suite.run("--runs", "auto:4", "--threshold", "0")
    # No interval at 4 runs against 4 that both always pass excludes 0 or is narrower than 0.3: the cap stops it.
    assert auto_runs(capped, "same") == ({"runs": 4, "stopped": "max_runs"}, [1, 2, 3, 4], [1, 2, 3, 4])
    partial = suite.run("--runs", "auto:6", "--threshold", "0", "-k", "not with-plugin-4")
    stopped = auto_runs(partial, "same")[0]
    assert stopped == {"runs": 3, "stopped": "incomplete"}, partial.out  # its fourth round was deselected


def test_a_model_matrix_decides_each_models_runs_apart(suite):
    haiku, sonnet = "claude-haiku-4-5", "claude-sonnet-4-5"
    # on sonnet the plugin does not help: both arms fail every run
    suite.case("helps", graders=GREETING, script={**HELPS, "models": {sonnet: {"with": ["Nope."]}}})
    run = suite.run("--runs", "auto:6", "--threshold", "0", "--model", f"{haiku},{sonnet}")
    assert run.rc == 0, run.out
    docs = {doc["suite"]["modelOverride"]: doc for doc in run.doc["suites"]}
    stopped = {
        model: (doc["cases"][0]["autoRuns"], len(doc["cases"][0]["arms"]["with"])) for model, doc in docs.items()
    }
    assert stopped == {haiku: ({"runs": 4, "stopped": "decided"}, 4), sonnet: ({"runs": 4, "stopped": "futile"}, 4)}
