"""`plugin-eval import` (pytest_plugin_eval.authoring.importer): the case folders it writes load as the evals.json
cases they replace, nothing is overwritten, and which expectations look mechanical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.authoring.importer import import_evals
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.load.skill_evals import eval_cases, read_evals
from pytest_plugin_eval.suite_check.hints import mechanical_hint


@pytest.mark.parametrize(
    ("expectation", "hint"),
    [
        ('The output includes the word "total"', "a regex grader: pattern: 'total'"),
        ("The summary mentions `fetchUser`", "a regex grader: pattern: 'fetchUser'"),
        ("It contains the phrase 'rate limit'", "a regex grader: pattern: 'rate\\ limit'"),
        ("The answer uses the term idempotent", "a regex grader: pattern: '\\bidempotent\\b'"),
        ('The commit message starts with "feat:"', "a regex grader: pattern: '^feat:', flags: m"),
        ('The reply ends with "Cheers"', "a regex grader: pattern: 'Cheers\\s*$'"),
        ("The skill `pdf` was invoked", "a tool_used grader: tool: Skill, input_match: {skill: 'pdf'}"),
        ("The agent calls the Bash tool", "a tool_used grader: tool: Bash"),
        ("It creates report.html in the working directory", "a file_exists grader: path: report.html"),
    ],
)
def test_mechanical_expectations_get_the_grader_that_checks_them(expectation, hint):
    assert mechanical_hint(expectation) == hint


@pytest.mark.parametrize(
    "expectation",
    ["The greeting names Ada", "The summary is faithful to the report", "The tone is friendly but firm"],
)
def test_judgments_get_no_hint(expectation):
    assert mechanical_hint(expectation) is None


def test_a_hint_quotes_a_rubric_of_several_lines_on_one(tmp_path):
    """A notice is one line: a rubric written over two lines broke check's output in the middle of the quote."""
    from pytest_plugin_eval.suite_check.hints import mechanical_hints

    case_dir = tmp_path / "evals" / "writes-a-rule"
    (case_dir / "graders").mkdir(parents=True)
    (case_dir / "prompt.md").write_text("Warn me on console.log.\n")
    (case_dir / "graders" / "rule.md").write_text(
        "---\ntype: llm\n---\nThe rule file it wrote has\n`event: file` in its frontmatter.\n"
    )
    [hint] = mechanical_hints(load_case(case_dir, tmp_path / "evals", grader_types()))
    assert '("The rule file it wrote has `event: file` in its frontmatter.")' in hint and "\n" not in hint


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    skill = root / "skills" / "greet"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nbody\n")
    (skill / "evals" / "files" / "guests.txt").write_text("Ada\n")
    data = {
        "evals": [
            {
                "id": 1,
                "name": "Greets the guests",
                "prompt": "Greet evals/files/guests.txt.",
                "expected_output": "Hello Ada.",
                "files": ["evals/files/guests.txt"],
                "expectations": ["It names Ada"],
            },
            {"id": 2, "prompt": "Hi.", "expectations": ["It greets"]},
        ]
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(data))
    return root


def test_imported_folders_load_as_the_cases_the_evals_run_as(root):
    lines, status = import_evals(root)
    assert status == 0 and lines[0] == "✓ evals/greet-1/: prompt.md, 1 grader(s), 1 file(s)"
    file = read_evals(root / "skills" / "greet" / "evals" / "evals.json", root)
    for case in eval_cases(file, root / "evals", grader_types()):
        folder = root / "evals" / case.name.replace("/", "-")
        imported = load_case(folder, root / "evals", grader_types())
        assert imported.prompt == case.prompt and imported.expected_outcome == case.expected_outcome
        assert [(g.name, g.type, g.config) for g in imported.graders] == [
            (g.name, g.type, g.config) for g in case.graders
        ]
        assert [rel for _, rel in imported.context.files] == [rel for _, rel in case.context.files]
        assert all(src.read_bytes() == (folder / rel).read_bytes() for src, rel in imported.context.files)
    assert load_case(root / "evals" / "greet-1", root / "evals", grader_types()).description == "Greets the guests"


def test_nothing_is_overwritten(root):
    (root / "evals" / "greet-2").mkdir(parents=True)
    (root / "evals" / "greet-2" / "notes.txt").write_text("mine")
    lines, status = import_evals(root)
    assert status == 0 and "· evals/greet-2/ exists: left as it is" in lines
    assert sorted(p.name for p in (root / "evals" / "greet-2").iterdir()) == ["notes.txt"]


def test_a_broken_evals_file_is_reported_and_nothing_written(root):
    (root / "skills" / "greet" / "evals" / "evals.json").write_text('{"evals": [{"prompt": "x"}]}')
    lines, status = import_evals(root)
    assert status == 1 and len(lines) == 1
    assert lines[0].startswith(
        "✗ skills/greet/evals/evals.json: evals[0].expectations: is required: the statements a run is graded on — add"
    )
    assert not (root / "evals").exists() or not any((root / "evals").iterdir())


def test_check_loads_the_evals_json_cases_as_a_session_collects_them_before_any_import(root):
    from pytest_plugin_eval.suite_check.suite import check_suite

    (root / "evals").mkdir()
    data = {"evals": [{"id": 1, "prompt": "Hi.", "expectations": ['The reply includes the word "hello"']}]}
    (root / "skills" / "greet" / "evals" / "evals.json").write_text(json.dumps(data))
    result = check_suite(root)
    assert [c.name for c in result.cases] == ["greet/1"]
    assert not any("holds no eval case" in p.message for p in result.problems)
    assert any("looks mechanical" in w for w in result.warnings)  # the quoted word, before any import
    (root / "skills" / "greet" / "evals" / "evals.json").write_text('{"evals": [{"prompt": "x"}]}')
    broken = check_suite(root)
    assert [p.key for p in broken.load_problems] == ["evals[0].expectations"] and not broken.ok


def test_check_warns_when_an_imported_folder_and_its_eval_would_both_run(root):
    from pytest_plugin_eval.suite_check.suite import check_suite

    import_evals(root)
    twice = [w for w in check_suite(root).warnings if "run the same prompt" in w]
    assert len(twice) == 2 and twice[0].startswith('case "greet/1" of an evals.json and the case folder "greet-1"')
