"""History end to end: three sessions of a suite in a git repository — each records the plugin's version and
commit —, `plugin-eval history` lists them, and the last session's report draws the trend."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


def plugin_eval(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The installed `plugin-eval` script beside this Python, else the module."""
    script = Path(sys.executable).parent / "plugin-eval"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
    return subprocess.run([*argv, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_history_lists_the_sessions_and_the_report_draws_the_trend(suite):
    root = suite.root
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    # The test's own files (--json, pytester's); evals/results/ is not ignored, and is no change to the plugin.
    (root / ".gitignore").write_text("result.json\nrunpytest-*\nstdout\nstderr\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    first_commit = git(root, "rev-parse", "HEAD")

    first = suite.run()
    assert first.rc == 0, first.out
    plugin = first.doc["suite"]["plugins"][0]
    # Our own results folder, not ignored, does not make the tree dirty.
    assert (plugin["version"], plugin["gitCommit"], plugin["gitDirty"]) == ("1.2.3", first_commit, False)

    skill = root / "skills" / "greet" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nBe brief.\n")
    git(root, "commit", "-q", "-am", "second")
    second_commit = git(root, "rev-parse", "HEAD")
    second = suite.run()
    assert second.doc["suite"]["plugins"][0]["gitCommit"] == second_commit

    skill.write_text(skill.read_text() + "\nAn uncommitted change.\n")
    third = suite.run()
    assert third.doc["suite"]["plugins"][0]["gitCommit"] == second_commit
    assert third.doc["suite"]["plugins"][0]["gitDirty"] is True

    listed = plugin_eval(root, "history")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:4] == ["TIME", "(UTC)", "VERSION", "COMMIT"]
    assert [line.split()[2:5] for line in lines[1:4]] == [
        ["1.2.3", f"{second_commit[:7]}*", "scripted"],
        ["1.2.3", second_commit[:7], "scripted"],
        ["1.2.3", first_commit[:7], "scripted"],
    ]
    assert all(line.split()[5:8] == ["1", "1.00", "+1.00"] for line in lines[1:4])  # CASES, SCORE, MEAN Δ
    assert lines[1].endswith("plugin content changed") and lines[3].endswith(" 1")  # the first: nothing before

    as_json = json.loads(plugin_eval(root, "history", "evals", "--json", "--limit", "2").stdout)
    assert [s["gitCommit"] for s in as_json["sessions"]] == [second_commit, second_commit]
    assert as_json["sessions"][0]["startedAt"] == third.doc["startedAt"] and as_json["notRead"] == 1

    reports = sorted((root / "evals" / "results").glob("*/report.html"))
    assert len(reports) == 3
    last = reports[-1].read_text()
    assert 'id="trend"' in last and "<script" not in last
    assert 'aria-label="WITH and Δ of greets over 3 sessions"' in last
    titles = re.findall(r"<circle[^>]*><title>([^<]*)</title>", last)
    assert any(first_commit[:7] in t for t in titles)
    assert any(t.startswith("this session") and "with uncommitted changes" in t for t in titles)
    assert 'id="trend"' not in reports[0].read_text()  # the first session had nothing to compare with
