"""Loading skill-creator's output evals (pytest_plugin_eval.load.skill_evals): evals.json as its users write it
(ids or none, `expectations` or `assertions`, strings or {text}), every error named by its JSON path, the sibling
scripted.yaml, and an eval as the case it is run as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.script import TextBlock
from pytest_plugin_eval.load.skill_evals import (
    EvalsLoadError,
    criteria,
    eval_cases,
    evals_files,
    read_evals,
)


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    for name in ("greet", "farewell"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} people.\n---\nbody\n")
    (root / "evals").mkdir()
    return root


def evals(root: Path, data, skill: str = "greet") -> Path:
    path = root / "skills" / skill / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def problems(root: Path, data) -> dict[str, str]:
    with pytest.raises(EvalsLoadError) as info:
        read_evals(evals(root, data), root)
    assert all(p.file == root / "skills" / "greet" / "evals" / "evals.json" for p in info.value.problems)
    return {p.key: p.message for p in info.value.problems}


def one(**entry) -> dict:
    return {"skill_name": "greet", "evals": [{"prompt": "Say hello.", "expectations": ["It greets"], **entry}]}


def test_evals_files_are_found_in_skill_folders_only(root):
    path = evals(root, one())
    (root / "evals" / "evals.json").write_text("{}")
    assert evals_files(root) == [path]


def test_an_eval_keeps_its_prompt_files_expectations_and_reference(root):
    (root / "skills" / "greet" / "evals" / "files").mkdir(parents=True)
    (root / "skills" / "greet" / "evals" / "files" / "guests.txt").write_text("Ada\n")
    data = one(id=7, expected_output=" A greeting. ", files=["evals/files/guests.txt"])
    loaded = read_evals(evals(root, data), root)
    [item] = loaded.evals
    assert (item.id, item.prompt, item.expected_output) == ("7", "Say hello.", "A greeting.")
    assert item.files == ("evals/files/guests.txt",) and item.expectations == ("It greets",)
    assert loaded.skill.name == "greet" and loaded.warnings == ()


def test_ids_are_numbers_or_names_and_missing_ones_are_slugs_of_name_or_prompt(root):
    data = {
        "evals": [
            {"id": "csv-1", "prompt": "A", "expectations": ["x"]},
            {"name": "Rename the user", "prompt": "B", "expectations": ["x"]},
            {"prompt": "Say hello please", "expectations": ["x"]},
            {"prompt": "Say hello please", "expectations": ["x"]},
        ]
    }
    ids = [e.id for e in read_evals(evals(root, data), root).evals]
    assert ids == ["csv-1", "rename-the-user", "say-hello-please", "say-hello-please-2"]


def test_assertions_and_text_objects_are_read_as_expectations(root):
    data = {"evals": [{"prompt": "A", "assertions": ["one", {"text": "two", "category": "x"}]}]}
    assert read_evals(evals(root, data), root).evals[0].expectations == ("one", "two")


def test_unknown_keys_and_another_skill_name_are_warnings_not_errors(root):
    data = one(type="edge")
    data["skill_name"] = "other"
    data["version"] = 2
    warnings = read_evals(evals(root, data), root).warnings
    assert any("evals[0].type" in w and "ignored" in w for w in warnings)
    assert any("version" in w for w in warnings)
    assert any("'other' is not the name of the skill" in w for w in warnings)


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ("{not json", "", "is not valid JSON"),
        ([1], "", 'is an object {"skill_name"'),
        ({"evals": []}, "evals", "an empty list"),
        ({"evals": {"a": 1}}, "evals", "non-empty list of evals"),
        ({"skill_name": 3, "evals": [{"prompt": "A", "expectations": ["x"]}]}, "skill_name", "must be a string"),
        ({"evals": ["Say hello"]}, "evals[0]", "an eval is an object"),
        ({"evals": [{"expectations": ["x"]}]}, "evals[0].prompt", "is required"),
        ({"evals": [{"prompt": " ", "expectations": ["x"]}]}, "evals[0].prompt", "non-empty string"),
        ({"evals": [{"prompt": "A"}]}, "evals[0].expectations", "is required"),
        ({"evals": [{"prompt": "A", "expectations": []}]}, "evals[0].expectations", "an empty list"),
        ({"evals": [{"prompt": "A", "expectations": "x"}]}, "evals[0].expectations", "non-empty list"),
        ({"evals": [{"prompt": "A", "expectations": ["x", 3]}]}, "evals[0].expectations[1]", "a statement"),
        ({"evals": [{"prompt": "A", "assertions": [{"txt": "x"}]}]}, "evals[0].assertions[0]", '"text"'),
        ({"evals": [{"prompt": "A", "expectations": ["x"], "assertions": ["y"]}]}, "evals[0].assertions", "not both"),
        ({"evals": [{"id": 1.5, "prompt": "A", "expectations": ["x"]}]}, "evals[0].id", "whole number or a name"),
        ({"evals": [{"id": "a b", "prompt": "A", "expectations": ["x"]}]}, "evals[0].id", "whole number or a name"),
        (
            {"evals": [{"prompt": "A", "expected_output": 3, "expectations": ["x"]}]},
            "evals[0].expected_output",
            "string",
        ),
        ({"evals": [{"prompt": "A", "files": "a.txt", "expectations": ["x"]}]}, "evals[0].files", "must be a list"),
        ({"evals": [{"prompt": "A", "files": [""], "expectations": ["x"]}]}, "evals[0].files[0]", "must be a path"),
        ({"evals": [{"prompt": "A", "files": ["../x"], "expectations": ["x"]}]}, "evals[0].files[0]", "leaves"),
        ({"evals": [{"prompt": "A", "files": ["/etc/passwd"], "expectations": ["x"]}]}, "evals[0].files[0]", "leaves"),
        (
            {"evals": [{"prompt": "A", "files": ["nope.csv"], "expectations": ["x"]}]},
            "evals[0].files[0]",
            "does not exist",
        ),
        ({"evals": [{"prompt": "A", "files": ["evals"], "expectations": ["x"]}]}, "evals[0].files[0]", "is not a file"),
    ],
)
def test_every_error_names_the_json_path(root, data, key, words):
    found = problems(root, data)
    assert key in found, found
    assert words in found[key]


def test_every_problem_is_reported_at_once_with_its_index(root):
    data = {
        "evals": [
            {"id": 1, "prompt": "A", "expectations": ["x"]},
            {"id": 1, "prompt": "B", "expectations": ["x"]},
            {"prompt": "C", "expectations": ["x", ""]},
            {"prompt": "D", "expectations": ["x", "y"], "files": ["missing"]},
        ]
    }
    found = problems(root, data)
    assert set(found) == {"evals[1].id", "evals[2].expectations[1]", "evals[3].files[0]"}
    assert "already the id of evals[0]" in found["evals[1].id"]


def test_a_file_linked_out_of_the_skill_folder_is_refused(root, tmp_path):
    (tmp_path / "secret.txt").write_text("x")
    (root / "skills" / "greet" / "evals").mkdir(parents=True)
    (root / "skills" / "greet" / "evals" / "link.txt").symlink_to(tmp_path / "secret.txt")
    found = problems(root, one(files=["evals/link.txt"]))
    assert "symlink out of the skill's folder" in found["evals[0].files[0]"]


def test_an_eval_is_a_case_whose_graders_judge_each_expectation_strictly_with_the_reference(root):
    (root / "skills" / "greet" / "evals" / "files").mkdir(parents=True)
    (root / "skills" / "greet" / "evals" / "files" / "guests.txt").write_text("Ada\n")
    data = one(id=2, expected_output="Hello Ada.", files=["evals/files/guests.txt"])
    data["evals"][0]["expectations"] = ["It greets Ada", "It greets Ada"]
    [case] = eval_cases(read_evals(evals(root, data), root), root / "evals", grader_types())
    assert case.name == "greet/2" and case.prompt == "Say hello."
    assert case.dir == (root / "evals" / "skill-evals" / "greet" / "2").absolute()
    assert case.plugin_root == root and case.expected_outcome == "Hello Ada." and case.source == "skill_creator"
    assert [g.name for g in case.graders] == ["it-greets-ada", "it-greets-ada-2"]
    assert all(g.type == "llm" and g.config.focus == "trace" for g in case.graders)
    assert case.graders[0].config.criteria == criteria("It greets Ada", "Hello Ada.")
    assert "superficial" not in criteria("x", None) and "merely looks compliant" in criteria("x", None)
    assert "<reference>\nHello Ada.\n</reference>" in case.graders[0].config.criteria
    assert "Reference answer" not in criteria("x", None)
    assert case.context.files == (
        (root / "skills" / "greet" / "evals" / "files" / "guests.txt", "evals/files/guests.txt"),
    )
    assert case.script is None  # only --scripted gives it one


def test_scripted_evals_answer_from_the_sibling_file_by_id_else_their_expected_output(root):
    data = {
        "evals": [
            {"id": 1, "prompt": "A", "expectations": ["x"]},
            {"id": 2, "prompt": "B", "expected_output": "Bee.", "expectations": ["x"]},
        ]
    }
    path = evals(root, data)
    (path.parent / "scripted.yaml").write_text("1:\n  with: [Hi from the skill]\n  judge: {x: [FAIL]}\n")
    first, second = eval_cases(read_evals(path, root), root / "evals", grader_types(), scripted=True)
    assert first.script.turns("with", 1)[0].blocks == (TextBlock("Hi from the skill"),)
    assert first.script.judge_replies("x")[0].blocks == (TextBlock("FAIL"),)
    assert second.script.turns("without", 1)[0].blocks == (TextBlock("Bee."),)
    assert second.script.judge_replies("x")[0].blocks == (TextBlock("PASS"),)


def test_a_sibling_script_of_judge_replies_only_keeps_the_default_answer(root):
    path = evals(root, {"evals": [{"id": 1, "prompt": "A", "expected_output": "Ay.", "expectations": ["x"]}]})
    (path.parent / "scripted.yaml").write_text("default:\n  judge: {default: [FAIL]}\n")
    [case] = eval_cases(read_evals(path, root), root / "evals", grader_types(), scripted=True)
    assert case.script.turns("with", 1)[0].blocks == (TextBlock("Ay."),)
    assert case.script.judge_replies("x")[0].blocks == (TextBlock("FAIL"),)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("- a list\n", "", "maps each eval's id"),
        ("3:\n  with: [Hi]\n", "3", "names no eval of evals.json (its ids: 1)"),
        ("1:\n  with: {tool_input: 1}\n", "1.with.tool_input", "run key"),
        ("1:\n  judge: {y: PASS}\n", "1.judge.y", "names no expectation of eval 1 (its graders: x)"),
        ("1: [unclosed\n", "", "invalid YAML"),
    ],
)
def test_sibling_script_errors_name_the_file_and_key(root, text, key, words):
    path = evals(root, {"evals": [{"id": 1, "prompt": "A", "expectations": ["x"]}]})
    (path.parent / "scripted.yaml").write_text(text)
    with pytest.raises(EvalsLoadError) as info:
        eval_cases(read_evals(path, root), root / "evals", grader_types(), scripted=True)
    [problem] = info.value.problems
    assert problem.file == path.parent / "scripted.yaml" and problem.key == key and words in problem.message
    assert info.value.case_dir == path


def test_a_file_with_no_expectations_at_all_is_one_problem_saying_what_to_add(tmp_path):
    from pytest_plugin_eval.load.skill_evals import EvalsLoadError, read_evals

    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    skill = root / "skills" / "s"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    evals = [{"id": n, "prompt": "p", "expected_output": "e"} for n in range(1, 5)]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "s", "evals": evals}))
    with pytest.raises(EvalsLoadError) as caught:
        read_evals(skill / "evals" / "evals.json", root)
    [problem] = caught.value.problems
    assert problem.key == "evals[*].expectations" and problem.message.startswith("is missing in all 4 evals")
    assert 'add "expectations"' in problem.message
