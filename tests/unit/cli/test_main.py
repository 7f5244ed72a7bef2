"""Unit tests for `plugin-eval` (pytest_plugin_eval.cli.main, usage.py and arguments.py): --version, --help, and how the command line's
list options reach pytest. In-process; the Claude Code binary is never started."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser

import pytest_plugin_eval.cli.main as cli
import pytest_plugin_eval.cli.usage as usage
from pytest_plugin_eval.cli.arguments import parse
from pytest_plugin_eval.engine.option_parse import parse_options
from pytest_plugin_eval.engine.options import OPTIONS
from pytest_plugin_eval.run.agent import ClaudeNotFound
from pytest_plugin_eval.session.addoption import add_options


@pytest.fixture
def fake_claude(monkeypatch):
    asked: list = []

    def find(explicit):
        asked.append(explicit)
        return Path(explicit or "/opt/claude/bin/claude")

    monkeypatch.setattr(usage, "find_claude", find)
    monkeypatch.setattr(usage, "claude_version", lambda path: "2.1.327")
    return asked


def test_version_prints_the_package_and_the_claude_code_it_would_use(fake_claude, capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"plugin-eval {importlib.metadata.version('pytest-plugin-eval')}",
        "Claude Code 2.1.327 (/opt/claude/bin/claude)",
    ]
    assert fake_claude == [None]


@pytest.mark.parametrize("args", [["--version", "--claude", "/x/claude"], ["--version", "--claude=/x/claude"]])
def test_version_honours_claude(fake_claude, capsys, args):
    assert cli.main(args) == 0
    assert capsys.readouterr().out.splitlines()[1] == "Claude Code 2.1.327 (/x/claude)"


def test_version_without_package_metadata_or_binary(monkeypatch, capsys):
    def no_metadata(name):
        raise importlib.metadata.PackageNotFoundError(name)

    def no_claude(explicit):
        raise ClaudeNotFound("Error: no Claude Code binary found — install claude-agent-sdk, or pass --claude PATH")

    monkeypatch.setattr(usage.importlib.metadata, "version", no_metadata)
    monkeypatch.setattr(usage, "find_claude", no_claude)
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "plugin-eval unknown",
        "Claude Code: none found — install claude-agent-sdk, or pass --claude PATH",
    ]


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_lists_the_subcommands_and_every_option(flag, capsys):
    assert cli.main([flag]) == 0
    out = capsys.readouterr().out
    assert "\n  init " in out and "plugin-eval init --bare NAME" in out and "--version" in out
    for option in OPTIONS:
        assert ", ".join(option.names) in out, option.name


@pytest.mark.parametrize("argv", [["triggers", "--help"], [".", "-h"], ["triggers", ".", "--trust-plugin", "-h"]])
def test_help_after_a_target_or_triggers_is_the_help_not_an_unknown_option(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "plugin-eval triggers [TARGET] [options]" in out and "--trust-plugin" in out
    assert parse(["--", "--help"]).passthrough == ["--help"]  # after `--` it is pytest's


def test_an_unknown_option_says_where_pytests_options_go(capsys):
    """`plugin-eval triggers --lf` said only "unknown option": pytest's options are passed on after `--`."""
    assert cli.main(["triggers", ".", "--lf"]) == 1
    assert capsys.readouterr().err.strip() == (
        "error: unknown option '--lf' — pytest's options go after `--` (plugin-eval . -- --lf); "
        "plugin-eval --help lists ours"
    )
    assert parse([".", "--", "--lf", "-q"]).passthrough == ["--lf", "-q"]


def test_a_value_option_does_not_take_the_pytest_separator(capsys):
    """`plugin-eval . --md -- -vv` took `--` for --md's PATH, then refused -vv with the advice to put it after `--`."""
    assert cli.main([".", "--md", "--", "-vv"]) == 1
    assert capsys.readouterr().err.strip() == "error: option '--md' argument missing"
    assert parse([".", "--md", "s.md", "--", "-vv"]).passthrough == ["-vv"]


def pytest_namespace(args: list[str]):
    parser = Parser(_ispytest=True)
    add_options(parser)
    return parser.parse(args)


def test_list_values_reach_pytest_one_by_one_so_nothing_after_them_is_swallowed():
    cmd = parse(["--allow-tools=Write,Bash(git commit:*)", "--tag", "a", "b,c", "--disallow-tools", "Agent"])
    assert cmd.options == ["--allow-tools=Write,Bash(git commit:*)", "--tag=a", "--tag=b,c", "--disallow-tools=Agent"]
    # what pytest then reads, with a path after the options (as pytest_args puts passthrough arguments)
    namespace = pytest_namespace([*cmd.options, "evals/my-case"])
    assert namespace.file_or_dir == ["evals/my-case"]
    opts = parse_options(namespace)
    assert opts.allow_tools == ("Write", "Bash(git commit:*)")
    assert opts.tags == ("a", "b", "c")
    assert opts.disallow_tools == ("Agent",)


def test_plugin_eval_takes_the_other_arms_options():
    cmd = parse(["--against", "v1.2.0", "--ablate", "review,hooks", "--fail-on-worse"])
    opts = parse_options(pytest_namespace([*cmd.options, "evals"]))
    assert (opts.against, opts.ablate, opts.fail_on_worse) == ("v1.2.0", ("review", "hooks"), True)
    with pytest.raises(Exception, match="--fail-on-worse decides on the against arm"):
        parse_options(pytest_namespace([*parse(["--fail-on-worse"]).options, "evals"]))


def test_help_names_init_triggers(capsys):
    """`init --triggers` wrote the trigger sets, but `plugin-eval --help` named it nowhere."""
    text = usage.help_text()
    assert "plugin-eval init --triggers [TARGET]" in text and "--triggers: a trigger set per skill" in text


def test_the_reference_tools_verbose_is_pytests():
    """`claude plugin eval --verbose` is the reference tool's option: plugin-eval refused it as unknown."""
    cmd = parse([".", "--trust-plugin", "--verbose"])
    assert cmd.options == ["--trust-plugin", "--verbose"]


def test_a_list_option_stops_at_the_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plugin").mkdir()
    cmd = parse(["--allow-tools", "Write,Edit", "plugin", "--trust-plugin"])
    assert (cmd.target, cmd.options) == ("plugin", ["--allow-tools=Write,Edit", "--trust-plugin"])


def test_every_command_of_the_table_is_a_function_of_a_command_module():
    import importlib

    for name, target in cli.COMMANDS.items():
        module, function = target.split(":")
        assert module.startswith(".commands."), name
        assert callable(getattr(importlib.import_module(module, "pytest_plugin_eval.cli"), function)), name
    assert set(cli.COMMANDS) >= {"init", "check", "import", "merge", "compare", "history", "triggers", "tune"}
