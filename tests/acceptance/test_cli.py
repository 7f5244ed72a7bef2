"""`plugin-eval` (the reference tool's command line), `--regrade`, and the pytest-html report under -n 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, normalized

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]


def plugin_eval(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PLUGIN_EVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})}
    )


def greeting_suite(suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    suite.case(
        "half",
        frontmatter={"runs": 2},
        graders={"greeting": GREETING_GRADERS["greeting"]},
        script={"with": {1: ["Hello from the plugin."], "default": ["No."]}, "without": ["No."]},
    )


def test_the_reference_command_line_gives_the_same_results_as_pytest(suite):
    greeting_suite(suite)
    root = suite.root
    ours = plugin_eval(
        root,
        ".",
        "--trust-plugin",
        "--scripted",
        "--json",
        "cli.json",
        "--threshold",
        "0.5",
        "--no-publish",
        "-j",
        "2",
        "--max-cost-usd",
        "20",
    )
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.strip() == "Wrote cli.json"  # stdout carries nothing else with --json
    via_pytest = suite.run("--threshold", "0.5", "-n", "2", "--max-cost-usd", "20")
    assert normalized(json.loads((root / "cli.json").read_text())) == normalized(via_pytest.doc)


def test_json_without_a_path_prints_only_the_document(suite):
    greeting_suite(suite)
    out = plugin_eval(suite.root, "--trust-plugin", "--scripted", "--case", "greets", "--json", "--runs", "1")
    doc = json.loads(out.stdout)
    assert [c["name"] for c in doc["cases"]] == ["greets"] and out.returncode == 0


def test_list_options_do_not_swallow_the_target(suite):
    greeting_suite(suite)
    out = plugin_eval(
        suite.root.parent,
        "--allow-tools",
        "Write",
        "Edit",
        suite.root.name,
        "--trust-plugin",
        "--scripted",
        "--tag",
        "nothing",
        "--json",
        "x.json",
    )
    assert out.returncode == 1  # no case has the tag "nothing": the target was not read as a tag or a tool
    assert (
        "No eval cases" in out.stderr
        or "No eval cases" in out.stdout
        or json.loads((suite.root.parent / "x.json").read_text())["cases"] == []
    )


def test_command_line_errors_exit_1(suite):
    greeting_suite(suite)
    for args, message in (
        (["--bogus-flag"], "unknown option '--bogus-flag'"),
        (["--json", "out.txt"], "--json output path must end in .json"),
        (["/nonexistent"], "no such file or directory"),
        (["--threshold", "2"], "--threshold must be between 0 and 1"),
        (["--case"], "argument missing"),
    ):
        out = plugin_eval(suite.root, *args)
        assert out.returncode == 1, args
        assert message in out.stderr + out.stdout, args


def test_init_writes_a_case_that_loads_and_runs_as_written(suite):
    out = plugin_eval(suite.root, "init", "--bare", "my-case")
    assert out.returncode == 0 and "Created evals/my-case/prompt.md" in out.stdout
    run = plugin_eval(suite.root, "--trust-plugin", "--scripted", "--json", "r.json")
    doc = json.loads((suite.root / "r.json").read_text())
    assert run.returncode == 0 and doc["loadErrors"] == [] and doc["cases"][0]["aggregates"]["score"] == 1.0
    again = plugin_eval(suite.root, "init", "--bare", "my-case")
    assert again.returncode == 1 and "already exists" in again.stderr
    for name in ("mocks", "results"):
        reserved = plugin_eval(suite.root, "init", "--bare", name)
        assert reserved.returncode == 1 and "reserved" in reserved.stderr
    for name in ("../x", "a b", ".hidden", "a/b"):
        bad = plugin_eval(suite.root, "init", "--bare", name)
        assert bad.returncode == 1 and "won't work" in bad.stderr


def test_an_installed_plugin_by_name(suite, tmp_path):
    greeting_suite(suite)
    config = tmp_path / "claude-config"
    (config / "plugins").mkdir(parents=True)
    (config / "plugins" / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": {"greeter@local": [{"scope": "user", "installPath": str(suite.root)}]}})
    )
    work = tmp_path / "work"
    work.mkdir()
    out = plugin_eval(
        work,
        "greeter@local",
        "--trust-plugin",
        "--scripted",
        "--case",
        "greets",
        "--runs",
        "1",
        env={"CLAUDE_CONFIG_DIR": str(config)},
    )
    assert out.returncode == 0, out.stderr
    assert list((work / "evals" / "results").glob("*/aggregate-result.json"))  # not in the installed plugin


def test_regrade_reuses_the_stored_runs_with_todays_graders(suite, tmp_path):
    greeting_suite(suite)
    first = suite.run("--threshold", "0")
    stored = next((suite.root / "evals" / "results").glob("*/aggregate-result.json")).parent
    # tighten one grader; add a new one
    (suite.root / "evals" / "greets" / "graders" / "greeting.md").write_text(
        "---\ntype: regex\npattern: friend$\n---\n"
    )
    (suite.root / "evals" / "greets" / "graders" / "polite.md").write_text("---\ntype: regex\npattern: Hello\n---\n")
    marker = tmp_path / "agent-was-started"
    no_agent = tmp_path / "claude"
    no_agent.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    no_agent.chmod(0o755)
    again = suite.run("--threshold", "0", "--regrade", str(stored), "--claude", str(no_agent))
    assert not marker.exists()  # zero agent runs
    assert again.doc["suite"]["regradedFrom"] == str(stored)
    half_before, half_after = first.case("half"), again.case("half")
    assert normalized({"cases": [half_after], "suite": {"concurrency": 1}}) == normalized(
        {"cases": [half_before], "suite": {"concurrency": 1}}
    )  # unchanged graders: the same verdicts
    greets = again.case("greets")["arms"]["with"][0]
    verdicts = {g["name"]: (g["passed"], g["explanation"]) for g in greets["graders"]}
    assert verdicts["greeting"] == (
        False,
        'pattern /friend$/ not found in last_message: "Hello from the plugin, friend."',
    )
    assert verdicts["polite"] == (True, "matched Hello")
    assert len(again.case("greets")["arms"]["with"]) == 2 and len(again.case("greets")["arms"]["without"]) == 2


def test_the_pytest_html_report_under_two_workers(suite):
    greeting_suite(suite)
    run = suite.run("--threshold", "0", "-n", "2", "--html", "report.html", "--self-contained-html")
    page = (suite.root / "report.html").read_text()
    assert run.rc == 0
    # the suite table in the summary, and each run's graders and transcript in its row: in the page itself, in
    # elements of our class (pytest-html keeps the rows' parts in its data until its script lays them out)
    assert "greets" in page and "half" in page and "Score with the plugin" in page
    assert "skill: greeter:greet" in page and "Hello from the plugin, friend." in page
    assert "iframe" not in page
    assert page.count('<div class="plugin-eval">') == 1 and '<table id="summary">' in page
    own = next((suite.root / "evals" / "results").glob("*/report.html")).read_text()
    counts = re.findall(r'<span class="[a-z]+">improved (?:\(n\.s\.\) )?(\d+)</span>', own)
    assert sum(map(int, counts)) == 2, counts  # significant or not (n.s.), both cases improved


def test_a_reader_that_leaves_early_gets_no_traceback(suite):
    greeting_suite(suite)
    child = subprocess.Popen([*PLUGIN_EVAL, "check"], cwd=suite.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # `plugin-eval check | head -0`
    _, err = child.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_a_plugin_eval_session_names_no_config_file_and_ends_without_a_warning(suite):
    """Issue 23 item 9: the header said `configfile: ../../../dev/null` (the plugin folder's own pytest config is
    kept out with -c /dev/null), and, installed from a wheel, the session ended on PytestAssertRewriteWarning."""
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    ran = plugin_eval(suite.root, ".", "--trust-plugin", "--scripted")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    said = ran.stdout + ran.stderr
    assert f"rootdir: {suite.root}" in said and "configfile" not in said and "dev/null" not in said, said
    assert "warnings summary" not in said and not re.search(r"\b\d+ warnings?\b", said), said


def test_the_package_asks_pytest_not_to_rewrite_it():
    """From a wheel, pytest marks the plugin's package for assert rewriting after `plugin-eval` has imported it;
    PYTEST_DONT_REWRITE in its docstring is pytest's own way to say it has nothing to rewrite (no warning)."""
    from _pytest.assertion.rewrite import AssertionRewriter

    import pytest_plugin_eval

    assert AssertionRewriter.is_rewrite_disabled(pytest_plugin_eval.__doc__ or "")


def test_init_names_a_skill_as_claude_code_does_by_its_folder(suite):
    """A plugin's skill is `plugin:<folder>` to Claude Code whatever its frontmatter's `name:` says (the trace's
    init event lists `greeter:greet-folder`); the template's script and indicator must call it that."""
    folder = suite.root / "skills" / "greet"
    folder.rename(suite.root / "skills" / "greet-folder")
    assert plugin_eval(suite.root, "init", "--bare", "my-case").returncode == 0
    assert "greeter:greet-folder" in (suite.root / "evals" / "my-case" / "scripted.yaml").read_text()
    plugin_eval(suite.root, "--trust-plugin", "--scripted", "--json", "r.json")
    doc = json.loads((suite.root / "r.json").read_text())
    first, *_ = doc["cases"][0]["arms"]["with"]
    assert {g["name"]: g["passed"] for g in first["graders"]}["skill-fired"] is True
    assert not any("Unknown skill" in n for n in doc.get("notices", [])), doc.get("notices")
    trace = Path(first["tracePath"])
    init = next(json.loads(line) for line in trace.read_text().splitlines() if '"subtype":"init"' in line)
    assert "greeter:greet-folder" in init["skills"] and "greeter:greet" not in init["skills"]
