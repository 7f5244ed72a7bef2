"""Fixtures the unit tests share (what they build from is in tests/helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.plugin import Suite

from pytest_plugin_eval.run import workspace


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    """A plugin `p` with one skill and an empty evals/ folder, under tmp_path/plugin."""
    return Suite(tmp_path)


@pytest.fixture(autouse=True)
def short_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs' TMPDIRs (Workspace.create) go to the tests' own temp folder, not /tmp, which nothing would clean."""
    base = tmp_path_factory.getbasetemp() / "short-tmp"
    base.mkdir(exist_ok=True)
    monkeypatch.setattr(workspace, "SHORT_TMP", base)
    return base
