"""Hooks for other plugins and conftest.py files (registered with `pytest_addhooks`)."""

from __future__ import annotations

import pytest


@pytest.hookspec
def pytest_plugin_eval_grader_types(config):
    """Return grader types to add, usable from graders/*.md by their `type:`.

    Each is a :class:`pytest_plugin_eval.GraderType` instance (or subclass) with a unique `name`, its own
    frontmatter `keys`, `parse(raw, body, case_dir)` (validate at load; raise SpecError naming the key) and
    `grade(config, run, ctx)` returning a Verdict. Called before cases load, so conftest.py files beside the
    cases count too.
    """
