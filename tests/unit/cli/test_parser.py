"""The commands' argument parsing (cli/parser.py): a subcommand's option that a session takes too is refused by the
option table's own parser, in the session's words."""

from __future__ import annotations

import argparse

import pytest

from pytest_plugin_eval.cli.main import main
from pytest_plugin_eval.cli.parser import checked_as_the_session


def test_a_value_the_session_takes_is_kept_as_given():
    assert checked_as_the_session("--eval-dir")("qa/evals") == "qa/evals"
    assert checked_as_the_session("--model")("haiku, sonnet") == "haiku, sonnet"


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("--eval-dir", "../outside", "--eval-dir must stay inside the plugin root"),
        ("--eval-dir", "/abs", "--eval-dir must stay inside the plugin root"),
        ("--eval-dir", "skills/x", "--eval-dir must not be inside the plugin's skills/"),
        ("--model", "a,,b", "--model a,,b: an empty model name"),
    ],
)
def test_a_value_the_session_refuses_is_refused_in_its_words(name, raw, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        checked_as_the_session(name)(raw)


@pytest.mark.parametrize("command", [["init", "--bare", "case"], ["import"], ["check"], ["history"]])
def test_no_command_reads_or_writes_an_eval_dir_outside_the_plugin(command, tmp_path, monkeypatch, capsys):
    """init --bare --eval-dir ../outside wrote the case beside the plugin, not in it."""
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    monkeypatch.chdir(plugin)
    with pytest.raises(SystemExit) as exit:
        main([*command, "--eval-dir", "../outside"])
    assert exit.value.code == 2
    assert "argument --eval-dir: --eval-dir must stay inside the plugin root" in capsys.readouterr().err
    assert not (tmp_path / "outside").exists()


def test_tune_refuses_it_too(tmp_path, capsys):
    assert main(["tune", "greet", str(tmp_path), "--trust-plugin", "--eval-dir", "../outside"]) == 1
    assert "--eval-dir must stay inside the plugin root" in capsys.readouterr().err
