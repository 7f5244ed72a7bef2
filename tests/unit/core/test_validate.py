"""The shared value checks: what each accepts, what it returns, and the message naming the key when it refuses."""

from __future__ import annotations

import math

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.core.validate import (
    UniqueIds,
    boolean,
    known_keys,
    mapping,
    need_int,
    need_str,
    nonempty_string,
    one_of,
    positive_number,
    require_str,
    seconds,
    string,
    string_list,
    subkey,
    type_name,
    whole_number,
)


def refusal(check, value, key: str = "k") -> str:
    """What `check` says about `value`, as rendered for a key."""
    with pytest.raises(SpecError) as info:
        check(value, key)
    assert info.value.file is None  # the file is added by whoever reads it
    return str(info.value)


@pytest.mark.parametrize(
    "value, name",
    [
        (True, "a boolean"),
        (3, "a whole number"),
        (1.5, "a number"),
        ("x", "a string"),
        ([1], "a list"),
        ([], "an empty list"),
        ({}, "a mapping"),
        (None, "nothing (null)"),
        (b"x", "bytes"),
    ],
)
def test_type_name(value, name):
    assert type_name(value) == name


def test_subkey():
    assert subkey("", "name") == "name"
    assert subkey("execution", "model") == "execution.model"
    assert subkey("with[0]", 3) == "with[0].3"


# ---- whole numbers ----------------------------------------------------------------------------------------


def test_whole_number_in_a_range_accepts_its_bounds_and_whole_floats():
    check = whole_number(1, 50)
    assert check(1, "k") == 1 and check(50, "k") == 50
    assert check(2.0, "k") == 2 and type(check(2.0, "k")) is int


@pytest.mark.parametrize(
    "value, got",
    [
        (0, "0"),
        (51, "51"),
        (1.5, "a number 1.5"),
        ("3", "a string '3'"),
        (True, "a boolean"),
        ([1], "a list"),
        (None, "nothing (null)"),
        (math.inf, "a number inf"),
    ],
)
def test_whole_number_in_a_range_refusals(value, got):
    assert refusal(whole_number(1, 50), value, "runs") == f"runs: must be a whole number from 1 to 50 (got {got})"


def test_whole_number_without_an_upper_bound():
    check = whole_number(0)
    assert check(10**9, "k") == 10**9
    assert refusal(check, -1, "min") == "min: must be a whole number ≥ 0 (got -1)"
    assert refusal(check, False, "min") == "min: must be a whole number ≥ 0 (got a boolean)"


# ---- other numbers ----------------------------------------------------------------------------------------


def test_seconds():
    assert seconds(0, "k") == 0.0 and type(seconds(2, "k")) is float
    assert seconds(0.25, "k") == 0.25
    assert refusal(seconds, -1, "delay") == "delay: must be a number of seconds ≥ 0 (got -1)"
    assert refusal(seconds, math.nan, "delay") == "delay: must be a number of seconds ≥ 0 (got nan)"
    assert refusal(seconds, "soon", "delay") == "delay: must be a number of seconds ≥ 0 (got a string 'soon')"
    assert refusal(seconds, True, "delay") == "delay: must be a number of seconds ≥ 0 (got a boolean)"


