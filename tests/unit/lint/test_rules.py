"""The pre-run findings (pytest_plugin_eval/lint/): for each kind, a case that must be flagged and a near-miss
that must not be."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from helpers.plugin import write_plugin

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.lint.grants import Grants, warning_text
from pytest_plugin_eval.lint.shipped import shipped
from pytest_plugin_eval.lint.suite import lint_case
from pytest_plugin_eval.load.case import load_case

SKILL = """---
name: commit-message
description: Drafts a conventional-commit message. Use when the user asks for a commit message.
---
Write one conventional-commit subject line of the form type(scope): subject, in the imperative mood.
Never write "Here is your commit message" before it. Keep it under 72 characters.
"""
ANSWERED = "---\ntype: regex\npattern: '^(feat|fix|refactor)\\(\\w+\\): \\S'\nflags: m\n---\n"


@pytest.fixture
def plugin(tmp_path) -> Path:
    root = write_plugin(tmp_path / "commit-craft", "commit-craft", skill=("commit-message", SKILL))
    (root / "skills" / "commit-message" / "references").mkdir()
    (root / "skills" / "commit-message" / "references" / "types.md").write_text("feat: a new feature\n")
    (root / "commands").mkdir()
    (root / "commands" / "changelog.md").write_text("---\ndescription: Adds a changelog entry.\n---\nAdd it.\n")
    return root


def kinds(plugin: Path, prompt: str = "I renamed getUser to fetchUser. Write me a commit message.", **graders) -> list:
    folder = plugin / "evals" / f"c{len(list((plugin / 'evals').iterdir()))}"  # a case folder per call
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text(prompt + "\n")
    for name, text in (graders or {"subject": ANSWERED}).items():
        (folder / "graders" / f"{name}.md").write_text(textwrap.dedent(text).lstrip())
    case = load_case(folder, plugin / "evals", grader_types())
    return [(f.kind, f.grader) for f in lint_case(case, Grants(allow_tools=("Write",)), shipped(plugin))]


def regex(pattern: str, **keys: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return f"---\ntype: regex\npattern: '{pattern}'\n{extra}---\n"


def test_a_well_formed_case_has_no_finding(plugin):
    assert kinds(plugin) == []


@pytest.mark.parametrize(
    "prompt",
    [
        "Use the commit-message skill to write a commit message for the rename.",
        "Run /commit-craft:commit-message for the rename.",
        "Ask commit-craft:commit-message for a message.",
        "Run /changelog for the rename.",
        "With the commit-craft plugin, write the message.",
        "Write the commit message (commit-message) for the rename.",  # a name no ordinary word spells
    ],
)
def test_a_prompt_that_names_the_skill_is_flagged(plugin, prompt):
    assert ("prompt-names-skill", None) in kinds(plugin, prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "Write a commit message for the rename.",  # the words, not the name
        "Add an entry to the changelog for the rename.",  # a command's name used as an ordinary word
        "I use plugins a lot; write me a commit message.",
    ],
)
def test_a_prompt_in_the_users_words_is_not_flagged(plugin, prompt):
    assert kinds(plugin, prompt) == []


def test_a_prompt_quoting_the_skill_is_flagged_and_a_short_echo_is_not(plugin):
    quoting = "Write one conventional-commit subject line of the form type(scope): subject, for the rename."
    assert ("prompt-quotes-skill", None) in kinds(plugin, quoting)
    assert kinds(plugin, "Write one conventional-commit subject line for the rename.") == []  # 6 words in common


def test_a_trace_pattern_the_skill_ships_passes_for_free(plugin):
    found = kinds(plugin, leak=regex("imperative mood", target="trace"))
    assert ("passes-on-shipped-text", "leak") in found
    # the same words over the answer: the agent has to write them
    assert kinds(plugin, leak=regex("imperative mood")) == []
    # over the trace, but text no shipped file holds
    assert kinds(plugin, leak=regex("refactor\\(users\\)", target="trace")) == []


def test_a_reference_file_counts_as_shipped(plugin):
    assert ("passes-on-shipped-text", "ref") in kinds(plugin, ref=regex("a new feature", target="trace"))


def test_a_not_contains_on_words_the_skill_teaches_fails_the_best_answer(plugin):
    found = kinds(plugin, filler=regex("(?:here is your commit message)", match="not_contains", flags="i"))
    assert ("fails-on-taught-text", "filler") in found
    assert ("fails-on-taught-text", "zero") in kinds(plugin, zero=regex("imperative", match="count:0"))
    # a phrase only a bad answer holds
    assert kinds(plugin, filler=regex("hope this helps", match="not_contains", flags="i")) == []


@pytest.mark.parametrize("pattern", ["0 critical findings", "findings: 3", "(0|1) failures", "rate 10"])
def test_a_pattern_opening_or_closing_on_a_bare_digit_is_flagged(plugin, pattern):
    assert ("unanchored-number", "n") in kinds(plugin, n=regex(pattern))


@pytest.mark.parametrize(
    "pattern", ["\\b0 critical findings", "(?<!\\d)0 critical", "findings: 3\\b", "^3$", "v2 ok", "total: \\d+", "a{2}"]
)
def test_a_bounded_number_is_not_flagged(plugin, pattern):
    assert ("unanchored-number", "n") not in kinds(plugin, n=regex(pattern))


def test_a_pattern_that_matches_nothing_passes_or_fails_whatever_happens(plugin):
    assert ("always-passes", "any") in kinds(plugin, any=regex("x*"))
    assert ("never-passes", "none") in kinds(plugin, none=regex("(foo)?", match="not_contains"))
    assert kinds(plugin, some=regex("x+")) == []
    assert kinds(plugin, absent=regex("lorem ipsum", match="not_contains")) == []  # the near-miss of never-passes


def test_a_tool_used_grader_with_no_bound_always_passes(plugin):
    loose = "---\ntype: tool_used\ntool: Read\nmin: 0\n---\n"
    bounded = "---\ntype: tool_used\ntool: Read\nmin: 0\nmax: 0\n---\n"
    assert ("always-passes", "loose") in kinds(plugin, loose=loose, subject=ANSWERED)
    assert kinds(plugin, bounded=bounded, subject=ANSWERED) == []


def test_a_rubric_of_adjectives_is_flagged_and_a_condition_is_not(plugin):
    vague = "---\ntype: llm\n---\nThe answer is helpful, accurate and well written.\n"
    precise = "---\ntype: llm\n---\nPASS if the reply is a single commit subject naming fetchUser; FAIL otherwise.\n"
    assert ("rubric-without-condition", "vague") in kinds(plugin, vague=vague, subject=ANSWERED)
    assert kinds(plugin, precise=precise, subject=ANSWERED) == []


def test_a_grader_that_needs_a_tool_nobody_granted(plugin):
    wrote = "---\ntype: file_exists\npath: out.txt\n---\n"
    folder = plugin / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text("Write a commit message into out.txt.\n")
    (folder / "graders" / "wrote.md").write_text(wrote)
    case = load_case(folder, plugin / "evals", grader_types())
    assert [(f.kind, f.grader) for f in lint_case(case, Grants())] == [("tool-not-granted", "wrote")]
    assert lint_case(case, Grants(allow_tools=("Write",))) == []  # granted: the near-miss


def test_a_grader_on_a_tool_the_case_removes(plugin):
    folder = plugin / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text("---\ndisallowed_tools: [Grep]\n---\nFind the TODOs in the project.\n")
    (folder / "graders" / "grepped.md").write_text("---\ntype: tool_used\ntool: Grep\n---\n")
    (folder / "graders" / "answer.md").write_text(regex("TODO"))
    case = load_case(folder, plugin / "evals", grader_types())
    [finding] = lint_case(case, Grants())
    assert (finding.kind, finding.grader) == ("tool-not-granted", "grepped")
    assert warning_text(finding) == (
        'grader "grepped" needs the Grep tool, which this case removes (disallowed_tools): take Grep out of '
        "disallowed_tools, or grade something else"
    )
    (folder / "prompt.md").write_text("Find the TODOs in the project.\n")  # the near-miss: Grep is not removed
    assert lint_case(load_case(folder, plugin / "evals", grader_types()), Grants()) == []


def test_a_skill_the_manifest_keeps_elsewhere_counts_as_shipped(plugin):
    """A manifest's `skills: ["./extra"]` is loaded by Claude Code (load/suite.component_paths): its text ships."""
    extra = plugin / "extra" / "release-notes"
    extra.mkdir(parents=True)
    (extra / "SKILL.md").write_text("---\nname: release-notes\ndescription: Notes.\n---\nGroup the notes by scope.\n")
    manifest = plugin / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "skills": ["./extra"]}))
    assert ("passes-on-shipped-text", "notes") in kinds(plugin, notes=regex("by scope", target="trace"))
