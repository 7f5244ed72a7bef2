"""The action's scripts (action/*.sh), run as the action runs them, with the variables GitHub Actions sets:
the guard (a fork's pull request refused before anything is spent, one credential, the path filter), the run
(the command line it builds and the status it keeps), and the report (the comment through plugin-eval pr-comment
against a local fake of GitHub's API, the fail-on-worse gate, the next baseline)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.documents import case_result, suite_result
from helpers.fake_github import environment, fake_github

from pytest_plugin_eval.results.store import RESULTS_FILE, document_text

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_EVAL = str(Path(sys.executable).with_name("plugin-eval"))


def script(name: str, env: dict[str, str], tmp_path: Path, cwd: Path | None = None) -> tuple[int, str, dict]:
    """Run action/NAME with `env` (and a fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY): its status, its output,
    and the outputs it wrote (with "summary": the step summary)."""
    output, summary = tmp_path / "output.txt", tmp_path / "summary.md"
    output.write_text(""), summary.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    done = subprocess.run(
        ["bash", str(ROOT / "action" / name)],
        env=base | {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)} | env,
        cwd=cwd or tmp_path,
        capture_output=True,
        text=True,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done.returncode, done.stdout + done.stderr, outputs | {"summary": summary.read_text()}


# ---- guard.sh ------------------------------------------------------------------------------------------------

PR = {"EVENT_NAME": "pull_request", "REPOSITORY": "octo/plugins", "HEAD_REPOSITORY": "octo/plugins"}


def test_a_forks_pull_request_is_refused_before_anything_runs(tmp_path):
    status, said, outputs = script(
        "guard.sh", PR | {"HEAD_REPOSITORY": "stranger/plugins", "HAS_API_KEY": "true"}, tmp_path
    )
    assert status == 1 and "run" not in outputs
    assert "::error title=plugin-eval refused a fork's pull request::" in said
    assert "comes from a fork (stranger/plugins)" in said and "Nothing was run or spent" in said
    assert "pull_request_target" in said and "allow-fork: true" in said
    assert "### plugin-eval: not run" in outputs["summary"]


def test_a_fork_runs_when_the_maintainer_allows_it(tmp_path):
    env = PR | {"HEAD_REPOSITORY": "stranger/plugins", "HAS_API_KEY": "true", "ALLOW_FORK": "true"}
    assert script("guard.sh", env, tmp_path)[2]["run"] == "true"


@pytest.mark.parametrize(
    ("credentials", "ok"),
    [
        ({"HAS_API_KEY": "true"}, True),
        ({"HAS_OAUTH_TOKEN": "true"}, True),
        ({"ARGS": "--scripted --allow-tools Write"}, True),
        ({"HAS_API_KEY": "true", "HAS_OAUTH_TOKEN": "true"}, True),  # the token for runs, the key for the judge
        ({}, False),
    ],
)
def test_a_credential(tmp_path, credentials, ok):
    status, said, outputs = script("guard.sh", {"EVENT_NAME": "push"} | credentials, tmp_path)
    assert (status == 0) == ok and (outputs.get("run") == "true") == ok
    if not ok:
        assert "anthropic-api-key" in said and "claude-code-oauth-token" in said


def repository(tmp_path: Path, changed: str) -> tuple[Path, str]:
    """A git repository with a base commit and a head commit that changes `changed`: (its folder, the base)."""
    repo = tmp_path / "repo"
    (repo / "my-plugin" / "evals").mkdir(parents=True)
    (repo / "docs").mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    git("init", "-q")
    (repo / "my-plugin" / "SKILL.md").write_text("one")
    (repo / "docs" / "readme.md").write_text("one")
    git("add", "-A")
    git("commit", "-qm", "base")
    base = git("rev-parse", "HEAD")
    (repo / changed).write_text("two")
    git("commit", "-qam", "head")
    return repo, base


@pytest.mark.parametrize(
    ("changed", "paths", "runs"),
    [
        ("docs/readme.md", "", False),  # the default filter: the plugin folder
        ("my-plugin/SKILL.md", "", True),
        ("docs/readme.md", "docs/*.md scripts/*", True),
        ("my-plugin/SKILL.md", "docs/*", False),
        ("docs/readme.md", "*", True),
    ],
)
def test_the_path_filter(tmp_path, changed, paths, runs):
    repo, base = repository(tmp_path, changed)
    env = PR | {"HAS_API_KEY": "true", "PLUGIN": "./my-plugin/", "PATHS": paths, "BASE_SHA": base}
    status, said, outputs = script("guard.sh", env, tmp_path, cwd=repo)
    assert status == 0 and outputs["run"] == ("true" if runs else "false")
    if not runs:
        assert "::notice title=plugin-eval skipped::no file the suite depends on changed" in said
        assert "the eval was skipped and nothing was spent" in outputs["summary"]


def test_a_push_is_never_skipped_by_the_path_filter(tmp_path):
    repo, base = repository(tmp_path, "docs/readme.md")
    env = {"EVENT_NAME": "push", "HAS_API_KEY": "true", "PLUGIN": "my-plugin", "BASE_SHA": base}
    assert script("guard.sh", env, tmp_path, cwd=repo)[2]["run"] == "true"


def test_when_the_changes_cannot_be_listed_it_runs(tmp_path):
    env = PR | {"HAS_API_KEY": "true", "PLUGIN": "my-plugin", "BASE_SHA": "0" * 40}
    status, said, outputs = script("guard.sh", env, tmp_path)  # not a git repository
    assert outputs["run"] == "true" and "could not list the pull request's changes" in said


# ---- run.sh --------------------------------------------------------------------------------------------------


def recorder(tmp_path: Path, status: int = 0) -> Path:
    """A stand-in for plugin-eval that writes its arguments, one a line, and exits with `status`."""
    fake = tmp_path / "plugin-eval"
    fake.write_text(f'#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "{tmp_path}/args"\nexit {status}\n')
    fake.chmod(0o755)
    return fake


def test_run_builds_the_command_line_and_keeps_the_status(tmp_path):
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    (baseline / RESULTS_FILE).write_text("{}")
    env = {
        "PLUGIN_EVAL": str(recorder(tmp_path, status=2)),
        "PLUGIN": "my-plugin",
        "OUT": str(tmp_path / "out"),
        "THRESHOLD": "0.8",
        "MAX_COST_USD": "5",
        "MODELS": "claude-sonnet-4-6",
        "BASELINE": str(baseline),
        "ARGS": "--tag smoke -- -k 'greet and not slow'",
    }
    status, _, outputs = script("run.sh", env, tmp_path)
    assert status == 0 and outputs["status"] == "2"  # the step passes; the action's last step exits 2
    assert outputs["results"] == str(tmp_path / "out") and outputs["artifact"] == "plugin-eval"
    args = (tmp_path / "args").read_text().splitlines()
    assert args == [
        "my-plugin",
        "--trust-plugin",
        "--output-dir",
        str(tmp_path / "out"),
        "--threshold",
        "0.8",
        "--max-cost-usd",
        "5",
        "--model",
        "claude-sonnet-4-6",
        "--compare-to",
        str(baseline),
        "--tag",
        "smoke",
        "--",
        "-k",
        "greet and not slow",
    ]


def test_a_shard_is_not_compared_and_names_its_artifact(tmp_path):
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    (baseline / RESULTS_FILE).write_text("{}")
    env = {"PLUGIN_EVAL": str(recorder(tmp_path)), "OUT": "out", "SHARD": "2/4", "BASELINE": str(baseline)}
    _, _, outputs = script("run.sh", env, tmp_path)
    args = (tmp_path / "args").read_text().splitlines()
    assert args[-2:] == ["--shard", "2/4"] and "--compare-to" not in args
    assert outputs["artifact"] == "plugin-eval-shard-2-of-4"


def test_merge_combines_the_downloaded_shards(tmp_path):
    shards = tmp_path / "shards"
    for name in ("plugin-eval-shard-1-of-2", "plugin-eval-shard-2-of-2"):
        (shards / name).mkdir(parents=True)
    env = {"PLUGIN_EVAL": str(recorder(tmp_path, 1)), "OUT": "merged", "MERGE": "true", "SHARDS": str(shards)}
    _, _, outputs = script("run.sh", env, tmp_path)
    args = (tmp_path / "args").read_text().splitlines()
    assert args == ["merge", f"{shards}/plugin-eval-shard-1-of-2/", f"{shards}/plugin-eval-shard-2-of-2/"] + [
        "--output-dir",
        "merged",
    ]
    assert outputs["status"] == "1"


def test_merge_with_no_shards_says_so_and_passes(tmp_path):
    env = {"PLUGIN_EVAL": str(recorder(tmp_path)), "OUT": "merged", "MERGE": "true", "SHARDS": str(tmp_path / "x")}
    status, said, outputs = script("run.sh", env, tmp_path)
    assert status == 0 and outputs["status"] == "0" and "results" not in outputs
    assert "nothing to merge" in said


# ---- report.sh -----------------------------------------------------------------------------------------------


def folder(path: Path, *cases) -> Path:
    path.mkdir(parents=True)
    (path / RESULTS_FILE).write_text(document_text(suite_result(*cases).to_json()), encoding="utf-8")
    return path


@pytest.fixture
def sessions(tmp_path):
    """The baseline (greet passes on main) and the pull request's results (greet fails)."""
    baseline = folder(tmp_path / "baseline", case_result("greet", [1] * 10, [0] * 10))
    results = folder(tmp_path / "results", case_result("greet", [0] * 10, [0] * 10))
    return baseline, results


