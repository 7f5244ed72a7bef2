"""Every use of pytest's internals, in one place: what the plugin needs that pytest has no public API for.

Each was checked against pytest 8.2.0 (the oldest pyproject.toml allows) and 9.2.0 (installed when this was
written); when pytest changes one, this is the only file to change. Nothing here is imported that pytest has not
already imported itself, so the plugin's import cost is unchanged.
"""

from __future__ import annotations

from typing import IO, Any, TextIO

import pytest

# `create_terminal_writer(config, file)`: the writer the terminal reporter makes, with pytest's colour and width
# settings. 8.2.0: _pytest/config/__init__.py; 9.2.0: the same.
from _pytest.config import create_terminal_writer

# The stash key under which --junitxml keeps its LogXML. 8.2.0 and 9.2.0: `_pytest.junitxml.xml_key`.
from _pytest.junitxml import xml_key


def redirect_terminal(config: pytest.Config, file: TextIO) -> None:
    """Send pytest's terminal output to `file`: the terminal reporter's writer, `TerminalReporter._tw`
    (8.2.0, 9.2.0), is replaced by one made as pytest makes it."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal._tw = create_terminal_writer(config, file)


def terminal_writer(terminal: Any) -> Any:
    """The terminal reporter's TerminalWriter (`fullwidth`, `width_of_current_line`): `TerminalReporter._tw`
    (8.2.0, 9.2.0)."""
    return terminal._tw


def terminal_file(terminal: Any) -> IO[str]:
    """The stream under the terminal reporter's writer, to write past it: `TerminalWriter._file` (8.2.0, 9.2.0)."""
    return terminal._tw._file


def set_last_failed_status(config: pytest.Config, status: str) -> None:
    """The "run-last-failure: …" header line --lf prints: `LFPlugin._report_status` (8.2.0, 9.2.0), set before
    the terminal reporter prints it (in a tryfirst pytest_collection_finish)."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    if lf is not None and hasattr(lf, "_report_status"):
        lf._report_status = status


def add_short_option(group: pytest.OptionGroup, names: tuple[str, ...], **kwargs: Any) -> None:
    """Register an option with a lowercase short name, which `OptionGroup.addoption` reserves for pytest itself;
    `OptionGroup._addoption` (8.2.0, 9.2.0) is how plugins such as pytest-xdist (-n) register theirs."""
    group._addoption(*names, **kwargs)


def junit_xml(config: pytest.Config) -> Any:
    """The --junitxml writer (a LogXML), or None without --junitxml."""
    return config.stash.get(xml_key, None)


def child_node_id(parent: pytest.Collector, name: str, params: str) -> dict[str, Any]:
    """The `nodeid=` keyword for an item `name[params]` of `parent`: pytest ≥ 9 keeps node ids structured
    (`Node.id`, a NodeId with `child` and `with_params`; 9.2.0), so that ids read back from the cache (--lf,
    --ff) match the items; older pytest (8.2.0 has no NodeId) builds the id from the name itself."""
    parent_id = getattr(parent, "id", None)
    if parent_id is None or not hasattr(parent_id, "with_params"):
        return {}
    return {"nodeid": parent_id.child(name).with_params(params)}


def forget_config_file(config: pytest.Config) -> None:
    """A session run with `-c os.devnull` has no config file: `Config._inipath` (8.2.0, 9.2.0), which the session
    header reads, is unset; pytest has no public way to run without one."""
    config._inipath = None
