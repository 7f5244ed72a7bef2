"""The terminal table and the diagnostic hints, from results documents."""

from __future__ import annotations

import json

from pytest_plugin_eval.report.terminal import summary_line, table
from pytest_plugin_eval.report.view import notes_for
from pytest_plugin_eval.results.hints import case_hints, never_fired, suite_hints
from pytest_plugin_eval.results.model import CaseResult, SuiteResult


def run(score, *graders, error=None, kind=None):
    return {
        "score": score,
        "passed": score == 1.0,
        "costUsd": 0.01,
        "error": error,
        "errorKind": kind,
        "graders": [
            {"name": n, "passed": p, "explanation": e, "withOnly": w, "scored": not w} for n, p, e, w in graders
        ],
    }


SKILL = {"name": "skill-fired", "type": "tool_used", "weight": 1, "config": {"tool": "Skill"}}
RUBRIC = {"name": "judge", "type": "llm", "weight": 1, "config": {"criteria": "x", "focus": "last_message"}}


def case(name, agg, with_runs, without_runs=None, graders=(SKILL,)):
    arms = {"with": with_runs}
    if without_runs is not None:
        arms["without"] = without_runs
    return {"name": name, "graders": list(graders), "arms": arms, "aggregates": agg}


def typed(case_json: dict) -> CaseResult:
    return CaseResult.from_json(case_json)


def doc(cases: list[dict], **top) -> SuiteResult:
    return SuiteResult.from_json({"cases": cases, **top})


def test_two_arm_table_shows_the_interval_and_marks_noise():
    noisy = case(
        "noisy",
        {
            "score": 0.33,
            "scoreWithout": 0.0,
            "delta": 0.33,
            "deltaCI": [-1.1, 1.77],
            "deltaSignificant": False,
            "passRate": 0.33,
        },
        [run(1.0), run(0.0, ("g", False, "pattern not found in last_message", False))],
        [run(0.0)],
    )
    steady = case(
        "steady",
        {
            "score": 1.0,
            "scoreWithout": 0.0,
            "delta": 1.0,
            "deltaCI": [1.0, 1.0],
            "deltaSignificant": True,
            "passRate": 1.0,
        },
        [run(1.0)],
        [run(0.0)],
    )
    lines = table(doc([noisy, steady]))
    assert lines[0].split() == ["CASE", "WITH", "W/OUT", "Δ", "Δ", "95%", "CI", "RUNS", "COST", "NOTES"]
    assert "[-1.10, +1.77] n.s." in lines[1] and "g: pattern not found in last_message" in lines[1]
    assert "[+1.00, +1.00] " in lines[2] and "n.s." not in lines[2]


def test_single_arm_table_shows_the_spread():
    one = case("one", {"score": 0.5, "passRate": 0.5, "stdevWith": 0.7071}, [run(1.0), run(0.0)])
    assert table(doc([one]))[1].split()[:4] == ["one", "0.50", "±0.71", "50%"]


def test_notes_prefer_errors_then_hints_then_failing_graders():
    broken = case("b", {"score": 0.0}, [run(0.0, ("g", False, "no", False), error="timed out after 3s")])
    assert notes_for(typed(broken)) == "timed out after 3s"
    hinted = dict(case("h", {"score": 1.0}, [run(1.0, ("g", False, "no", False))]), hints=["look here"])
    assert notes_for(typed(hinted)) == "look here"
    aborted = case("a", {"score": 0.0}, [dict(run(0.0), aborted={"server": "s", "tool": "t", "reason": "r"})])
    assert notes_for(typed(aborted)) == "aborted by mock s/t: r"


def test_with_runs_auto_a_clean_case_says_how_many_runs_it_took_and_why():
    settled = dict(case("s", {"score": 1.0}, [run(1.0)] * 4, [run(0.0)] * 4), autoRuns={"runs": 4, "stopped": "futile"})
    assert notes_for(typed(settled)) == "4 runs/arm: more runs, going on as so far, would not settle Δ"
    failing = dict(settled, arms={"with": [run(0.0, ("g", False, "no", False))], "without": [run(0.0)]})
    assert notes_for(typed(failing)) == "g: no"  # what failed matters more than the run count
    assert notes_for(typed(case("fixed", {"score": 1.0}, [run(1.0)], [run(1.0)]))) == ""


def test_a_flat_delta_with_a_skill_that_never_fired_points_at_the_description():
    flat = case(
        "flat",
        {"score": 0.5, "scoreWithout": 0.5, "delta": 0.0},
        [run(0.5, ("skill-fired", False, "Skill called 0x (expected 1..∞)", True))] * 2,
        [run(0.5)],
    )
    assert "description" in case_hints(typed(flat))[0]
    fired = case(
        "fired",
        {"score": 0.5, "scoreWithout": 0.5, "delta": 0.0},
        [run(0.5, ("skill-fired", True, "Skill called 1x (expected 1..∞)", True))],
        [run(0.5)],
    )
    assert case_hints(typed(fired)) == []


