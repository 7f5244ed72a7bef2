"""The release: its workflow (build and check everywhere, publish only a version tag through trusted publishing),
the version written in one place, and no wheel committed anywhere. `.ci/release-check` itself — the build, twine
check and the wheel installed in a clean environment running the example suite — is run by `.ci/run`."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
JOBS = WORKFLOW["jobs"]
TRIGGERS = WORKFLOW[True]  # YAML 1.1 reads the key `on` as true


def runs(job: str) -> list[str]:
    return [step["run"] for step in JOBS[job]["steps"] if "run" in step]


def test_every_push_and_pull_request_builds_and_checks_what_a_release_would_publish():
    assert TRIGGERS["push"]["tags"] == ["v*"] and "pull_request" in TRIGGERS
    assert any(run.startswith(".ci/release-check dist") for run in runs("build"))
    env = next(step["env"] for step in JOBS["build"]["steps"] if step.get("run", "").startswith(".ci/release-check"))
    assert "github.ref_name" in env["RELEASE_TAG"]  # a tag must name pyproject.toml's version


def test_only_a_version_tag_publishes_and_only_that_job_may_ask_for_an_identity_token():
    publish = JOBS["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')" and publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"] == "pypi"
    assert any(step.get("uses") == "pypa/gh-action-pypi-publish@release/v1" for step in publish["steps"])
    assert WORKFLOW["permissions"] == {"contents": "read"}
    others = [name for name, job in JOBS.items() if "id-token" in (job.get("permissions") or {}) and name != "publish"]
    assert others == []


def test_ci_runs_the_release_check():
    assert ".ci/release-check" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_version_is_written_in_pyproject_alone():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    [version] = re.findall(r'^version = "([^"]+)"$', text, re.M)
    assert importlib.metadata.version("pytest-plugin-eval") == version  # `plugin-eval --version` reads this
    literal = re.compile(rf"""["']{re.escape(version)}["']""")
    assert not [p for p in (ROOT / "pytest_plugin_eval").rglob("*.py") if literal.search(p.read_text("utf-8"))]


@pytest.mark.skipif(not shutil.which("git") or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_wheel_is_committed():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert [f for f in files.splitlines() if f.endswith(".whl")] == []


def test_the_docs_install_by_name_or_from_a_tag():
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8") + (ROOT / "README.md").read_text("utf-8")
    assert "pip install pytest-plugin-eval" in text
    assert re.search(r"pip install \"pytest-plugin-eval @ git\+https://github\.com/[^ ]+@v\d", text)
    assert "tools/pytest_plugin_eval-" not in text  # the committed-wheel recipe is gone
