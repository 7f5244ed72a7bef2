"""The trust decision: asked once per plugin folder at a terminal, remembered, required without one."""

from __future__ import annotations

import io

import pytest

from pytest_plugin_eval.engine import trust


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def test_without_a_terminal_an_unknown_folder_stops_the_session(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    with pytest.raises(trust.TrustRefused, match="--trust-plugin"):
        trust.confirm_trust([tmp_path])


def test_a_yes_at_the_terminal_is_remembered_for_later_sessions(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    monkeypatch.setattr("sys.stdout", Terminal())
    trust.confirm_trust([tmp_path / "plugin"])
    assert str((tmp_path / "plugin").resolve()) in trust.trusted_folders()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # later: no terminal, no question
    trust.confirm_trust([tmp_path / "plugin"])


def test_a_no_is_not_remembered(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    monkeypatch.setattr("sys.stdout", Terminal())
    with pytest.raises(trust.TrustRefused, match="Not trusted"):
        trust.confirm_trust([tmp_path])
    assert trust.trusted_folders() == set()
