"""The pytest hooks: wiring only. Each hook delegates to the EvalSession on `config` (session/state.py); the
Controller (session/controller.py) is registered on the controller process and owns its own hooks."""

from __future__ import annotations

import pytest

from .session import options as _options
from .session.collect import CaseFile, RunItem, deselect_unselected
from .session.controller import Controller
from .session.fixtures import eval_agent, eval_mocks  # noqa: F401  (fixtures are found on the plugin module)
from .session.state import SESSION_KEY, WORKER_INPUT_KEY, EvalSession, get_session
from .session.wire import LOAD_ERROR_ATTR, RUN_ATTR, SKIP_ATTR


def pytest_addoption(parser):
    _options.add_options(parser)


def pytest_addhooks(pluginmanager):
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_load_initial_conftests(early_config, parser, args):
    # `-j N` is the reference tool's spelling of pytest-xdist's `-n N`: rewrite it before xdist reads it.
    args[:] = _options.concurrency_as_xdist(args, early_config.known_args_namespace)


def pytest_configure(config):
    config.addinivalue_line("markers", "plugin_eval: one run of a Claude Code plugin eval case")
    try:
        opts = _options.parse_options(config.option)
    except _options.OptionError as e:
        pytest.exit(str(e), returncode=1)
    session = EvalSession(config, opts)
    config.stash[SESSION_KEY] = session
    session.configure()
    if not session.is_worker:
        config.pluginmanager.register(Controller(session), "plugin_eval_controller")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    node.workerinput[WORKER_INPUT_KEY] = get_session(node.config).worker_input()


def pytest_report_header(config):
    return get_session(config).header_lines()


def pytest_sessionstart(session):
    get_session(session.config).start(session)


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path, config):
    return get_session(config).ignore(collection_path)


def pytest_collect_file(file_path, parent):
    eval_root = get_session(parent.config).case_file_root(file_path)
    if eval_root is not None:
        return CaseFile.from_parent(parent, path=file_path, eval_root=eval_root)
    return None


def pytest_collection_modifyitems(config, items):
    deselect_unselected(config, items)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    if isinstance(collector, CaseFile) and collector.load_error is not None:
        setattr(report, LOAD_ERROR_ATTR, collector.load_error_report().to_json())
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if isinstance(item, RunItem) and call.when == "call":
        run = item.run_report()
        if run is not None:
            setattr(report, RUN_ATTR, run.to_json())
            report.extras = [*getattr(report, "extras", []), *item.html_extras()]
        elif item.skipped_run is not None:
            setattr(report, SKIP_ATTR, item.skipped_run.to_json())
    return report


def pytest_unconfigure(config):
    if SESSION_KEY in config.stash:
        get_session(config).close()
