"""Fixtures the unit tests share (what they build from is in tests/helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.plugin import Suite


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    """A plugin `p` with one skill and an empty evals/ folder, under tmp_path/plugin."""
    return Suite(tmp_path)
