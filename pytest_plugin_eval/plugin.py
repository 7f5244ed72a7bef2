"""The pytest hooks. Each one delegates to the EvalSession on `config` (session.py)."""
from __future__ import annotations

import pytest

from . import options as _options
from .collect import CaseFile, RunItem
from .session import SESSION_KEY, WORKER_INPUT_KEY, EvalSession, get_session


def pytest_addoption(parser):
    _options.add_options(parser)


def pytest_addhooks(pluginmanager):
    from . import hookspecs
    pluginmanager.add_hookspecs(hookspecs)


@pytest.fixture
def eval_mocks(tmp_path):
    """A factory: eval_mocks(case_or_plugin_folder, arm="with") → the stand-in MCP servers that folder's runs get,
    for an agent a test runs itself (see pytest_plugin_eval.fixtures.MockStandIns)."""
    from .fixtures import stand_ins_for
    made = iter(range(1_000_000))
    return lambda path, arm="with": stand_ins_for(path, arm, tmp_path / f"mocks-{next(made)}")


@pytest.fixture
def eval_agent(request):
    """Runs the agent from a Python test (see pytest_plugin_eval.fixtures.AgentRunner)."""
    runner = get_session(request.config).agent_runner()
    yield runner
    runner.close()


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
    if session.controller is not None:
        config.pluginmanager.register(session.controller, "plugin_eval_controller")
    session.configure()


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
    get_session(config).filter_items(items)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    if isinstance(collector, CaseFile) and collector.load_error is not None:
        report.plugin_eval_load_error = get_session(collector.config).load_error_data(collector)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if isinstance(item, RunItem) and call.when == "call":
        if item.result is not None:
            report.plugin_eval = get_session(item.config).report_data(item)
            get_session(item.config).html_extras(item, report)
        elif item.skip_record is not None:
            report.plugin_eval_skip = item.skip_record
    return report


@pytest.hookimpl(optionalhook=True)
def pytest_html_results_summary(prefix, summary, postfix, session):
    controller = get_session(session.config).controller
    if controller is not None:
        controller.html_summary(prefix)


def pytest_sessionfinish(session):
    controller = get_session(session.config).controller
    if controller is not None:
        controller.finish(session)


def pytest_terminal_summary(terminalreporter):
    controller = get_session(terminalreporter.config).controller
    if controller is not None:
        controller.summary(terminalreporter)


def pytest_unconfigure(config):
    if SESSION_KEY in config.stash:
        get_session(config).close()
