"""Trigger evals end to end, through the real Claude Code against the scripted endpoint: runs held and stopped at
the deciding call, siblings that take a near-miss, an agent that looks around first, errors that are no "no",
skill-creator's JSON as its users keep it, and what the verdicts do to pytest's summary, JUnit and the exit status.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

FAREWELL = """---
name: farewell
description: Says goodbye warmly. Use when the user is leaving.
---
Reply with a warm goodbye.
"""


def triggers(suite, data: dict, name: str = "triggers.yaml") -> Path:
    path = suite.root / "evals" / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def with_farewell(suite) -> None:
    (suite.root / "skills" / "farewell").mkdir(parents=True)
    (suite.root / "skills" / "farewell" / "SKILL.md").write_text(FAREWELL)


def trace_events(run: dict) -> list[dict]:
    return [json.loads(line) for line in Path(run["tracePath"]).read_text().splitlines() if line.strip()]


def query(doc: dict, skill: str, query_id: str) -> dict:
    trigger_set = next(s for s in doc["triggers"] if s["name"] == skill)
    return next(q for q in trigger_set["queries"] if q["id"] == query_id)


def test_a_trigger_run_is_stopped_at_the_skill_call_before_the_skill_does_anything(suite):
    triggers(
        suite,
        {
            "runs": 2,
            "skills": {
                "greet": {
                    "should_fire": [
                        {
                            "query": "hi there!",
                            "id": "hi",
                            # after the Skill call the agent would write a file: it must never get that far
                            "scripted": [
                                {"tool": "Skill", "input": {"skill": "greeter:greet"}},
                                {"tool": "Write", "input": {"file_path": "{cwd}/done.txt", "content": "x"}},
                                {"text": "Hello from the plugin"},
                            ],
                        }
                    ]
                }
            },
        },
    )
    run = suite.run("--allow-tools", "Write")
    assert run.rc == 0, run.out
    hi = query(run.doc, "greet", "hi")
    assert (hi["fires"], hi["decidedRuns"], hi["verdict"], hi["correct"]) == (2, 2, "undecided", None)
    for trigger_run in hi["runs"]:
        assert trigger_run["fired"] is True and trigger_run["skill"] == "greeter:greet"
        assert trigger_run["decidedBy"] == "Skill call"
        events = trace_events(trigger_run)
        kinds = [e["type"] for e in events]
        assert kinds == ["system", "assistant"], kinds  # no tool result, no second model turn
        assert events[1]["message"]["content"][0]["name"] == "Skill"
    assert "evals/triggers.yaml::greet/hi SKIPPED" in run.out  # 2 of 2 cannot decide at 95%: says so
    assert "undecided: 2/2 runs fired greeter:greet" in run.out


def test_a_near_miss_that_a_sibling_takes_is_a_pass_and_the_sibling_is_named(suite):
    with_farewell(suite)
    triggers(
        suite,
        {
            "skills": {
                "greet": {
                    "should_fire": [{"query": "hello!", "id": "hello"}],
                    "should_not_fire": [{"query": "bye now", "id": "bye", "scripted": "farewell"}],
                }
            }
        },
    )
    run = suite.run()
    assert run.rc == 0, run.out
    bye = query(run.doc, "greet", "bye")
    assert (bye["fires"], bye["decidedRuns"], bye["verdict"], bye["correct"]) == (0, 5, "does_not_fire", True)
    assert bye["consulted"] == {"greeter:farewell": 5}
    assert "took: 5× greeter:farewell" in run.out
    summary = run.doc["triggers"][0]["summary"]
    assert summary["recall"]["count"] == 1 and summary["falseFireRate"]["count"] == 0
    assert run.doc["triggers"][0]["description"].startswith("Greets the user warmly")


def test_an_agent_that_looks_around_first_fires_on_its_second_turn(suite):
    (suite.root / "evals" / "notes.txt").write_text("not for the agent")
    triggers(
        suite,
        {
            "runs": 4,
            "skills": {
                "greet": {
                    "should_fire": [
                        {
                            "query": "hello, what's in here?",
                            "id": "looks-first",
                            "scripted": [
                                {"tool": "Glob", "input": {"pattern": "*"}},
                                {"tool": "Skill", "input": {"skill": "greeter:greet"}},
                                {"text": "Hello from the plugin"},
                            ],
                        }
                    ]
                }
            },
        },
    )
    run = suite.run()
    assert run.rc == 0, run.out
    looks = query(run.doc, "greet", "looks-first")
    assert (looks["fires"], looks["verdict"], looks["correct"]) == (4, "fires", True)
    for trigger_run in looks["runs"]:
        kinds = [e["type"] for e in trace_events(trigger_run)]
        assert kinds == ["system", "assistant", "user", "assistant"], kinds  # Glob ran, then held at Skill


def test_a_should_fire_query_that_never_fires_fails_the_session_in_pytest_and_junit(suite):
    triggers(suite, {"skills": {"greet": {"should_fire": [{"query": "hey", "id": "hey", "scripted": "none"}]}}})
    run = suite.run("--junitxml", "junit.xml")
    assert run.rc == 1, run.out
    assert "FAILED evals/triggers.yaml::greet/hey - ✗ should fire, but does not fire: 0/5" in run.out
    assert "the agent consulted: 5× no skill" in run.out
    cases = {(c.get("classname"), c.get("name")): c for c in ET.parse(suite.root / "junit.xml").iter("testcase")}
    hey = cases[("greeter.triggers.greet", "hey")]
    assert hey.find("failure") is not None
    properties = {p.get("name"): p.get("value") for p in hey.iter("property")}
    assert properties["query"] == "hey" and properties["shouldFire"] == "True"  # what was asked, not only its slug
    assert ("greeter.triggers.greet", "hey-run-3") in cases  # the runs pass: they ran
    assert query(run.doc, "greet", "hey")["correct"] is False


def test_an_api_error_is_no_no_it_is_left_out_and_the_session_is_partial(suite, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    triggers(
        suite,
        {
            "runs": 2,
            "skills": {
                "greet": {
                    "should_not_fire": [
                        {
                            "query": "what time is it?",
                            "id": "time",
                            "scripted": [{"error": {"status": 529, "message": "overloaded"}, "repeat": 5}],
                        }
                    ]
                }
            },
        },
    )
    run = suite.run("--api-retries", "0")
    assert run.rc == 2, run.out
    time_query = query(run.doc, "greet", "time")
    assert time_query["decidedRuns"] == 0 and time_query["verdict"] == "no_runs"
    assert all(r["fired"] is None and r["errorKind"] == "api" for r in time_query["runs"])
    assert run.doc["partial"] is True and run.doc["partialReason"] == "api_error"


def test_skill_creator_trigger_json_in_the_skill_folder_runs_as_it_is(suite):
    folder = suite.root / "skills" / "greet" / "evals"
    folder.mkdir()
    (folder / "trigger-eval.json").write_text(
        json.dumps(
            [
                {"query": "hello there, friend", "should_trigger": True},
                {"query": "what's the capital of France?", "should_trigger": False},
            ]
        )
    )
    run = suite.run()
    assert run.rc == 0, run.out
    [trigger_set] = run.doc["triggers"]
    assert trigger_set["format"] == "skill-creator" and trigger_set["skill"] == "greeter:greet"
    assert trigger_set["file"] == "skills/greet/evals/trigger-eval.json"
    assert [q["verdict"] for q in trigger_set["queries"]] == ["fires", "does_not_fire"]
    assert "skills/greet/evals/trigger-eval.json::greet/hello-there-friend PASSED" in run.out
    results = Path(run.doc["triggers"][0]["queries"][0]["runs"][0]["tracePath"])
    assert (suite.root / "evals" / "results") in results.parents  # kept with the suite, not in the skill folder


def test_a_trigger_file_naming_no_skill_of_the_plugin_is_a_load_error_with_a_did_you_mean(suite):
    triggers(suite, {"skills": {"greeet": {"should_fire": ["hello"]}}})
    run = suite.run()
    assert run.rc == 1, run.out
    [error] = run.doc["loadErrors"]
    assert error["dir"] == "evals/triggers.yaml"
    assert "'greeet' is no skill or command of the plugin — did you mean greet?" in error["message"]


def test_trigger_runs_under_two_workers_come_out_as_serially(suite):
    with_farewell(suite)
    triggers(
        suite,
        {
            "runs": 4,
            "skills": {
                "greet": {
                    "should_fire": ["hi!", "good morning"],
                    "should_not_fire": [{"query": "ciao", "scripted": "farewell"}],
                },
            },
        },
    )
    serial = suite.run("-k", "greet")
    parallel = suite.run("-n", "2")

    def outcome(doc):
        return [(q["id"], q["fires"], q["decidedRuns"], q["verdict"]) for s in doc["triggers"] for q in s["queries"]]

    assert serial.rc == parallel.rc == 0, parallel.out
    assert outcome(serial.doc) == outcome(parallel.doc)
    assert "15 passed" in parallel.out.strip().splitlines()[-1]  # 12 runs and the 3 queries' verdicts


def test_runs_auto_adds_runs_only_to_queries_still_undecided(suite):
    triggers(
        suite,
        {
            "runs": 5,
            "skills": {
                "greet": {
                    "should_fire": [
                        {"query": "hello!", "id": "clear"},
                        # fires on runs 1-3 and 6 on, not on 4 and 5: 3/5 after the first runs is undecided
                        {"query": "hmm, hi?", "id": "unclear", "scripted": {4: "none", 5: "none", "default": "fire"}},
                    ]
                }
            },
        },
    )
    run = suite.run("--runs", "auto:8")
    assert run.rc == 0, run.out
    clear, unclear = query(run.doc, "greet", "clear"), query(run.doc, "greet", "unclear")
    assert clear["decidedRuns"] == 5  # decided by its first runs: never given more
    assert 5 < unclear["decidedRuns"] <= 8 and unclear["fires"] == unclear["decidedRuns"] - 2
    assert "NOT NEEDED" in run.out or "not needed" in run.out


def test_lf_makes_a_trigger_files_queries_again_beside_the_failed_cases_runs(suite):
    script = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
    greeting = {"greeting": "---\ntype: regex\npattern: ^Hello from the plugin\n---\n"}
    suite.case("half", frontmatter={"runs": 2}, graders=greeting, script=script)
    triggers(
        suite, {"runs": 4, "skills": {"greet": {"should_fire": [{"query": "hey", "id": "hey", "scripted": "none"}]}}}
    )
    argv = ["evals", "--trust-plugin", "--scripted", "--json"]
    assert suite.pytester.runpytest_subprocess(*argv, "first.json").ret == 1
    second = suite.pytester.runpytest_subprocess(*argv, "second.json", "--lf")
    doc = json.loads((suite.root / "second.json").read_text())
    assert second.ret == 1  # the query still does not fire
    hey = query(doc, "greet", "hey")
    assert (hey["decidedRuns"], hey["verdict"]) == (4, "does_not_fire")
    assert [c["name"] for c in doc["cases"]] == ["half"]


def test_the_cost_ceiling_stops_trigger_runs_and_the_session_is_partial(suite):
    triggers(suite, {"runs": 5, "skills": {"greet": {"should_fire": ["hello!", "good morning to you"]}}})
    run = suite.run("--max-cost-usd", "0.001")
    assert run.rc == 2, run.out
    assert run.doc["partial"] is True and run.doc["partialReason"] == "cost_ceiling"
    made = [r for s in run.doc["triggers"] for q in s["queries"] for r in q["runs"]]
    assert 0 < len(made) < 10 and len(run.doc["skippedRuns"]) == 10 - len(made)
    assert run.doc["costUsd"] >= 0.001
