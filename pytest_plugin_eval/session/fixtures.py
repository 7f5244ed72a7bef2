"""The `eval_agent` and `eval_mocks` fixtures: run the agent from a Python test, with the isolation, limits and
endpoint of a case run, and assert on the result with the grader helpers.

    def test_commit_message(eval_agent):
        run = eval_agent.run("Write a commit message for the rename", plugin="example_plugin")
        assert_regex(run, r"^refactor")

This module is loaded with the plugin by every pytest run, so what the fixtures need is imported when they are
used.
"""

from __future__ import annotations

import itertools

import pytest


@pytest.fixture
def eval_agent(request):
    """Runs the agent from a Python test (see session.agent_runner.AgentRunner)."""
    from ..engine.agent_runner import AgentRunner
    from .eval_session import session_for

    runner = AgentRunner(session_for(request.config))
    yield runner
    runner.close()


@pytest.fixture
def eval_mocks(tmp_path):
    """A factory: eval_mocks(case_or_plugin_folder, arm="with") → the stand-in MCP servers that folder's runs get,
    for an agent a test runs itself (see session.agent_runner.MockStandIns)."""
    from ..engine.agent_runner import stand_ins_for

    made = itertools.count()
    return lambda path, arm="with": stand_ins_for(path, arm, tmp_path / f"mocks-{next(made)}")
