"""Unit tests for the key lists in grader-definition errors (pytest_plugin_eval.load.graders): every error that
lists a grader's keys lists all of them — `criteria` included for judges written inline in case.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_plugin_eval.core.problems import Problems, SpecError
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.graders import load_inline_graders, parse_grader


def inline_problems(tmp_path: Path, graders: list) -> list[tuple[str, str]]:
    problems = Problems()
    specs = load_inline_graders(tmp_path / "case.yaml", graders, grader_types(), problems)
    assert not specs
    return [(p.key, p.message) for p in problems.items]


@pytest.mark.parametrize(
    "grader, keys",
    [
        ({"type": "llm", "criteria": "Polite.", "bogus": 1}, "type, name, weight, arm, turn, focus, criteria"),
        (
            {"type": "baseline", "criteria": "As good.", "baseline_file": "b.jsonl", "bogus": 1},
            "type, name, weight, arm, turn, baseline_file, criteria",
        ),
        ({"type": "regex", "pattern": "x", "bogus": 1}, "type, name, weight, arm, turn, pattern, target, match, flags"),
    ],
)
def test_an_unknown_inline_key_lists_every_allowed_key(tmp_path, grader, keys):
    assert inline_problems(tmp_path, [{"name": "g", **grader}]) == [
        ("graders[0].bogus", f"is not a key of {grader['type']} graders (expected: {keys})")
    ]


def test_an_inline_judge_without_criteria_is_told_to_write_the_key(tmp_path):
    assert inline_problems(tmp_path, [{"name": "j", "type": "llm"}]) == [
        ("graders[0].criteria", "is empty — write the rubric (what a passing run looks like) as `criteria:`")
    ]


def test_criteria_in_a_markdown_judge_says_the_rubric_is_the_body():
    with pytest.raises(SpecError) as info:
        parse_grader({"type": "llm", "criteria": "Polite."}, "", "j", "graders/j.md", grader_types())
    assert (info.value.key, info.value.message) == (
        "criteria",
        "is not a frontmatter key of llm graders: the rubric is the file's body, below the frontmatter "
        "(`criteria:` is how a grader written in case.yaml gives it)",
    )


def test_a_markdown_judge_lists_its_keys_without_criteria():
    with pytest.raises(SpecError) as info:
        parse_grader({"type": "llm", "bogus": 1}, "Polite.", "j", "graders/j.md", grader_types())
    assert info.value.message == "is not a key of llm graders (expected: type, name, weight, arm, turn, focus)"
