"""--against with --reuse-baseline through the real binary and the scripted endpoint: "did my edit help?" after a
session on the old version runs only the new version's agents. The old version's with-plugin runs stand for the
against arm when that version is exactly the plugin they were made on; a plugin that differs is run afresh, and
the notice says why."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, EvalRun, Suite

from pytest_plugin_eval.run.agent import find_claude


class Claude:
    """A `--claude` wrapper around the real binary that logs each agent it starts: with the plugin under test,
    with another version (a copy in the session's `versions/` folder), or without a plugin."""

    def __init__(self, folder: Path):
        self.log = folder / "agents.log"
        self.path = folder / "claude"
        self.path.write_text(
            "#!/bin/sh\n"
            f'case " $* " in *"/versions/"*) echo against >> {self.log};; '
            f'*" --plugin-dir"*) echo with >> {self.log};; *" -p "*) echo without >> {self.log};; esac\n'
            f'exec {find_claude(None)} "$@"\n'
        )
        self.path.chmod(0o755)

    def started(self) -> dict[str, int]:
        """Agents started since the last call, by arm."""
        lines = self.log.read_text().split() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return {arm: lines.count(arm) for arm in ("with", "without", "against")}


@pytest.fixture
def claude(tmp_path_factory) -> Claude:
    return Claude(tmp_path_factory.mktemp("claude"))


@pytest.fixture
def suite(pytester) -> Suite:
    """The plugin in a folder of its own: what pytest writes beside it (its output files) is not part of it."""
    return Suite(pytester, root=pytester.path / "greeter")


def session(suite: Suite, claude: Claude, out: Path, *args: str) -> EvalRun:
    """A session whose results JSON is written outside the plugin's folder (a file in it is part of the plugin)."""
    argv = ("--threshold", "0", "--claude", str(claude.path), "--json", str(out), *args)
    run = suite.run(*argv, path="greeter/evals", json_out=False)
    assert out.exists(), run.out
    return EvalRun(run.result, json.loads(out.read_text()))


def doc(run: EvalRun) -> dict:
    assert run.doc is not None
    return run.doc


def test_the_old_versions_with_runs_stand_for_the_against_arm_and_a_changed_plugin_runs_afresh(
    suite: Suite, claude: Claude, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("out")
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = outside / "old"
    shutil.copytree(suite.root, old)  # the plugin as it is now: the old version once SKILL.md is edited below
    first = session(suite, claude, outside / "first.json")
    assert first.rc == 0, first.out
    assert claude.started() == {"with": 2, "without": 2, "against": 0}
    assert all(r["conditions"]["plugin"] for r in first.case("greets")["arms"]["with"])

    skill = suite.root / "skills" / "greet" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nGreet warmly.\n")  # the edit under question
    second = session(suite, claude, outside / "second.json", "--against", str(old), "--reuse-baseline", "-v")
    assert second.rc == 0, second.out
    # only the new version's agents ran: the old version's and the baseline came from the first session
    assert claude.started() == {"with": 2, "without": 0, "against": 0}
    case = second.case("greets")
    against = case["arms"]["against"]
    assert [r["reusedFrom"]["session"] for r in against] == [doc(first)["startedAt"]] * 2
    assert [r["reusedFrom"]["index"] for r in against] == [1, 2]
    assert [r["score"] for r in against] == [r["score"] for r in first.case("greets")["arms"]["with"]]
    assert all(r["costUsd"] == r["judgeCostUsd"] for r in against)  # no agent paid for in this session
    assert case["aggregates"]["deltaAgainst"]["pairs"] == 2
    assert "greets[against-1] PASSED" in second.out and "· reused" in second.out
    assert any("--against runs reused from the with-plugin runs the session of" in n for n in doc(second)["notices"])
    assert "1.00↺" in second.out and "2 of 2 run(s) of the other version" in second.out
    report = Path(against[0]["tracePath"]).parents[3] / "report.html"
    assert "AGAINST from stored runs (--reuse-baseline)" in report.read_text()

    # the folder given to --against now differs from what the first session ran: its runs are made
    (old / "skills" / "greet" / "SKILL.md").write_text(skill.read_text() + "\nAnd wave.\n")
    third = session(suite, claude, outside / "third.json", "--against", str(old), "--reuse-baseline")
    assert third.rc == 0, third.out
    assert claude.started() == {"with": 2, "without": 0, "against": 2}
    assert not any(r.get("reusedFrom") for r in third.case("greets")["arms"]["against"])
    assert any(
        "greets: --against runs not taken from stored with-plugin runs (made on another version of the plugin)" in n
        for n in doc(third)["notices"]
    )


def test_without_reuse_baseline_the_against_arm_runs(suite: Suite, claude: Claude, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = outside / "old"
    shutil.copytree(suite.root, old)
    session(suite, claude, outside / "first.json")
    claude.started()
    again = session(suite, claude, outside / "again.json", "--against", str(old))
    assert again.rc == 0, again.out
    assert claude.started() == {"with": 1, "without": 1, "against": 1}
    assert not any(r.get("reusedFrom") for r in again.case("greets")["arms"]["against"])


def git(where: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True, capture_output=True
    )


def test_the_loop_of_the_docs_a_session_then_an_edit_then_against_head(suite: Suite, claude: Claude, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    git(suite.root, "init", "-q")
    git(suite.root, "add", ".")
    git(suite.root, "commit", "-qm", "the old version")
    session(suite, claude, outside / "first.json")  # its results folder, untracked in evals/, is left out
    claude.started()
    skill = suite.root / "skills" / "greet" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nGreet warmly.\n")
    edited = session(suite, claude, outside / "edited.json", "--against", "HEAD", "--reuse-baseline")
    assert edited.rc == 0, edited.out
    assert claude.started() == {"with": 1, "without": 0, "against": 0}
    assert all(r.get("reusedFrom") for r in edited.case("greets")["arms"]["against"])