def test_report_comments_on_the_pull_request(tmp_path, sessions):
    baseline, results = sessions
    with fake_github() as fake:
        env = environment(fake, tmp_path, pr=8) | {"EVENT_NAME": "pull_request", "PLUGIN_EVAL": PLUGIN_EVAL}
        env |= {"RESULTS": str(results), "BASELINE": str(baseline), "STATUS": "1", "BASELINE_NAME": "main"}
        status, said, outputs = script("report.sh", env, tmp_path)
        again = script("report.sh", env, tmp_path)
    assert status == 0 and outputs["status"] == "1" and "saved" not in outputs
    assert "Created the comment on pull request #8" in said and "Updated the comment" in again[1]
    [comment] = fake.on(8)
    assert "🔴 worse than main: 1 case" in comment["body"]


def test_a_refused_comment_warns_and_leaves_the_status(tmp_path, sessions):
    baseline, results = sessions
    with fake_github() as fake:
        fake.refuse_writes = True
        env = environment(fake, tmp_path) | {"EVENT_NAME": "pull_request", "PLUGIN_EVAL": PLUGIN_EVAL}
        env |= {"RESULTS": str(results), "BASELINE": str(baseline), "STATUS": "0"}
        status, said, outputs = script("report.sh", env, tmp_path)
    assert status == 0 and outputs["status"] == "0"
    assert "403" in said and "::warning title=plugin-eval: no comment::" in said


