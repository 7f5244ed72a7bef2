"""The one shape of a user's mistake (Problem, SpecError), collecting several (Problems), and the YAML reader's
errors, which say where."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_plugin_eval.core.problems import Problem, Problems, SpecError, located
from pytest_plugin_eval.core.validate import string, whole_number
from pytest_plugin_eval.core.yamlio import YamlError, load_yaml


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """Messages show files relative to the working directory: make it tmp_path."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---- Problem ----------------------------------------------------------------------------------------------


def test_problem_render_and_json(here):
    problem = Problem(here / "evals" / "c" / "prompt.md", "runs", "must be a whole number from 1 to 50 (got 0)")
    assert problem.render() == "evals/c/prompt.md: runs: must be a whole number from 1 to 50 (got 0)"
    assert problem.render(here / "evals").startswith("c/prompt.md: runs: ")
    assert problem.to_json(here) == {
        "file": "evals/c/prompt.md",
        "key": "runs",
        "message": "must be a whole number from 1 to 50 (got 0)",
    }
    assert Problem(here / "case.yaml", "", "must be a YAML mapping").render() == "case.yaml: must be a YAML mapping"
    assert Problem(None, "name", "is required").render() == "name: is required"
    assert Problem(None, "", "no file, no key").render() == "no file, no key"


# ---- SpecError --------------------------------------------------------------------------------------------


def test_spec_error_carries_key_and_message():
    error = SpecError("match", "is bad")
    assert (error.key, error.message, error.file, error.structural) == ("match", "is bad", None, False)
    assert str(error) == "match: is bad"
    assert str(SpecError("", "whole grader")) == "whole grader"
    assert isinstance(error, ValueError)


def test_spec_error_at_a_file(here):
    error = SpecError.at(str(here / "evals" / "c" / "scripted.yaml"), "with[0].drop", "must be true or false")
    assert error.file == here / "evals" / "c" / "scripted.yaml"  # a Path, whatever it was given
    assert str(error) == "evals/c/scripted.yaml: with[0].drop: must be true or false"
    assert SpecError.at("scripted.yaml", "", "the script is empty").problem == Problem(
        Path("scripted.yaml"), "", "the script is empty"
    )
    assert SpecError.at("x.md", "type", "bad", structural=True).problem.structural is True


def test_spec_error_in_file_prefixes_the_key(here):
    error = SpecError("pattern", "is required", structural=True)
    located_error = error.in_file(here / "case.yaml", "graders[2]")
    assert (located_error.file, located_error.key) == (here / "case.yaml", "graders[2].pattern")
    assert located_error.structural is True and located_error.message == "is required"
    assert str(located_error) == "case.yaml: graders[2].pattern: is required"
    assert SpecError("", "bad").in_file(here / "g.md", "graders[0]").key == "graders[0]"
    assert SpecError("type", "bad").in_file(here / "g.md").key == "type"
    assert error.file is None  # in_file makes a new error


def test_located_adds_the_file_to_errors_that_have_none(here):
    with pytest.raises(SpecError) as info, located(here / "scripted.yaml"):
        whole_number(1)(0, "with[0].repeat")
    assert str(info.value) == "scripted.yaml: with[0].repeat: must be a whole number ≥ 1 (got 0)"
    with pytest.raises(SpecError) as info, located(here / "case.yaml", "execution"):
        string(3, "model")
    assert (info.value.file, info.value.key) == (here / "case.yaml", "execution.model")
    # an error that already names its file keeps it
    with pytest.raises(SpecError) as info, located(here / "outer.md"):
        raise SpecError.at(here / "inner.md", "k", "bad")
    assert info.value.file == here / "inner.md"
    with located(here / "fine.md"):
        pass


# ---- Problems ---------------------------------------------------------------------------------------------


def test_problems_check_keeps_the_valid_values_and_collects_every_refusal(here):
    file = here / "prompt.md"
    fields = {"runs": whole_number(1, 50), "model": string, "name": string}
    problems = Problems()
    assert not problems and len(problems) == 0
    valid = problems.check(
        file, fields, {"runs": 2.0, "model": 4.5, "name": 5, "colour": "red"}, structural_keys=("name",)
    )
    assert valid == {"runs": 2}  # unknown keys are not the checks' business
    assert len(problems) == 2 and problems
    assert [p.render() for p in problems.items] == [
        "prompt.md: model: must be a string (got a number)",
        "prompt.md: name: must be a string (got a whole number)",
    ]
    assert [p.structural for p in problems.items] == [False, True]


def test_problems_check_prefixes_keys(here):
    problems = Problems()
    problems.check(here / "case.yaml", {"max_turns": whole_number(1, 200)}, {"max_turns": 0}, "execution.")
    assert problems.items == [
        Problem(here / "case.yaml", "execution.max_turns", "must be a whole number from 1 to 200 (got 0)")
    ]


def test_problems_add_and_add_error(here):
    problems = Problems()
    problems.add(here / "case.yaml", "name", "is required in case.yaml", structural=True)
    problems.add_error(SpecError("pattern", "is required"), here / "case.yaml", "graders[0]")
    problems.add_error(SpecError.at(here / "mocks" / "t.md", "type", "bad"))  # already located
    problems.add_error(SpecError("weight", "bad"), here / "g.md")
    assert [(p.file, p.key, p.message, p.structural) for p in problems.items] == [
        (here / "case.yaml", "name", "is required in case.yaml", True),
        (here / "case.yaml", "graders[0].pattern", "is required", False),
        (here / "mocks" / "t.md", "type", "bad", False),
        (here / "g.md", "weight", "bad", False),
    ]


# ---- the YAML 1.2 reader ----------------------------------------------------------------------------------


def test_load_yaml_reads_yaml_1_2_scalars():
    data = load_yaml("a: yes\nb: no\nc: on\nd: off\ne: true\nf: False\ng: 2024-01-01\nh: 3\ni: 1.5\nj: null\n")
    assert data == {
        "a": "yes",
        "b": "no",
        "c": "on",
        "d": "off",
        "e": True,
        "f": False,
        "g": "2024-01-01",
        "h": 3,
        "i": 1.5,
        "j": None,
    }


def test_yaml_errors_say_where():
    with pytest.raises(YamlError) as info:
        load_yaml("with:\n  - text: a\n  - text: [b\n")
    assert (info.value.line, info.value.column) == (4, 1)
    assert str(info.value).startswith("line 4, column 1: ")
    assert info.value.problem and str(info.value).endswith(info.value.problem)
