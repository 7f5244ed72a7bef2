"""End to end: what each arm's runs spend (aggregates.efficiency) and the `budget` grader, through the real Claude
Code and the scripted endpoint — whose with-plugin arm is scripted to take more turns than the without arm."""

from __future__ import annotations

import json

import pytest

GLOB = {"tool": "Glob", "input": {"pattern": "*"}}
# With the plugin: three tool calls, then the answer (4 model turns); without it: the answer at once (1 turn).
SCRIPT = {"with": [GLOB, GLOB, GLOB, {"text": "Hello from the plugin."}], "without": [{"text": "Hello there."}]}
GRADERS = {
    "hello": "---\ntype: regex\npattern: Hello\n---\n",
    "lean": "---\ntype: budget\nmax_turns:\n  ratio: 2\n  relative_to: without\nmax_tool_calls: 5\n---\n",
}


def test_budget_fails_on_turns_relative_to_the_without_arm_and_efficiency_is_recorded(suite):
    suite.case("frugal", frontmatter={"runs": 3}, graders=GRADERS, script=SCRIPT)
    run = suite.run("-vv", "--md", "summary.md")
    assert run.rc == 1, run.out
    # a run's line says its relative budget waits for the case; the case's verdict has it
    assert "frugal[with-plugin-1] PASSED score 1.00 · lean decided with the case" in run.out
    assert "✗ lean in with-plugin runs 1, 2, 3: turns 4 > 2 (2 × 1, the without-plugin median of 3 runs)" in run.out
    case = run.case("frugal")
    with_runs, without_runs = case["arms"]["with"], case["arms"]["without"]

    # each run records what it spent, from its trace
    for r in with_runs:
        assert (r["turns"], r["toolCalls"]) == (4, 3)
        assert r["tokens"]["output"] > 0 and r["agentSeconds"] > 0
    for r in without_runs:
        assert (r["turns"], r["toolCalls"]) == (1, 0)

    # the budget: each with-plugin run took 4 turns, over 2 × the without-plugin median (1 turn)
    verdicts = {
        arm: [next(g for g in r["graders"] if g["name"] == "lean") for r in runs]
        for arm, runs in (("with", with_runs), ("without", without_runs))
    }
    assert {(g["passed"], g["scored"]) for g in verdicts["with"]} == {(False, True)}
    assert verdicts["with"][0]["explanation"] == (
        "turns 4 > 2 (2 × 1, the without-plugin median of 3 runs); tool calls 3 ≤ 5 (max_tool_calls)"
    )
    assert {(g["passed"], g["scored"]) for g in verdicts["without"]} == {(True, True)}
    assert [r["score"] for r in with_runs] == [0.5, 0.5, 0.5]
    assert run.doc["partial"] is False  # waiting for the case was no grader error
    assert case["aggregates"]["score"] == 0.5 and case["aggregates"]["scoreWithout"] == 1.0

    # the case's efficiency: medians per arm, with − without and its interval (3 runs against 3: 90%)
    efficiency = case["aggregates"]["efficiency"]
    assert efficiency["turns"] == {
        "medians": {"with": 4, "without": 1},
        "runs": {"with": 3, "without": 3},
        "delta": 3,
        "deltaCI": [3, 3],
        "ciLevel": pytest.approx(0.9),
    }
    assert efficiency["toolCalls"]["medians"] == {"with": 3, "without": 0}
    tokens = efficiency["tokens"]
    assert tokens["medians"]["with"] > tokens["medians"]["without"] > 0
    assert tokens["delta"] == tokens["medians"]["with"] - tokens["medians"]["without"]
    cost = efficiency["costUsd"]
    agent_costs = sorted(r["costUsd"] - r["judgeCostUsd"] for r in with_runs)
    assert cost["medians"]["with"] == pytest.approx(agent_costs[1])
    assert set(efficiency["seconds"]["medians"]) == {"with", "without"}
    # the suite's: one case, too few for an interval
    suite_turns = run.doc["aggregates"]["efficiency"]["turns"]
    assert suite_turns == {"medians": {"with": 4, "without": 1}, "cases": 1, "delta": 3}

    # the expanded terminal view (-vv) shows the figures per case
    assert "efficiency (median per run: with / without, Δ)" in run.out
    assert "frugal  turns 4 / 1 (+3) · tool calls 3 / 0 (+3) · tokens " in run.out
    summary = (suite.pytester.path / "summary.md").read_text()
    assert "| frugal | 4 / 1 (+3, 90% CI [+3, +3]) | 3 / 0 (+3, 90% CI [+3, +3]) |" in summary


