"""Graders as assertion helpers, custom Python graders, and grader types added through the hook."""

from __future__ import annotations

import textwrap

from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT

HELLO = "Hello from the plugin."


def test_a_python_test_runs_the_agent_and_uses_the_grader_helpers(suite):
    suite.pytester.makepyfile(
        test_agent=textwrap.dedent("""
        import pytest
        from pytest_plugin_eval import assert_file_exists, assert_llm, assert_regex, assert_tool_used, check

        SCRIPT = {"with": [{"tool": "Skill", "input": {"skill": "greeter:greet"}},
                           {"tool": "Write", "input": {"file_path": "{cwd}/hello.txt", "content": "hi"}},
                           "Hello from the plugin."],
                  "without": ["Hi."],
                  "judge": {"llm": ["PASS", "FAIL", "FAIL"]}}

        def test_with_the_plugin(eval_agent):
            run = eval_agent.run("Say hello.", plugin=".", script=SCRIPT, allowed_tools=["Skill"])
            assert run.error is None and run.cost_usd > 0
            verdict = assert_regex(run, "^Hello from the plugin")
            assert verdict.explanation == "matched ^Hello from the plugin"
            assert_tool_used(run, "Skill", input_match="greeter:greet")
            assert_file_exists(run, "hello.txt")
            assert (run.cwd / "hello.txt").read_text() == "hi"
            with pytest.raises(
                AssertionError, match='regex grader failed: pattern /Goodbye/ not found in last_message: "Hello from'
            ):
                assert_regex(run, "Goodbye")
            with pytest.raises(AssertionError, match=r"llm grader failed: judge votes: (PASS FAIL|FAIL PASS) FAIL"):
                assert_llm(run, "The reply greets the user.")

        def test_without_the_plugin(eval_agent):
            run = eval_agent.run("Say hello.", plugin=".", arm="without", script=SCRIPT)
            assert run.last_message == "Hi."
            assert not check(run, "tool_used", tool="Skill").passed

        def test_a_case_by_its_folder(eval_agent):
            run = eval_agent.run_case("evals/greets", index=2)
            assert_regex(run, "^Hello from the plugin")

        def test_a_failing_helper_reports_the_test_line(eval_agent):
            run = eval_agent.run("Say hello.", script={"all": ["Hi."]})
            assert_regex(run, "^Goodbye", flags="m")  # fails: the report shows this line

        def test_a_bad_definition_is_refused_like_in_markdown(eval_agent):
            from pytest_plugin_eval import SpecError
            run = eval_agent.run("x", script={"all": ["y"]})
            with pytest.raises(SpecError, match="inline flags"):
                assert_regex(run, "(?i)y")
    """)
    )
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    result = suite.pytester.runpytest_subprocess(
        "test_agent.py", "--scripted", "-p", "no:cacheprovider", "--allow-tools", "Write"
    )
    result.assert_outcomes(passed=4, failed=1)
    # The failing helper is reported at the test's line with the grader's explanation; no frame of the library.
    failure = result.stdout.str().split("test_a_failing_helper_reports_the_test_line ___")[1].split("short test")[0]
    assert 'assert_regex(run, "^Goodbye", flags="m")' in failure
    assert 'AssertionError: regex grader failed: pattern /^Goodbye/m not found in last_message: "Hi."' in failure
    assert "pytest_plugin_eval/grade" not in failure and "def expect(" not in failure


