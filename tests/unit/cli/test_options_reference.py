"""Unit tests for the generated options reference (pytest_plugin_eval.cli.options_reference): the committed page
is what the option table gives today, so an option added, renamed or reworded without the docs fails here."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from pytest_plugin_eval.cli import options_reference
from pytest_plugin_eval.engine.options import OPTIONS, Option

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / options_reference.PAGE


def test_the_committed_page_is_the_option_table_of_today():
    assert PAGE.read_text(encoding="utf-8") == options_reference.render(), (
        f"{options_reference.PAGE} is out of date: run python -m pytest_plugin_eval.cli.options_reference"
    )


def test_every_option_of_the_table_has_a_row_with_its_help():
    page = PAGE.read_text(encoding="utf-8")
    for option in OPTIONS:
        assert option.help.strip(), f"{option.name} has no help text"
        assert f"| {', '.join(f'`{n}`' for n in option.names)} |" in page, option.name


def test_an_option_added_to_the_table_is_missing_from_the_committed_page():
    added = Option(("--new-option",), "eval_new_option", "Something new", kind="flag", default=False)
    assert options_reference.render((*OPTIONS, added)) != PAGE.read_text(encoding="utf-8")
    assert "| `--new-option` |  | Something new |" in options_reference.render((*OPTIONS, added))


def test_an_option_without_help_text_is_refused_with_its_name():
    blank = dataclasses.replace(OPTIONS[0], help="  ")
    with pytest.raises(ValueError, match="--trust-plugin has no help text"):
        options_reference.render((blank,))


def test_every_subcommand_argument_has_a_row_under_its_command():
    page = PAGE.read_text(encoding="utf-8")
    for command, make in options_reference.COMMANDS.items():
        section = page.split(f"### plugin-eval {command}\n", 1)[1].split("\n### ", 1)[0]
        for action in make()._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                assert f"`{action.option_strings[-1]}` |" in section, (
                    command,
                    action.option_strings,
                )  # `-i`, `--interactive`


def test_a_subcommand_argument_without_help_text_is_refused_with_its_name():
    parser = argparse.ArgumentParser(prog="plugin-eval new")
    parser.add_argument("--quiet", action="store_true")
    with pytest.raises(ValueError, match="plugin-eval new --quiet has no help text"):
        options_reference.render(commands={"new": lambda: parser})


def test_markdown_in_help_texts_is_escaped_outside_code_spans():
    assert options_reference.escaped("mcp__* or a|b, `mcp__*` <dir>") == r"mcp\_\_\* or a\|b, `mcp__*` \<dir>"


def test_a_pipe_in_a_value_is_spelled_out_as_or():
    assert options_reference.code("N|auto") == "`N` or `auto`"


def test_what_each_kind_of_option_takes():
    def take(kind: str, metavar: str | None = "X") -> str:
        return options_reference.takes(Option(("--o",), "o", "help", kind=kind, metavar=metavar))

    assert [take("flag", None), take("value"), take("optional"), take("list"), take("append")] == [
        "",
        "`X`",
        "`[X]`",
        "`X …`",
        "`X`, repeatable",
    ]


def test_check_says_when_the_page_is_out_of_date(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert options_reference.main(["--check"]) == 1  # no page yet
    assert "is out of date" in capsys.readouterr().err
    assert options_reference.main([]) == 0
    assert options_reference.main(["--check"]) == 0
    (tmp_path / options_reference.PAGE).write_text("stale\n", encoding="utf-8")
    assert options_reference.main(["--check"]) == 1
