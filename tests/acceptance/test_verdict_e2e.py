"""One verdict everywhere: what pytest says, what JUnit XML says, what the table says and the exit status tell one
story, under -n, -x, -m and --json, and a session over several plugins keeps them apart."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from helpers.e2e import GREETING_GRADERS, Suite

from pytest_plugin_eval.cli.main import main
from pytest_plugin_eval.results.store import read_results, read_suites

HALF = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
GOOD = {"all": ["Hello from the plugin."]}
GREETING = {"greeting": GREETING_GRADERS["greeting"]}


def two_cases(suite: Suite) -> None:
    suite.case("half", frontmatter={"runs": 2}, graders=GREETING, script=HALF)
    suite.case("good", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)


def last_line(run) -> str:
    return run.out.strip().splitlines()[-1]


def test_a_case_below_the_threshold_is_the_one_failed_test_in_junit_too(suite):
    two_cases(suite)
    run = suite.run("--threshold", "0.8", "--junitxml", "junit.xml")
    assert run.rc == 1
    assert "1 failed, 7 passed" in last_line(run)  # 6 runs and the passing case
    assert "FAILED evals/half/prompt.md::half - greeting: " in run.out
    cases = {(c.get("classname"), c.get("name")): c for c in ET.parse(suite.root / "junit.xml").iter("testcase")}
    half = cases[("greeter", "half")]
    failure = half.find("failure")
    assert failure is not None and failure.get("message").startswith("greeting: ")
    assert "score 0.50 < threshold 0.80" in failure.get("message")
    props = {p.get("name"): p.get("value") for p in half.iter("property")}
    assert props["score"] == "0.5" and props["scoreWithout"] == "0.0" and props["delta"] == "0.5"
    assert props["runs"] == "4" and "costUsd" in props
    assert cases[("greeter", "good")].find("failure") is None
    runs = [name for (classname, name) in cases if classname == "greeter.half"]
    assert sorted(runs) == ["no-plugin-1", "no-plugin-2", "with-plugin-1", "with-plugin-2"]
    assert all(cases[("greeter.half", name)].find("failure") is None for name in runs)  # runs pass


def test_exit_0_means_no_test_failed(suite):
    two_cases(suite)
    run = suite.run("--threshold", "0.5")
    assert run.rc == 0
    assert "failed" not in last_line(run) and "8 passed" in last_line(run)


def test_under_two_workers_the_same_story(suite):
    two_cases(suite)
    run = suite.run("--threshold", "0.8", "-n", "2")
    assert run.rc == 1
    assert "1 failed, 7 passed" in last_line(run)
    assert "FAILED evals/half/prompt.md::half - greeting: " in run.out
    assert "[100%]" in run.out and "[1" + "25%]" not in run.out


def test_x_stops_at_the_first_failing_case(suite):
    suite.case("a-half", frontmatter={"runs": 2}, graders=GREETING, script=HALF)
    suite.case("b-half", frontmatter={"runs": 2}, graders=GREETING, script=HALF)
    run = suite.run("--threshold", "0.8", "-x")
    assert run.rc == 1
    assert "FAILED evals/a-half/prompt.md::a-half" in run.out
    assert "b-half" not in run.out.split("short test summary info")[-1]
    assert "1 failed" in last_line(run)


def test_tags_are_markers(suite):
    suite.case("tagged", frontmatter={"runs": 1, "tags": ["smoke"]}, graders=GREETING, script=GOOD)
    suite.case("other", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)
    run = suite.run("-m", "smoke", "--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning")
    assert run.rc == 0, run.out
    assert [case["name"] for case in run.doc["cases"]] == ["tagged"]


def test_json_without_a_path_keeps_stdout_for_the_document(suite):
    suite.case("good", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)
    result = suite.pytester.runpytest_subprocess(
        "evals", "-p", "no:cacheprovider", "--trust-plugin", "--scripted", "--json"
    )
    document = json.loads(result.stdout.str())
    assert document["cases"][0]["name"] == "good" and result.ret == 0
    assert "passed" in result.stderr.str()


def test_a_case_left_out_by_case_does_not_fail_the_session(suite):
    suite.case("good", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)
    broken = suite.case("broken", frontmatter={"runs": 1, "colour": "red"}, graders=GREETING, script=GOOD)
    assert (broken / "prompt.md").exists()
    left_out = suite.run("--case", "good")
    assert left_out.rc == 0 and left_out.doc["loadErrors"] == []
    asked = suite.run("--case", "broken")
    assert asked.rc == 1 and asked.doc["loadErrors"][0]["case"] == "broken"


def test_two_plugins_under_one_path_keep_their_own_results(pytester, capsys):
    roots = []
    for name in ("alpha", "beta"):
        suite = Suite(pytester, pytester.path / name, name)
        suite.case("greets", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)
        roots.append(suite.root)
    result = pytester.runpytest_subprocess(
        ".", "-p", "no:cacheprovider", "--trust-plugin", "--scripted", "--json", "out.json"
    )
    assert result.ret == 0, result.stdout.str()
    combined = json.loads((pytester.path / "out.json").read_text())
    assert [len(doc["cases"]) for doc in combined["suites"]] == [1, 1]
    assert {doc["suite"]["plugins"][0]["name"] for doc in combined["suites"]} == {"alpha", "beta"}
    read_back = {suite.suite.plugins[0].name: suite for suite in read_suites(pytester.path / "out.json")}
    for root in roots:  # each plugin's results folder holds its own case only
        [document] = (root / "evals" / "results").glob("*/aggregate-result.json")
        doc = json.loads(document.read_text())
        assert [c["name"] for c in doc["cases"]] == ["greets"] and len(doc["cases"][0]["arms"]["with"]) == 1
        assert read_back[root.name] == read_results(document)  # the --json document holds each suite's whole
    # a reader of one suite names the file and says what it holds instead
    assert main(["compare", str(pytester.path / "out.json"), str(document.parent)]) == 1
    assert f"{pytester.path / 'out.json'}: holds several suites" in capsys.readouterr().err
    out = result.stdout.str()
    assert "plugin eval · alpha" in out and "plugin eval · beta" in out


def test_two_plugins_in_one_session_each_carry_their_own_notices(pytester):
    """A walk at a marketplace root: each plugin's results said the other's hints too. Each plugin's case improves
    while its skill never fires: the 💡 of that case is its plugin's, in its document, report and summary alone."""
    improves = {"with": [{"text": "Hello from the plugin, friend."}], "without": [{"text": "Hi there."}]}
    roots = {}
    for name in ("alpha", "beta"):
        suite = Suite(pytester, pytester.path / name, name)
        suite.case(f"{name}-improves", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=improves)
        roots[name] = suite.root
    result = pytester.runpytest_subprocess(".", "-p", "no:cacheprovider", "--trust-plugin", "--scripted")
    assert result.ret == 0, result.stdout.str()
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        [document] = (roots[name] / "evals" / "results").glob("*/aggregate-result.json")
        notices = json.loads(document.read_text())["notices"]
        assert any(n.startswith(f"💡 {name}-improves: the skill never fired") for n in notices), notices
        assert not any(other in n for n in notices), notices
        page = (document.parent / "report.html").read_text()
        assert f"{name}-improves: the skill never fired" in page and f"{other}-improves" not in page
    out = result.stdout.str()
    # each hint under its own plugin's heading, none above them all as the session's
    alpha, beta = out.index("plugin eval · alpha"), out.index("plugin eval · beta")
    first, second = (alpha, beta) if alpha < beta else (beta, alpha)
    assert "notices (all 2 suites)" not in out
    assert out.count("💡 alpha-improves") == out.count("💡 beta-improves") == 1
    assert "💡 alpha-improves" in out[alpha:] and "💡 beta-improves" in out[beta:]
    assert ("💡 alpha-improves" in out[first:second]) == (first == alpha)  # the first's alone under the first
