"""The option table drives parsing: every EvalOptions field is filled by exactly one option of the table, and each
option's parser turns its raw value into the field's value (a namespace, no pytest)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.engine.option_parse import parse_options
from pytest_plugin_eval.engine.option_values import OptionError
from pytest_plugin_eval.engine.options import OPTIONS, EvalOptions


def filled_fields() -> list[str]:
    out: list[str] = []
    for option in OPTIONS:
        if isinstance(option.field, tuple):
            out += option.field
        elif option.field is not None:
            out.append(option.field)
    return out


def test_every_field_of_eval_options_is_filled_by_one_option():
    fields = filled_fields()
    assert sorted(fields) == sorted(f.name for f in dataclasses.fields(EvalOptions))
    assert len(fields) == len(set(fields))


def namespace(**given):
    """The raw namespace pytest would hand over with nothing given, then `given`."""
    raw: dict = {}
    for option in OPTIONS:
        raw.setdefault(option.dest, option.default)  # the first option of a dest sets its default, as argparse does
    raw.update({f"{o.dest}_given": None for o in OPTIONS if o.kind == "list"})
    raw.update({o.dest: [] for o in OPTIONS if o.kind in ("list", "append")})
    raw.update(given)
    return SimpleNamespace(**raw)


def test_nothing_given_parses_to_the_defaults():
    assert parse_options(namespace()) == EvalOptions()


def test_each_parser_fills_its_fields():
    options = parse_options(
        namespace(eval_runs="auto:6", eval_model="haiku,sonnet,haiku", eval_threshold="0.5", eval_shard="2/4")
    )
    assert (options.runs, options.auto_runs is not None, options.models, options.model) == (
        None,
        True,
        ("haiku", "sonnet"),
        None,
    )
    assert (options.threshold, options.shard) == (0.5, (2, 4))


def test_a_combination_is_refused_before_a_single_options_file_check():
    with pytest.raises(OptionError, match="--runs auto chooses how many runs"):
        parse_options(namespace(eval_runs="auto", eval_regrade="/nonexistent"))