def test_relative_budget_in_a_case_with_one_arm_is_reported_not_scored(suite):
    suite.case("alone", frontmatter={"runs": 1}, graders=GRADERS, script=SCRIPT)
    run = suite.run("--ablation", "none")
    case = run.case("alone")
    [first] = case["arms"]["with"]
    lean = next(g for g in first["graders"] if g["name"] == "lean")
    assert (lean["passed"], lean["scored"]) == (False, False)
    assert "not decided: no without-plugin run recorded its turns to compare with" in lean["explanation"]
    assert first["score"] == 1.0 and run.rc == 0, run.out
    assert json.dumps(case["aggregates"]["efficiency"]["turns"]) == json.dumps(
        {"medians": {"with": 4}, "runs": {"with": 1}}
    )


def test_compare_to_an_earlier_session_shows_what_the_runs_spend_then_and_now(suite):
    folder = suite.case("frugal", frontmatter={"runs": 3}, graders={"hello": GRADERS["hello"]}, script=SCRIPT)
    first = suite.run("--output-dir", "s1")
    assert first.rc == 0, first.out
    # the plugin's runs now answer at once: one turn, no tool call
    (folder / "scripted.yaml").write_text("with: ['Hello from the plugin.']\nwithout: ['Hello there.']\n")
    second = suite.run("--output-dir", "s2", "--compare-to", "s1")
    assert "efficiency of the with-plugin runs (median per run, then → now):" in second.out
    assert "  frugal: turns 4 → 1 (-3, 90% CI [-3, -3], lower) · tool calls 3 → 0 (-3, 90% CI [-3, -3], lower)" in (
        second.out
    )
    assert second.rc == 0, second.out  # spending less, or more, fails nothing by itself


def test_under_xdist_the_budget_is_settled_with_runs_from_every_worker(suite):
    suite.case("frugal", frontmatter={"runs": 3}, graders=GRADERS, script=SCRIPT)
    run = suite.run("-n", "2")
    case = run.case("frugal")
    assert [r["score"] for r in case["arms"]["with"]] == [0.5, 0.5, 0.5], run.out
    assert [r["score"] for r in case["arms"]["without"]] == [1.0, 1.0, 1.0]
    assert case["aggregates"]["efficiency"]["turns"]["medians"] == {"with": 4, "without": 1}
    assert run.rc == 1


def test_a_budget_added_later_is_decided_by_regrade_on_what_the_stored_runs_recorded(suite):
    folder = suite.case("frugal", frontmatter={"runs": 3}, graders={"hello": GRADERS["hello"]}, script=SCRIPT)
    first = suite.run()
    assert first.rc == 0, first.out
    stored = next((suite.root / "evals" / "results").glob("*/aggregate-result.json")).parent
    (folder / "graders" / "lean.md").write_text(GRADERS["lean"])
    again = suite.run("--regrade", str(stored))
    case = again.case("frugal")
    lean = [next(g for g in r["graders"] if g["name"] == "lean") for r in case["arms"]["with"]]
    assert {(g["passed"], g["scored"]) for g in lean} == {(False, True)}
    assert lean[0]["explanation"].startswith("turns 4 > 2 (2 × 1, the without-plugin median of 3 runs)")
    assert case["aggregates"]["efficiency"] == first.case("frugal")["aggregates"]["efficiency"]
    assert again.rc == 1, again.out
