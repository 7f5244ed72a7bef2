"""The first hour of a new user, end to end (the real Claude Code against the scripted endpoint): what the session
says matches what ran."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT

TYPO = "---\ntype: tool_used\ntool: Skill\ninput_match: greeters:greet\n---\n"


def test_an_indicator_that_misspells_the_skill_is_blamed_not_the_description(suite):
    """Issue 34 item 19: every with-plugin run called the skill; the indicator's input_match has a typo."""
    suite.case(
        "greets",
        frontmatter={"runs": 2},
        graders={"greeting": GREETING_GRADERS["greeting"], "skill-fired": TYPO},
        script={**GREETING_SCRIPT, "without": [{"text": "Hello from the plugin, friend."}]},
    )
    run = suite.run()
    [hint] = run.case("greets")["hints"]
    assert hint.startswith(
        "the plugin-fired indicator failed in every with-plugin run, yet every one of them called Skill "
        "(greeter:greet): its input_match 'greeters:greet' matches none of these calls"
    ), hint
    assert "sharpen" not in run.out


def plugin_eval(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    argv = [sys.executable, "-m", "pytest_plugin_eval.cli.main", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env=environment)


def test_compare_of_scripted_trigger_sessions_warns_only_where_the_scripts_ignore_the_description(suite):
    """Issue 34 item 13: answers by `description_has:` show a description change; plain answers do not."""
    by_words = [{"query": "hello there", "id": "hello", "scripted": {"description_has": "greeting"}}]
    plain = [{"query": "good morning", "id": "morning", "scripted": "fire"}]
    triggers = suite.root / "evals" / "triggers.yaml"
    triggers.write_text(yaml.safe_dump({"runs": 5, "skills": {"greet": {"should_fire": by_words}}}))
    before = suite.run()
    skill = suite.root / "skills" / "greet" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Use when the user says hello.", "Use for any greeting."))
    after = suite.run()
    assert after.doc["triggers"][0]["scriptedByDescription"] is True
    assert before.rc == 1 and after.rc == 0, (before.out, after.out)  # the description change moved the query
    s1, s2 = sorted(str(p.parent) for p in (suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    page = suite.root / "compare.html"
    shown = plugin_eval(suite.root, "compare", s1, s2, "--html", str(page))
    assert "the description of skill greeter:greet changed" in shown.stdout, shown.stdout
    assert "not comparable" not in shown.stdout and "cannot show" not in shown.stdout, shown.stdout
    assert "0/5 → 5/5" in shown.stdout, shown.stdout
    # item 14: the HTML has the per-query table the terminal has, each query by its text
    html = page.read_text()
    assert '<td title="hello">hello there</td>' in html and "0/5 → 5/5" in html
    assert '<span class="cmp-better">better</span>' in html
    report = (Path(s2) / "report.html").read_text()
    assert 'title="hello">hello there</a>' in report  # the session's report: the query's text, not its slug

    triggers.write_text(yaml.safe_dump({"runs": 5, "skills": {"greet": {"should_fire": plain}}}))
    suite.run()
    skill.write_text(skill.read_text().replace("Use for any greeting.", "Use when someone greets you."))
    suite.run()
    *_, s3, s4 = sorted(str(p.parent) for p in (suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    shown = plugin_eval(suite.root, "compare", s3, s4)
    assert "the change of description of greet cannot show in them" in shown.stdout, shown.stdout


def test_a_long_scripted_trigger_session_says_how_long_before_it_starts(suite):
    """Issue 34 item 15: 5 queries at the default 5 runs each, answered the same way run after run."""
    queries = [{"query": f"hello number {n}", "id": f"q{n}", "scripted": "fire"} for n in range(5)]
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"skills": {"greet": {"should_fire": queries}}}))
    listed = suite.run("--collect-only", json_out=False)
    assert (
        "plugin-eval: --scripted: 25 trigger runs (5 queries × 5 runs) ≈ 25 ÷ 1 at once × ~2.75 s a run ≈ 69 s; a "
        "query's scripted answer repeats run after run, so `--runs 1` checks the plumbing in 1/5 of the time"
    ) in listed.out, listed.out
    assert "trigger runs" not in suite.run("--collect-only", "--runs", "1", json_out=False).out


def test_the_progress_line_counts_trigger_runs_among_the_runs(suite):
    """Issue 34 item 21: trigger runs were counted done but not expected — `runs 179/24`."""
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    query = {"query": "hello there", "id": "hello", "scripted": "fire"}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"skills": {"greet": {"should_fire": [query]}}}))
    run = suite.run()  # not a terminal: a line per run, each with the session's status
    counts = [(int(done), int(total)) for done, total in re.findall(r"runs (\d+)/(\d+)", run.out)]
    assert counts and {total for _, total in counts} == {7}, run.out  # 2 runs of the case, 5 of the query
    assert all(done <= total for done, total in counts)