def test_fail_on_worse_fails_a_passing_session_that_got_worse(tmp_path, sessions):
    baseline, results = sessions
    env = {"EVENT_NAME": "push", "PLUGIN_EVAL": PLUGIN_EVAL, "FAIL_ON_WORSE": "true"}
    env |= {"RESULTS": str(results), "BASELINE": str(baseline), "STATUS": "0", "BASELINE_NAME": "main"}
    status, said, outputs = script("report.sh", env, tmp_path)
    assert outputs["status"] == "1" and "::error title=plugin-eval: worse than main::" in said


def test_the_default_branch_keeps_its_documents_as_the_next_baseline(tmp_path):
    results = folder(tmp_path / "results", case_result("greet", [1] * 3, [0] * 3))
    (results / "runs").mkdir()
    (results / "runs" / "trace.jsonl").write_text("{}")
    baseline = tmp_path / "baseline"
    env = {"EVENT_NAME": "push", "PLUGIN_EVAL": PLUGIN_EVAL, "SAVE_BASELINE": "true"}
    env |= {"RESULTS": str(results), "BASELINE": str(baseline), "STATUS": "1"}
    _, _, outputs = script("report.sh", env, tmp_path)
    assert outputs["saved"] == "true"
    assert sorted(p.relative_to(baseline).as_posix() for p in baseline.rglob("*")) == [RESULTS_FILE]
    # a partial session is no baseline
    _, _, outputs = script("report.sh", env | {"STATUS": "2", "BASELINE": str(tmp_path / "b2")}, tmp_path)
    assert "saved" not in outputs and not (tmp_path / "b2").exists()


