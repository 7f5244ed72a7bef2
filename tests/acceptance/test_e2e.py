"""End to end: `pytest evals/` through the real Claude Code binary and the scripted endpoint."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, normalized, tool_results

from pytest_plugin_eval.core.prices import resolve_model


def test_two_arm_case_reports_delta_and_passes(suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("-v")
    assert run.rc == 0, run.out
    case = run.case("greets")
    # what the runs spent: tests/acceptance/test_efficiency_e2e.py checks it
    aggregates = dict(case["aggregates"])
    assert aggregates.pop("efficiency")["turns"]["medians"] == {"with": 3, "without": 1}
    assert aggregates == {
        "score": 1.0,
        "passRate": 1.0,
        "scoreWithout": 0.0,
        "passRateWithout": 0.0,
        "delta": 1.0,
        "stdevWith": 0.0,
        "stdevWithout": 0.0,
        # Two passes against two failures could be chance (stats.delta_interval): the interval spans 0.
        "deltaCI": pytest.approx([-0.10011395954441371, 1.0]),
        "deltaSignificant": False,
        "passAtK": {"1": 1.0, "2": 1.0},
        "passHatK": {"1": 1.0, "2": 1.0},
    }
    assert [len(case["arms"]["with"]), len(case["arms"]["without"])] == [2, 2]
    first = case["arms"]["with"][0]
    skill = next(g for g in first["graders"] if g["name"] == "skill-fired")
    assert (skill["withOnly"], skill["scored"], skill["explanation"]) == (
        True,
        False,
        "Skill called 1x (expected 1..∞)",
    )
    # indicators are not evaluated without the plugin
    assert [g["name"] for g in case["arms"]["without"][0]["graders"]] == ["greeting"]
    assert Path(first["tracePath"]).read_text().startswith('{"type":"system","subtype":"init"')
    [plugin] = run.doc["suite"]["plugins"]
    assert plugin == {
        "name": "greeter",
        "version": "1.2.3",
        "path": str(suite.root),
        "skillDescriptions": {"greeter:greet": "Greets the user warmly. Use when the user says hello."},
        "contentHash": plugin["contentHash"],
    }
    assert run.doc["suite"]["ablation"] == "with-without"
    assert run.doc["claudeVersion"][0].isdigit()
    assert run.doc["aggregates"]["meanDelta"] == 1.0
    assert "greets[with-plugin-1] PASSED" in run.out and "greets[no-plugin-2] PASSED" in run.out
    assert "greets  1.00  0.00  +1.00  [-0.10, +1.00] n.s.  4" in run.out
    assert "model = the scripted endpoint" in run.out
    results = list((suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    assert len(results) == 1 and json.loads(results[0].read_text())["cases"] == run.doc["cases"]


def test_case_below_threshold_fails_the_session_until_the_threshold_allows_it(suite):
    script = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
    suite.case("half", frontmatter={"runs": 2}, graders={"greeting": GREETING_GRADERS["greeting"]}, script=script)
    low = suite.run()
    assert low.rc == 1
    assert low.case("half")["aggregates"]["score"] == 0.5
    # One story: the case is the failed test, under its own name, with the failing grader first; its runs pass.
    assert "FAILED evals/half/prompt.md::half - greeting: " in low.out
    assert "1 failed, 4 passed" in low.out
    passing = suite.run("--threshold", "0.5")
    assert passing.rc == 0 and "failed" not in passing.out.splitlines()[-1] and "5 passed" in passing.out


def test_a_case_that_does_not_load_is_listed_and_the_others_still_run(suite):
    suite.case(
        "fine",
        graders={"greeting": GREETING_GRADERS["greeting"]},
        frontmatter={"runs": 1},
        script={"all": ["Hello from the plugin."]},
    )
    suite.case(
        "broken",
        graders={
            "bad": """
        ---
        type: regex
        pattern: (?i)hello
        ---
    """
        },
        frontmatter={"runs": 1},
    )
    run = suite.run("--threshold", "0")
    assert run.rc == 1
    assert [c["name"] for c in run.doc["cases"]] == ["fine"]
    [error] = run.doc["loadErrors"]
    assert error["case"] == "broken" and error["dir"] == "evals/broken"
    assert error["problems"][0]["file"] == "evals/broken/graders/bad.md"
    assert error["problems"][0]["key"] == "pattern"
    assert "inline flags" in error["message"]
    assert "Couldn't load 1 file of the suite" in run.out


def test_no_cases_is_exit_1(suite):
    run = suite.run()
    assert run.rc == 1
    assert run.doc["cases"] == [] and run.doc["aggregates"]["casesTotal"] == 0
    assert not (suite.root / "evals" / "results").exists()


def test_untrusted_plugin_without_a_terminal_stops_before_any_run(suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run(trust=False)
    assert run.rc == 1
    assert "not a trusted plugin directory" in run.err + run.out and "--trust-plugin" in run.err + run.out
    assert run.doc is None and not (suite.root / "evals" / "results").exists()


def test_an_untrusted_suites_conftest_is_never_imported(suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    canary = suite.root / "conftest-ran"
    for where in (suite.root / "evals", suite.root):
        (where / "conftest.py").write_text(f"open({str(canary)!r}, 'a').write('{where.name}\\n')\n")
    run = suite.run(trust=False)
    assert run.rc == 1 and "not a trusted plugin directory" in run.err + run.out
    assert not canary.exists()  # refused before pytest imported anything of the suite
    trusted = suite.run()
    assert trusted.rc == 0 and canary.read_text().splitlines() == [suite.root.name, "evals"]


def test_bad_option_values_exit_1_with_a_clear_message(suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    for args, message in (
        (["--threshold", "2"], "--threshold must be between 0 and 1"),
        (["--runs", "0"], "--runs must be a whole number above 0"),
        (["--ablation", "sometimes"], '--ablation must be "none" or "with-without"'),
        (["--allow-tools", "Monitor"], "--allow-tools: refused entry"),
    ):
        run = suite.run(*args)
        assert run.rc == 1, args
        assert message in run.err + run.out
    bad_json = suite.pytester.runpytest_subprocess("evals", "--trust-plugin", "--json", "out.txt")
    assert bad_json.ret == 1
    assert "--json output path must end in .json" in bad_json.stderr.str() + bad_json.stdout.str()


def test_k_selects_one_arm_and_a_node_id_selects_one_run(suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    without = suite.run("-k", "no-plugin", "--threshold", "0")
    assert list(without.case("greets")["arms"]) == ["with", "without"]
    assert without.case("greets")["arms"]["with"] == [] and len(without.case("greets")["arms"]["without"]) == 2
    one = suite.run(path="evals/greets/prompt.md::greets[with-plugin-2]")
    assert one.rc == 0
    assert len(one.case("greets")["arms"]["with"]) == 1 and "without" not in one.case("greets")["arms"]


def test_ablation_none_runs_one_arm_and_scores_indicators(suite):
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("--ablation", "none")
    case = run.case("greets")
    assert list(case["arms"]) == ["with"] and "delta" not in case["aggregates"]
    assert all(g["scored"] and not g["withOnly"] for g in case["arms"]["with"][0]["graders"])
    assert "SCORE ±SD   PASS% RUNS" in run.out


def test_parallel_runs_give_the_same_results_as_serial(suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    suite.case(
        "half",
        frontmatter={"runs": 2},
        graders={"greeting": GREETING_GRADERS["greeting"]},
        script={"with": {2: ["Hello from the plugin."], "default": ["No."]}, "without": ["No."]},
    )
    serial = suite.run("--threshold", "0")
    parallel = suite.run("--threshold", "0", "-n", "2")
    assert serial.rc == parallel.rc == 0
    assert "2 workers" in parallel.out
    assert normalized(parallel.doc) == normalized(serial.doc)
    assert suite.run("--threshold", "0", "-j", "2").doc["suite"]["concurrency"] == 2


def test_a_timeout_is_recorded_and_the_run_graded_on_what_it_produced(suite):
    # The agent is still working at the limit (a model that answers, slowly): the plugin's timeout, not an outage.
    script = {"all": [{"tool": "Glob", "input": {"pattern": "*.md"}, "delay": 1, "repeat": 20}, {"text": "late"}]}
    graders = {
        "globbed": """
        ---
        type: tool_used
        tool: Glob
        ---
    """
    }
    suite.case("slow", frontmatter={"runs": 1, "timeout_seconds": 4}, graders=graders, script=script)
    run = suite.run("--ablation", "none")
    [only] = run.case("slow")["arms"]["with"]
    assert only["error"] == "timed out after 4s" and only["errorKind"] == "timeout"
    assert only["score"] == 1.0
    assert run.rc == 0


def test_max_turns_is_an_error_but_the_run_is_graded(suite):
    script = {
        "all": [
            {"tool": "Glob", "input": {"pattern": "*"}},
            {"tool": "Glob", "input": {"pattern": "*"}},
            {"text": "never"},
        ]
    }
    graders = {
        "globbed": """
        ---
        type: tool_used
        tool: Glob
        ---
    """
    }
    suite.case("loops", frontmatter={"runs": 1, "max_turns": 1}, graders=graders, script=script)
    run = suite.run("--ablation", "none")
    [only] = run.case("loops")["arms"]["with"]
    assert only["errorKind"] == "max_turns" and "Reached maximum number of turns (1)" in only["error"]
    assert only["score"] == 1.0 and run.rc == 0


def test_api_errors_are_infrastructure_not_regressions(suite, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    suite.case(
        "throttled",
        frontmatter={"runs": 1},
        graders={"greeting": GREETING_GRADERS["greeting"]},
        script={"all": [{"error": {"status": 529, "message": "overloaded"}, "repeat": 5}]},
    )
    run = suite.run("--ablation", "none")
    [only] = run.case("throttled")["arms"]["with"]
    assert only["errorKind"] == "api" and only["score"] is None and only["graders"] == []
    assert run.doc["partial"] is True and run.doc["partialReason"] == "api_error"
    assert run.rc == 2


def test_judge_votes_stop_when_two_agree_and_an_outage_is_not_a_failure(suite):
    rubric = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case(
        "judged",
        frontmatter={"runs": 1},
        graders={"agree": rubric, "split": rubric, "down": rubric},
        script={
            "all": ["Hello!"],
            "judge": {
                "agree": ["PASS"],
                "split": ["PASS", "FAIL", "FAIL"],
                "down": [{"error": {"status": 500, "retry_after": 0}}],
            },
        },
    )
    run = suite.run("--ablation", "none")
    graders = {g["name"]: g for g in run.case("judged")["arms"]["with"][0]["graders"]}
    assert graders["agree"]["judgeVotes"] == [True, True] and graders["agree"]["passed"]
    split = graders["split"]["judgeVotes"]  # the first two votes are cast together: either may come first
    assert sorted(split[:2]) == [False, True] and split[2] is False and not graders["split"]["passed"]
    assert graders["agree"]["evidence"] == "Hello!"
    assert graders["agree"]["judgeModel"] == "claude-haiku-5-5"
    down = graders["down"]
    assert down["errored"] is True and down["scored"] is False and "judge unavailable" in down["explanation"]
    assert run.case("judged")["arms"]["with"][0]["score"] == 0.5
    assert run.doc["partialReason"] == "judge_error" and run.rc == 2


def test_without_arm_runs_are_measurements(suite):
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("--threshold", "0", "-v")
    assert "greets[no-plugin-1] PASSED" in run.out
    assert run.case("greets")["arms"]["without"][0]["score"] == 0.0


def test_lf_reruns_failed_runs_and_reuses_the_others(suite):
    script = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
    suite.case("half", frontmatter={"runs": 2}, graders={"greeting": GREETING_GRADERS["greeting"]}, script=script)
    suite.case(
        "good",
        frontmatter={"runs": 1},
        graders={"greeting": GREETING_GRADERS["greeting"]},
        script={"all": ["Hello from the plugin."]},
    )
    first = suite.pytester.runpytest_subprocess("evals", "--trust-plugin", "--scripted", "--json", "first.json")
    assert first.ret == 1
    # the failing run now passes: fix the script, re-run only what failed
    (suite.root / "evals" / "half" / "scripted.yaml").write_text(
        "with: ['Hello from the plugin.']\nwithout: ['Nope.']\n"
    )
    second = suite.pytester.runpytest_subprocess(
        "evals", "--trust-plugin", "--scripted", "--lf", "--json", "second.json"
    )
    # the run that failed, and the case's verdict over all its runs
    assert "2 passed" in second.stdout.str() and second.ret == 0
    doc = json.loads((suite.root / "second.json").read_text())
    half = next(c for c in doc["cases"] if c["name"] == "half")
    assert [r["index"] for r in half["arms"]["with"]] == [1, 2]
    assert [r.get("reused", False) for r in half["arms"]["with"]] == [True, False]
    assert half["aggregates"]["score"] == 1.0
    assert [c["name"] for c in doc["cases"]] == ["good", "half"]
    assert all(r.get("reused") for r in next(c for c in doc["cases"] if c["name"] == "good")["arms"]["with"])
    assert any("reused" in n for n in doc["notices"])


def test_lf_after_a_grader_was_fixed_measures_both_arms_again(suite):
    script = {"with": ["Hello from the plugin."], "without": ["Nope."]}
    strict = "---\ntype: regex\npattern: friend\n---\n"
    folder = suite.case("fixed", frontmatter={"runs": 2}, graders={"greeting": strict}, script=script)
    first = suite.pytester.runpytest_subprocess("evals", "--trust-plugin", "--scripted", "--json", "first.json")
    assert first.ret == 1
    (folder / "graders" / "greeting.md").write_text(GREETING_GRADERS["greeting"].replace("        ", "").lstrip())
    second = suite.pytester.runpytest_subprocess(
        "evals", "--trust-plugin", "--scripted", "--lf", "--json", "second.json"
    )
    assert second.ret == 0, second.stdout.str()
    case = json.loads((suite.root / "second.json").read_text())["cases"][0]
    # The case changed, so none of its old runs stand: both arms ran again, and W/OUT and Δ are there.
    assert [len(case["arms"][arm]) for arm in ("with", "without")] == [2, 2]
    assert not any(r.get("reused") for runs in case["arms"].values() for r in runs)
    assert case["aggregates"]["scoreWithout"] == 0.0 and case["aggregates"]["delta"] == 1.0


def test_vote_sequences_garbage_replies_and_judge_costs(suite):
    rubric = "---\ntype: llm\n---\nThe reply greets the user.\n"
    baseline = "---\ntype: baseline\nbaseline_file: reference.jsonl\n---\nGreets at least as warmly.\n"
    folder = suite.case(
        "votes",
        frontmatter={"runs": 1},
        graders={"pfp": rubric, "ffp": rubric, "garbage": rubric, "not-pass": rubric, "base": baseline},
        script={
            "all": ["Hello!"],
            "judge": {
                "pfp": ["PASS", "FAIL", "PASS"],
                "ffp": ["FAIL", "FAIL", "PASS"],
                "garbage": ["I think it is fine"],
                "not-pass": ["NOT PASS"],
                "base": ["PASS"],
            },
        },
    )
    (folder / "reference.jsonl").write_text('{"type": "assistant", "text": "Hi"}\n')
    run = suite.run("--ablation", "none", "--threshold", "0", "--judge-model", "sonnet")
    [only] = run.case("votes")["arms"]["with"]
    graders = {g["name"]: g for g in only["graders"]}
    assert sorted(graders["pfp"]["judgeVotes"][:2]) == [False, True] and len(graders["pfp"]["judgeVotes"]) == 3
    assert graders["pfp"]["passed"] is True
    assert graders["ffp"]["judgeVotes"] == [False, False] and graders["ffp"]["passed"] is False  # early stop
    # a reply without PASS or FAIL is no vote: after three the grader is errored, not failed; NOT PASS is a FAIL
    assert graders["garbage"]["errored"] is True and graders["garbage"]["scored"] is False
    assert not graders["not-pass"]["passed"] and graders["not-pass"]["scored"] is True
    assert graders["base"]["passed"] and "evidence" not in graders["base"]
    assert all(g["judgeModel"] == "claude-sonnet-5-5" for g in graders.values())
    # the votes and the lost votes … priced at sonnet's list price ($2/$10 per Mtok) for 100 input + 20 output each;
    # the baseline grader's prompt holds the whole trace, long enough to be cached: a cache write ($2.50), a read ($0.10)
    calls = 3 + 2 + 3 + 2
    baseline = (100 * 2.5 + 20 * 10 + 100 * 0.1 + 20 * 10) / 1e6
    assert only["judgeCostUsd"] == pytest.approx(calls * (100 * 2 + 20 * 10) / 1e6 + baseline)
    assert only["costUsd"] == pytest.approx(only["judgeCostUsd"] + 0.0008)
    assert run.doc["suite"]["judgeModel"] == "sonnet" and run.doc["suite"]["judgeModelResolved"] == "claude-sonnet-5-5"


def test_results_and_mocks_folders_are_never_collected(suite):
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    for folder in ("results/old/stale-case", "mocks/tracker/not-a-case", "node_modules/pkg/case"):
        path = suite.root / "evals" / folder
        path.mkdir(parents=True)
        (path / "prompt.md").write_text("Not a case.\n")
        (path / "graders").mkdir()
    run = suite.run("--ablation", "none", "--collect-only", "-q", json_out=False)
    assert "evals/greets/prompt.md::greets[with-plugin-1]" in run.out
    assert "stale-case" not in run.out and "not-a-case" not in run.out and "pkg" not in run.out


def test_the_session_header_names_the_plugin_the_eval_dir_the_ablation_and_the_judge(suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("--collect-only", "--judge-model", "sonnet", json_out=False)
    evals = suite.root / "evals"
    assert (
        f"plugin-eval: greeter 1.2.3 ({suite.root}) · cases in {evals} · ablation with-without · "
        f"judge {resolve_model('sonnet')}"
    ) in run.out
    assert "plugin-eval: model = the scripted endpoint" in run.out
    plain = suite.run("--collect-only", "--ablation", "none", scripted=False, json_out=False)
    assert f"· cases in {evals} · ablation none · judge {resolve_model('haiku')}" in plain.out
    assert "scripted endpoint" not in plain.out


def test_a_folder_without_a_manifest_is_the_plugin_and_runs_both_arms(suite):
    # Only skills/greet/SKILL.md and evals/: Claude Code loads the folder as a plugin named after it.
    (suite.root / ".claude-plugin" / "plugin.json").unlink()
    (suite.root / ".claude-plugin").rmdir()
    (suite.root / "stray").mkdir()
    (suite.root / "stray" / "SKILL.md").write_text("---\nname: stray\ndescription: d\n---\nx\n")
    name = suite.root.name
    script = {
        **GREETING_SCRIPT,
        "with": [{"tool": "Skill", "input": {"skill": f"{name}:greet"}}, "Hello from the plugin."],
    }
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    run = suite.run()
    assert run.rc == 0, run.out
    assert run.doc["suite"]["ablation"] == "with-without"
    assert [(p["name"], p["path"]) for p in run.doc["suite"]["plugins"]] == [(name, str(suite.root))]
    case = run.case("greets")
    assert sorted(case["arms"]) == ["with", "without"] and case.get("singleArmReason") is None
    [with_run] = case["arms"]["with"]
    assert {g["name"]: g["passed"] for g in with_run["graders"]} == {"skill-fired": True, "greeting": True}
    assert tool_results(with_run) == [f"Launching skill: {name}:greet"]  # the skill was loaded
    assert case["aggregates"]["delta"] == 1.0
    assert any("stray/SKILL.md is not loaded by Claude Code" in n for n in run.doc["notices"])


def test_a_bad_scripted_yaml_is_a_load_error_naming_file_and_key(suite):
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    folder = suite.case("typo", frontmatter={"runs": 1}, graders=GREETING_GRADERS)
    (folder / "scripted.yaml").write_text("with:\n  - tool: Write\n    tool_input: {file_path: x}\n")
    run = suite.run()
    assert run.rc == 1
    [error] = run.doc["loadErrors"]
    assert error["case"] == "typo"
    assert error["problems"] == [
        {
            "file": "evals/typo/scripted.yaml",
            "key": "with[0].tool_input",
            "message": "is not a key of a tool turn (expected: tool, input, delay, usage, drop, stall, trickle, pings, thinking, stop, repeat)",
        }
    ]
    assert [c["name"] for c in run.doc["cases"]] == ["greets"]
    assert "Traceback" not in run.out


def test_a_skill_claude_code_does_not_know_is_named_in_a_notice(suite):
    script = {"with": [{"tool": "Skill", "input": {"skill": "greeter:gret"}}, {"text": "Hello."}], "without": ["Hi."]}
    suite.case("typo", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    run = suite.run("--threshold", "0")
    notice = next(n for n in run.doc["notices"] if "Skill" in n)
    assert notice.startswith('typo: the agent called Skill "greeter:gret" and Claude Code answered "'), notice
    assert "check that the skill's folder" in notice


def test_a_command_whose_shell_line_fails_in_the_fresh_repository_is_not_blamed_on_its_name(suite):
    """commit-commands' commit.md runs !`git log` as it loads; a run's working directory is a git repository with no
    commit, so git fails and Claude Code fails the Skill call. The notice says the name was right, on one line."""
    (suite.root / "commands").mkdir()
    (suite.root / "commands" / "last.md").write_text(
        "---\ndescription: Show the last commit.\nallowed-tools: Bash(git log:*)\n---\nLast: !`git log --oneline -1`\n"
    )
    script = {"with": [{"tool": "Skill", "input": {"skill": "greeter:last"}}, {"text": "Hello."}], "without": ["Hi."]}
    suite.case(
        "last", frontmatter={"runs": 1, "allowed_tools": ["Skill", "Bash"]}, graders=GREETING_GRADERS, script=script
    )
    run = suite.run("--threshold", "0", "--allow-tools=Bash")
    notice = next(n for n in run.doc["notices"] if "Skill" in n)
    assert notice.startswith(
        'last: the agent called Skill "greeter:last" and Claude Code answered "Shell command failed'
    ), notice
    assert "\n" not in notice and "scaffold_script" in notice
    assert "check that the skill's folder" not in notice
    # with the default tools, Skill is offered but not pre-approved: a command with allowed-tools is refused
    suite.case("default-tools", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    run = suite.run("--threshold", "0", "--allow-tools=Bash", "--case", "default-tools")
    notice = next(n for n in run.doc["notices"] if "Skill" in n)
    assert "Permission to use Skill has been denied" in notice
    assert "list Skill in the case's allowed_tools" in notice


def test_a_case_that_improves_while_the_skill_never_fired_says_so(suite):
    """Issue 23 item 3: the with arm answers better without ever calling the skill (as a plugin's MCP tool or
    command would make it): a notice and a hint, although Δ is not flat."""
    script = {"with": [{"text": "Hello from the plugin, friend."}], "without": [{"text": "Hi there."}]}
    suite.case("improves", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    run = suite.run()
    assert run.rc == 0, run.out
    case = run.case("improves")
    assert case["aggregates"]["delta"] == 1.0
    [hint] = case["hints"]
    assert hint.startswith("the skill never fired in the with-plugin runs, yet Δ is +1.00")
    assert "came from elsewhere" in hint and "`description`" in hint
    assert any(n.startswith("💡 improves: the skill never fired") for n in run.doc["notices"]), run.doc["notices"]
    assert "the skill never fired" in run.out


def test_lf_after_a_k_session_keeps_every_case_of_the_last_full_document(suite):
    """Issue 23 item 5: a `-k` session in between does not shrink what `--lf` reports, and one count is printed."""
    greeting = {"greeting": GREETING_GRADERS["greeting"]}
    suite.case("fails", frontmatter={"runs": 1}, graders=greeting, script={"all": ["Nope."]})
    for name in ("good-one", "good-two"):
        suite.case(name, frontmatter={"runs": 1}, graders=greeting, script={"all": ["Hello from the plugin."]})
    args = ("evals", "--trust-plugin", "--scripted")
    assert suite.pytester.runpytest_subprocess(*args, "--json", "full.json").ret == 1
    assert suite.pytester.runpytest_subprocess(*args, "-k", "good-one", "--json", "some.json").ret == 0
    (suite.root / "evals" / "fails" / "scripted.yaml").write_text("all: ['Hello from the plugin.']\n")
    last = suite.pytester.runpytest_subprocess(*args, "--lf", "--json", "lf.json")
    out = last.stdout.str()
    assert last.ret == 0, out
    doc = json.loads((suite.root / "lf.json").read_text())
    assert [c["name"] for c in doc["cases"]] == ["fails", "good-one", "good-two"]
    assert next(c for c in doc["cases"] if c["name"] == "fails")["aggregates"]["score"] == 1.0
    assert "taken from the last results" not in out  # one count: the runs reused
    [reused] = [n for n in doc["notices"] if "reused" in n]
    assert reused.startswith("--lf: 5 run(s) of unchanged cases reused")  # all but the with run of "fails"


def test_the_report_shows_the_skills_each_arm_had(suite):
    """Issue 23 item 10: both arms have Claude Code's built-in skills; the report says which, beside the plugin's."""
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run()
    assert run.rc == 0, run.out
    page = next((suite.root / "evals" / "results").glob("*/report.html")).read_text()
    said = re.findall(r"plugin skills: ([^<·]*) · built-in skills \(both arms\): ([^<]*)<", page)
    assert sorted(ours.strip() for ours, _ in said) == ["greeter:greet", "none"], said
    builtin = [set(b.split(", ")) for _, b in said]
    assert builtin[0] == builtin[1] and builtin[0] - {"none"}  # the same built-in skills in both arms


def test_judge_votes_after_the_first_pay_cache_read_prices(suite):
    """The votes of one grader share their prompt, marked cacheable: a prompt long enough to be cached has its
    first vote cast alone (it writes the cache), and the second and third read it."""
    rubric = "---\ntype: llm\n---\nThe reply greets the user.\n"
    suite.case(
        "cached",
        frontmatter={"runs": 1},
        graders={"split": rubric},
        script={"all": ["Hello! " + "Welcome aboard. " * 400], "judge": {"split": ["PASS", "FAIL", "PASS"]}},
    )
    run = suite.run("--ablation", "none", "--threshold", "0", "--judge-model", "sonnet")
    [only] = run.case("cached")["arms"]["with"]
    [grader] = only["graders"]
    assert grader["judgeVotes"] == [True, False, True]  # cast one after another, in the script's order
    # sonnet: $2 input, $10 output, $2.50 cache write, $0.10 cache read per Mtok; 100 prompt + 20 output tokens
    written, read = (100 * 2.5 + 20 * 10) / 1e6, (100 * 0.1 + 20 * 10) / 1e6
    assert only["judgeCostUsd"] == pytest.approx(written + 2 * read)