def test_a_python_grader_scores_fails_with_its_message_and_reports_its_own_errors(suite):
    folder = suite.case(
        "py", frontmatter={"runs": 1}, graders={"greeting": GREETING_GRADERS["greeting"]}, script={"all": [HELLO]}
    )
    (folder / "graders" / "short_reply.py").write_text(
        textwrap.dedent('''
        """The reply is short."""
        weight = 3

        def grade(run):
            assert len(run.last_message) < 10, f"the reply has {len(run.last_message)} characters"
    ''')
    )
    (folder / "graders" / "mentions_plugin.py").write_text(
        "def grade(run):\n    return 'plugin' in run.last_message, 'it names the plugin'\n"
    )
    (folder / "graders" / "zz_broken.py").write_text("def grade(run):\n    return 1 / 0\n")
    run = suite.run("--ablation", "none", "--threshold", "0")
    case = run.case("py")
    graders = {g["name"]: g for g in case["arms"]["with"][0]["graders"]}
    assert graders["short_reply"] == {
        "name": "short_reply",
        "passed": False,
        "weight": 3,
        "explanation": "the reply has 22 characters",
        "withOnly": False,
        "scored": True,
    }
    assert graders["mentions_plugin"]["passed"] and graders["mentions_plugin"]["explanation"] == "it names the plugin"
    assert graders["zz_broken"]["passed"] is False
    assert graders["zz_broken"]["explanation"] == "grader error: ZeroDivisionError: division by zero"
    assert case["arms"]["with"][0]["score"] == 2 / 6
    config = {g["name"]: g["config"] for g in case["graders"]}
    # The file's hash is part of its config, so --lf and compare see an edited grader as a changed one.
    assert config["short_reply"]["file"] == "graders/short_reply.py" and len(config["short_reply"]["sha256"]) == 16
    assert case["graders"][-1]["type"] == "python"
    assert "short_reply" in run.out and "the reply has 22 characters" in run.out


def test_a_python_grader_that_does_not_load_is_a_load_error(suite):
    broken = suite.case("syntax", graders={"greeting": GREETING_GRADERS["greeting"]}, script={"all": [HELLO]})
    (broken / "graders" / "bad.py").write_text("def grade(run)\n    pass\n")
    nograde = suite.case("nograde", graders={"greeting": GREETING_GRADERS["greeting"]}, script={"all": [HELLO]})
    (nograde / "graders" / "empty.py").write_text("x = 1\n")
    run = suite.run("--ablation", "none")
    errors = {e["case"]: e["problems"][0] for e in run.doc["loadErrors"]}
    assert errors["syntax"]["file"] == "evals/syntax/graders/bad.py"
    assert errors["syntax"]["message"].startswith("cannot be imported: SyntaxError")
    assert errors["nograde"]["key"] == "grade" and "def grade(run):" in errors["nograde"]["message"]
    assert run.rc == 1


def test_a_conftest_adds_a_grader_type_usable_from_markdown(suite):
    suite.pytester.makeconftest(
        textwrap.dedent("""
        from pytest_plugin_eval import GraderType, SpecError, Verdict

        class WordCount(GraderType):
            name = "word_count"
            keys = ("max",)

            def parse(self, raw, body, case_dir=None):
                if not isinstance(raw.get("max"), int):
                    raise SpecError("max", "must be a whole number of words")
                return raw["max"]

            def config_json(self, config):
                return {"max": config}

            def grade(self, config, run, ctx=None):
                words = len(run.last_message.split())
                return Verdict(words <= config, f"{words} words (at most {config})")

        def pytest_plugin_eval_grader_types(config):
            return [WordCount()]
    """)
    )
    suite.case(
        "short",
        frontmatter={"runs": 1},
        script={"all": [HELLO]},
        graders={"brief": "---\ntype: word_count\nmax: 3\n---\n", "roomy": "---\ntype: word_count\nmax: 9\n---\n"},
    )
    suite.case("bad-max", graders={"brief": "---\ntype: word_count\nmax: many\n---\n"}, script={"all": [HELLO]})
    run = suite.run("--ablation", "none", "--threshold", "0", "-n", "2")
    graders = {g["name"]: g for g in run.case("short")["arms"]["with"][0]["graders"]}
    assert graders["brief"]["passed"] is False and graders["brief"]["explanation"] == "4 words (at most 3)"
    assert graders["roomy"]["passed"] is True
    [error] = run.doc["loadErrors"]
    assert error["case"] == "bad-max" and error["problems"][0]["key"] == "max"
