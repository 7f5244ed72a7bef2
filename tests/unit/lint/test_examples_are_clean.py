"""The suites and graders users copy from have no findings: the example plugin (as `plugin-eval check` and a
session granting what it asks for see it), and every grader and prompt the README and the docs show (they are
written for the example plugin, so its shipped text is what they are linted against)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.lint.grants import Grants
from pytest_plugin_eval.lint.prompt import prompt_findings
from pytest_plugin_eval.lint.shipped import shipped
from pytest_plugin_eval.lint.suite import lint_case
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.suite_check.suite import check_suite

ROOT = Path(__file__).resolve().parents[3]
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]


def fenced(page: Path) -> list[str]:
    """The page's fenced blocks that may hold a case's files: markdown, YAML or unnamed (not sh, json, python…)."""
    return [
        body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang in ("", "markdown", "md", "yaml")
    ]


def test_the_example_plugin_has_no_findings(tmp_path):
    copy = shutil.copytree(ROOT / "example_plugin", tmp_path / "example_plugin")
    result = check_suite(copy)
    assert result.ok and result.cases
    assert result.findings == []


def docs_graders() -> list[tuple[str, str]]:
    """(where, grader file text) for every grader the docs show: a fenced grader file, or an inline entry of a
    fenced case.yaml's `graders:`."""
    found = []
    for page in PAGES:
        if page.name == "findings.md":
            continue  # its examples are the ones flagged, on purpose (test_findings_page.py)
        for i, block in enumerate(fenced(page)):
            text = re.sub(r"^<!--.*?-->\n", "", block)
            where = f"{page.name}#{i}"
            if text.startswith("---\ntype:"):
                found.append((where, text))
                continue
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                continue
            graders = data.get("graders") if isinstance(data, dict) else None
            for entry in graders if isinstance(graders, list) else ():
                if isinstance(entry, dict) and "type" in entry:
                    keys = {k: v for k, v in entry.items() if k not in ("name", "criteria")}
                    found.append((where, f"---\n{yaml.safe_dump(keys)}---\n{entry.get('criteria', '')}\n"))
    return found


DOCS_GRADERS = docs_graders()


def test_the_docs_show_graders():
    assert len(DOCS_GRADERS) >= 3  # the collection above still finds them


@pytest.mark.parametrize(("where", "text"), DOCS_GRADERS, ids=[w for w, _ in DOCS_GRADERS])
def test_no_grader_the_docs_show_has_a_finding(tmp_path, where, text):
    folder = tmp_path / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text("Summarise fixtures/report.md.\n")
    (folder / "graders" / "g.md").write_text(text)
    case = load_case(folder, tmp_path / "evals", grader_types())
    granted = Grants(allow_tools=("Write", "Edit", "Bash"))
    assert [f.to_json() for f in lint_case(case, granted, shipped(ROOT / "example_plugin"))] == [], where


def docs_prompts() -> list[tuple[str, str]]:
    """(where, prompt) for every prompt the docs show: a fenced prompt.md (its frontmatter left out), or a fenced
    case.yaml's `execution.prompt`."""
    found = []
    for page in PAGES:
        if page.name == "findings.md":
            continue
        for i, block in enumerate(fenced(page)):
            where = f"{page.name}#{i}"
            if re.match(r"<!-- [^>]*prompt\.md -->\n", block):
                body = re.sub(r"^<!--.*?-->\n", "", block)
                found.append((where, re.sub(r"\A---\n.*?\n---\n", "", body, flags=re.DOTALL).strip()))
                continue
            try:
                data = yaml.safe_load(block)
            except yaml.YAMLError:
                continue
            execution = data.get("execution") if isinstance(data, dict) else None
            if isinstance(execution, dict) and isinstance(execution.get("prompt"), str):
                found.append((where, execution["prompt"]))
    return found


DOCS_PROMPTS = docs_prompts()


@pytest.mark.parametrize(("where", "prompt"), DOCS_PROMPTS, ids=[w for w, _ in DOCS_PROMPTS])
def test_no_prompt_the_docs_show_names_or_quotes_the_example_plugin(tmp_path, where, prompt):
    """The docs' cases are written for the example plugin (commit-craft): their prompts give none of it away."""
    folder = tmp_path / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text(prompt + "\n")
    (folder / "graders" / "g.md").write_text("---\ntype: regex\npattern: fetchUser\n---\n")
    case = load_case(folder, tmp_path / "evals", grader_types())
    assert [f.to_json() for f in prompt_findings(case, shipped(ROOT / "example_plugin"))] == [], where


def test_the_docs_show_prompts():
    assert len(DOCS_PROMPTS) >= 2  # the collection above still finds them