# ---- install.sh and sandbox.sh -------------------------------------------------------------------------------


def tools(tmp_path: Path, apt_log: Path) -> str:
    """A PATH of the tools sandbox.sh needs — without bwrap and socat — and an apt-get (and sudo) that record their
    arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "grep", "uname", "id", "env"):
        (bin_dir / tool).symlink_to(shutil.which(tool) or tool)
    for fake in ("apt-get", "sudo"):
        stand_in = bin_dir / fake
        stand_in.write_text(f'#!/bin/bash\n[ "$1" = apt-get ] && shift\necho "$*" >> "{apt_log}"\n')
        stand_in.chmod(0o755)
    return str(bin_dir)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox packages are Linux's")
@pytest.mark.parametrize(
    ("sandbox", "args", "case", "installs"),
    [
        ("auto", "", "tools: [Read]", False),
        ("auto", "--allow-tools Bash", "tools: [Read]", True),
        ("auto", "", "tools: [Read, Bash]", True),
        ("false", "--allow-tools Bash", "tools: [Bash]", False),
        ("true", "", "tools: [Read]", True),
    ],
)
def test_the_sandbox_packages_only_when_a_case_may_grant_bash(tmp_path, sandbox, args, case, installs):
    apt_log = tmp_path / "apt.log"
    (tmp_path / "plugin" / "evals" / "greet").mkdir(parents=True)
    (tmp_path / "plugin" / "evals" / "greet" / "case.yaml").write_text(case + "\n")
    env = {"PATH": tools(tmp_path, apt_log), "PLUGIN": str(tmp_path / "plugin"), "SANDBOX": sandbox, "ARGS": args}
    status, said, _ = script("sandbox.sh", env, tmp_path)
    assert status == 0, said
    if installs:
        assert "installing bubblewrap and socat" in said
        assert apt_log.read_text().splitlines()[-1].endswith("install -y -qq bubblewrap socat")
    else:
        assert "not needed" in said and not apt_log.exists()


def test_install_puts_the_package_from_the_action_folder_on_path(tmp_path):
    """A tiny package with a `plugin-eval` command stands in for the action's checkout (the real package is
    installed from its wheel by .ci/release-check)."""
    package = tmp_path / "action-checkout"
    (package / "stand_in").mkdir(parents=True)
    (package / "stand_in" / "__init__.py").write_text("def main():\n    print('plugin-eval 9.9.9')\n")
    (package / "pyproject.toml").write_text(
        '[project]\nname = "stand-in"\nversion = "9.9.9"\n[project.scripts]\nplugin-eval = "stand_in:main"\n'
    )
    python = Path(getattr(sys, "_base_executable", sys.executable))
    env = {"ACTION_PATH": str(package), "VENV": str(tmp_path / "venv"), "PATH": f"{python.parent}:/usr/bin:/bin"}
    path_file = tmp_path / "path.txt"
    status, said, _ = script("install.sh", env | {"GITHUB_PATH": str(path_file)}, tmp_path)
    assert status == 0, said
    assert "plugin-eval 9.9.9" in said
    assert path_file.read_text().strip() == str(tmp_path / "venv" / "bin")
