"""The hooks of an eval session, registered (with the Controller, on the controller process) only when a pytest
run evaluates something. Each is a line that delegates: to the EvalSession on `config`, or to items/case.py for
what concerns the items (what each kind of item carries on its reports is the item's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..engine.options import WORKER_INPUT_KEY, EvalOptions
from .controller import Controller
from .eval_session import SESSION_KEY, EvalSession, get_session
from .items import case as case_items
from .items import triggers as trigger_items


def start(config: pytest.Config, options: EvalOptions, eval_roots: list[Path]) -> None:
    """Make this pytest run an eval session."""
    session = EvalSession(config, options)
    config.stash[SESSION_KEY] = session
    session.configure(eval_roots)
    config.pluginmanager.register(sys.modules[__name__], "plugin_eval_session")
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
    return case_items.collect_file(file_path, parent) or trigger_items.collect_file(file_path, parent)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):  # an eval dir also collects the trigger files of skill folders
    return trigger_items.eval_dir(path, parent)


@pytest.hookimpl(trylast=True)  # after pytest's own --lf has chosen the files
def pytest_collection_modifyitems(config, items):
    case_items.choose(config, items)


def pytest_report_collectionfinish(config, items):  # said before the first run: how long the runs will take
    return get_session(config).collection_lines(items)


@pytest.hookimpl(tryfirst=True)  # before pytest's own loop (which answers the hook); after collection, when the
def pytest_runtestloop(session):  # controller has made sure the results can be written
    get_session(session.config).pool.start(case_items.pooled(session.items))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):  # one at a time, the next run's agent is started ahead
    case_items.before(item, nextitem)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    return case_items.with_load_error(collector, (yield))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    return case_items.carried(item, call.when, (yield))


def pytest_unconfigure(config):
    get_session(config).close()