def test_positive_number():
    assert positive_number(0.5, "w") == 0.5 and positive_number(3, "w") == 3
    for value, got in (
        (0, "0"),
        (-0.5, "-0.5"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        ("2", "a string '2'"),
        (None, "nothing (null)"),
    ):
        assert refusal(positive_number, value, "weight") == f"weight: must be a number greater than 0 (got {got})"


# ---- strings ----------------------------------------------------------------------------------------------


def test_string():
    assert string("", "k") == "" and string("x", "k") == "x"
    assert refusal(string, 4.5, "model") == "model: must be a string (got a number)"
    assert refusal(string, None, "model") == "model: must be a string (got nothing (null))"


def test_nonempty_string():
    assert nonempty_string(" x ", "k") == " x "
    for value in ("", "  \t"):
        assert refusal(nonempty_string, value, "name") == "name: must be a non-empty string (got an empty string)"
    assert refusal(nonempty_string, 5, "name") == "name: must be a non-empty string (got a whole number)"


def test_string_list():
    assert string_list(["Read", "Edit"], "k") == ("Read", "Edit")
    assert string_list([], "k") == ()
    assert refusal(string_list, "Read", "allowed_tools") == (
        "allowed_tools: must be a list of strings (got a string) — write it as a list: [Read]"
    )
    assert refusal(string_list, {"a": 1}, "tags") == "tags: must be a list of strings (got a mapping)"
    assert refusal(string_list, ["Read", 5], "tags") == "tags[1]: must be a string (got a whole number)"


# ---- mappings, booleans, choices --------------------------------------------------------------------------


def test_mapping():
    assert mapping({"a": 1}, "k") == {"a": 1}
    assert refusal(mapping, ["a"], "growthbook_overrides") == "growthbook_overrides: must be a mapping (got a list)"


def test_boolean():
    assert boolean(True, "k") is True and boolean(False, "k") is False
    # YAML 1.2 reads `yes` as a string: it is refused, not taken for true
    assert refusal(boolean, "yes", "drop") == "drop: must be true or false (got a string)"
    assert refusal(boolean, 0, "drop") == "drop: must be true or false (got a whole number)"


def test_one_of():
    check = one_of("with-only", "both")
    assert check("both", "arm") == "both"
    assert refusal(check, "without", "arm") == "arm: must be one of with-only, both (got 'without')"
    assert refusal(check, 3, "arm") == "arm: must be one of with-only, both (got a whole number)"


def test_known_keys_names_the_first_unknown_key_under_its_parent():
    known_keys({"text": "a", "delay": 1}, ("text", "delay"), "with[0]", "a text turn")
    with pytest.raises(SpecError) as info:
        known_keys({"text": "a", "colour": "red", "size": 1}, ("text", "delay"), "with[0]", "a text turn")
    assert str(info.value) == "with[0].colour: is not a key of a text turn (expected: text, delay)"
    with pytest.raises(SpecError) as info:
        known_keys({"withh": []}, ("with", "without"), "", "a script")
    assert (info.value.key, info.value.message) == (
        "withh",
        "is not a key of a script — did you mean with? (expected: with, without)",
    )


# ---- optional keys of a mapping ---------------------------------------------------------------------------


def test_need_str():
    assert need_str({}, "k") is None
    assert need_str({}, "k", default="d") == "d"
    assert need_str({"k": None}, "k", default="d") == "d"
    assert need_str({"k": "v"}, "k") == "v"
    assert need_str({"k": ""}, "k") == ""
    with pytest.raises(SpecError) as info:
        require_str({}, "k")
    assert (info.value.key, info.value.message) == ("k", "is required")
    with pytest.raises(SpecError) as info:
        require_str({"k": None}, "k", nonempty=True)
    assert (info.value.key, info.value.message) == ("k", "is required")
    assert require_str({"k": "v"}, "k", nonempty=True) == "v"
    with pytest.raises(SpecError) as info:
        need_str({"k": 1}, "k")
    assert str(info.value) == "k: must be a string (got a whole number)"
    with pytest.raises(SpecError) as info:
        need_str({"k": " \t"}, "k", nonempty=True)
    assert str(info.value) == "k: must be a non-empty string (got an empty string)"


def test_need_int():
    assert need_int({}, "n", minimum=0, default=7) == 7
    assert need_int({"n": 3}, "n", minimum=0, default=None) == 3
    assert type(need_int({"n": 3.0}, "n", minimum=0, default=None)) is int
    for bad, shown in ((True, "a boolean"), (2.5, "a number 2.5"), ("3", "a string '3'"), (None, "nothing (null)")):
        with pytest.raises(SpecError) as info:
            need_int({"n": bad}, "n", minimum=0, default=None)
        assert str(info.value) == f"n: must be a whole number ≥ 0 (got {shown})"
    with pytest.raises(SpecError) as info:
        need_int({"n": 0}, "n", minimum=1, default=None)
    assert str(info.value) == "n: must be a whole number ≥ 1 (got 0)"


def test_an_id_is_unique_in_its_list_and_no_id_is_never_taken():
    ids = UniqueIds()
    assert ids.problem("a", "items[0]") is None and ids.problem(None, "items[1]") is None
    assert ids.problem("", "items[2]") is None and ids.problem("", "items[3]") is None
    assert ids.problem("a", "items[4]") == "'a' is already the id of items[0]; ids are unique"
    assert ids.problem("b", "items[5]") is None
