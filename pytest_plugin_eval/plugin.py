"""The pytest entry point. Every pytest run in an environment with the plugin installed loads this module, so it
only registers the options, the hookspecs and the fixtures; when the run evaluates something — it reaches an eval
dir, or eval options were given — it starts the eval session (session/hooks.py), which brings in the rest."""

from __future__ import annotations

import sys

import pytest
from _pytest.config import create_terminal_writer

from .load.suite import find_eval_roots
from .session import options as _options
from .session.fixtures import eval_agent, eval_mocks  # noqa: F401  (fixtures are found on the plugin module)


def pytest_addoption(parser):
    _options.add_options(parser)


def pytest_addhooks(pluginmanager):
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(trylast=True)  # after the terminal reporter exists
def pytest_configure(config):
    config.addinivalue_line("markers", "plugin_eval: one run of a Claude Code plugin eval case")
    try:
        options = _options.parse_options(config.option)
    except _options.OptionError as e:
        pytest.exit(str(e), returncode=1)
    if options.json_path == "-":
        terminal_to_stderr(config)
    roots = []
    for path in _options.collection_paths(config):
        roots += [root for root in find_eval_roots(path, options.eval_dir) if root not in roots]
    worker_of_eval = _options.WORKER_INPUT_KEY in getattr(config, "workerinput", {})
    if roots or worker_of_eval or _options.eval_options_given(config.option):
        from .session import hooks

        hooks.start(config, options, roots)


def terminal_to_stderr(config) -> None:
    """`--json` without a path prints the document on stdout: pytest's own output goes to stderr, so that stdout
    is the document alone."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal._tw = create_terminal_writer(config, sys.stderr)