def test_an_indicator_that_misses_the_skill_calls_made_blames_its_pattern_not_the_description(tmp_path):
    """Issue 34 item 19: every run called the skill, the indicator's input_match misspelt its namespace."""
    call = {"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "superpowers:brainstorming"}}
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps({"type": "assistant", "message": {"content": [call]}}) + "\n")
    typo = {**SKILL, "config": {"tool": "Skill", "input_match": "superpower:brainstorming"}}
    missed = dict(run(0.5, ("skill-fired", False, "Skill called 0x (expected 1..∞)", True)), tracePath=str(trace))
    flat = case("flat", {"score": 0.5, "scoreWithout": 0.5, "delta": 0.0}, [missed] * 2, [run(0.5)], graders=[typo])
    [hint] = case_hints(typed(flat))
    assert hint == (
        "the plugin-fired indicator failed in every with-plugin run, yet every one of them called Skill "
        "(superpowers:brainstorming): its input_match 'superpower:brainstorming' matches none of these calls — fix "
        "the pattern (a typo in the skill's name or its namespace?), not the description"
    )
    no_call = dict(missed, tracePath=None)  # a run that called nothing: the description is the suspect again
    other = case("o", {"score": 0.5, "scoreWithout": 0.5, "delta": 0.0}, [missed, no_call], [run(0.5)], graders=[typo])
    assert "sharpen the skill's `description`" in case_hints(typed(other))[0]


def test_a_skill_that_never_fired_gets_a_hint_whatever_the_delta():
    improved = case(
        "improved",
        {"score": 1.0, "scoreWithout": 0.33, "delta": 0.67},
        [run(1.0, ("skill-fired", False, "Skill called 0x (expected 1..∞)", True))] * 3,
        [run(0.33)],
    )
    [hint] = case_hints(typed(improved))
    assert hint.startswith("the skill never fired in the with-plugin runs, yet Δ is +0.67: ")
    assert "came from elsewhere (its MCP tools, a command, a hook)" in hint and "`description`" in hint
    shown = typed(improved)
    shown.hints = case_hints(shown)
    assert never_fired(shown) and notes_for(shown) == hint  # the NOTES column says it, above the failing indicator
    single = dict(improved, aggregates={"score": 1.0})
    assert case_hints(typed(single))[0].startswith("the skill never fired in the with-plugin runs: ")


def test_a_negative_delta_although_the_skill_fired_suspects_the_judge():
    worse = case(
        "worse",
        {"score": 0.0, "scoreWithout": 1.0, "delta": -1.0},
        [run(0.0, ("skill-fired", True, "Skill called 1x", True), ("judge", False, "judge votes: FAIL FAIL", False))],
        [run(1.0)],
        graders=(SKILL, RUBRIC),
    )
    assert "suspect the judge first" in case_hints(typed(worse))[0] and "--judge-model" in case_hints(typed(worse))[0]
    free = case(
        "worse",
        {"score": 0.0, "scoreWithout": 1.0, "delta": -1.0},
        [run(0.0, ("skill-fired", True, "Skill called 1x", True))],
        [run(1.0)],
    )
    assert "make the answer worse" in case_hints(typed(free))[0]


def test_the_same_api_error_everywhere_is_infrastructure():
    down = [case("a", {"score": None}, [run(None, error="exit 1: API Error: 529", kind="api")] * 2)]
    assert "infrastructure" in suite_hints([typed(c) for c in down])[0]
    mixed = down + [case("b", {"score": 1.0}, [run(1.0)])]
    assert suite_hints([typed(c) for c in mixed]) == []


def test_summary_line():
    two = [case("a", {"score": 1.0}, []), case("b", {"score": 1.0}, [])]
    document = doc(
        two,
        aggregates={"meanDelta": 0.25},
        durationSeconds=12,
        costUsd=0.031,
        partial=True,
        partialReason="cost_ceiling",
    )
    assert summary_line(document) == "2 case(s) · mean Δ +0.25 · 12s · $0.03 · ⚠ partial (cost ceiling hit)"


TRIGGER_SET = {
    "skill": "greeter:greet",
    "name": "greet",
    "queries": [
        {"id": "hi", "query": "Hi", "shouldFire": True, "runs": [{"index": 1, "fired": True, "costUsd": 0.01}]}
    ],
}


def test_the_session_cost_under_the_cases_says_the_trigger_runs_are_in_it():
    """The cases' line showed the session's cost, trigger runs included, right above the trigger table's own total:
    it read as two costs to add up."""
    two = [case("a", {"score": 1.0}, []), case("b", {"score": 1.0}, [])]
    document = doc(two, durationSeconds=12, costUsd=0.031, triggers=[TRIGGER_SET])
    assert summary_line(document) == "2 case(s) · 12s · $0.03 in all (trigger runs $0.01 of it)"
    assert summary_line(doc(two, durationSeconds=12, costUsd=0.031)) == "2 case(s) · 12s · $0.03"
