"""The hooks of an eval session, registered (with the Controller, on the controller process) only when a pytest
run evaluates something. Each delegates to the EvalSession on `config`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..results.model import RunResult
from .collect import CaseFile, RunItem, deselect_unselected, failed_last_time, in_rounds, this_shard
from .controller import Controller
from .options import WORKER_INPUT_KEY, EvalOptions
from .progress import run_word
from .state import SESSION_KEY, EvalSession, get_session
from .trigger_items import TRIGGER_ATTR, EvalDir, TriggerFile, TriggerItem, in_skill_folder, trigger_word
from .verdicts import JUNIT_ATTR, VERDICT_ATTR
from .wire import LOAD_ERROR_ATTR, RUN_ATTR, SKIP_ATTR, UNNEEDED_ATTR


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
    session = get_session(parent.config)
    eval_root = session.case_file_root(file_path)
    if eval_root is not None:
        return CaseFile.from_parent(parent, path=file_path, eval_root=eval_root)
    trigger_root = session.trigger_file_root(file_path)
    if trigger_root is not None and not in_skill_folder(file_path):  # those come with the suite (EvalDir)
        return TriggerFile.from_parent(parent, path=file_path, eval_root=trigger_root)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):
    if get_session(parent.config).eval_root(path) == path and not (path / "__init__.py").exists():
        return EvalDir.from_parent(parent, path=path)
    return None


@pytest.hookimpl(trylast=True)  # after pytest's own --lf has chosen the files
def pytest_collection_modifyitems(config, items):
    deselect_unselected(config, items)
    this_shard(config, items)
    failed_last_time(config, items)
    in_rounds(config, items)


@pytest.hookimpl(tryfirst=True)  # before pytest's own loop (which answers the hook); after collection, when the
def pytest_runtestloop(session):  # controller has made sure the results can be written
    get_session(session.config).pool.start(item for item in session.items if isinstance(item, RunItem))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):  # one at a time, the next run's agent is started ahead
    if isinstance(item, RunItem):
        get_session(item.config).pool.upcoming(item, nextitem)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    if isinstance(collector, CaseFile):  # a trigger file too
        error = collector.load_error_report()
        if error is not None:
            setattr(report, LOAD_ERROR_ATTR, error.to_json())
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if isinstance(item, RunItem):
        setattr(report, JUNIT_ATTR, item.junit_names())
    if isinstance(item, TriggerItem) and call.when == "call":
        trigger = item.trigger_report()
        if trigger is not None:
            setattr(report, TRIGGER_ATTR, trigger)
            report.duration = trigger["run"]["durationSeconds"]
    if isinstance(item, RunItem) and call.when == "call":
        run = item.run_report()
        skip = item.skip_report()
        if run is not None:
            setattr(report, RUN_ATTR, run.to_json())
            report.duration = run.run.duration_seconds  # the run's own time, not the wait for it (-j)
            report.extras = [*getattr(report, "extras", []), *item.html_extras()]
        elif skip is not None:
            setattr(report, SKIP_ATTR, skip.to_json())
        elif item.unneeded is not None:
            setattr(report, UNNEEDED_ATTR, item.unneeded)
    return report


def pytest_report_teststatus(report, config):
    """A run's line says how it went (-v), and without a terminal the controller's line replaces its dot."""
    headline = getattr(report, VERDICT_ATTR, None)
    if headline is not None:  # a case's verdict
        if report.failed:
            return "failed", "F", ("FAILED", {"red": True})
        return report.outcome, "." if report.passed else "s", (f"{report.outcome.upper()} {headline}", {})
    if getattr(report, UNNEEDED_ATTR, None) is not None:  # --runs auto: its case had had enough runs
        return "not needed", "", "NOT NEEDED"
    trigger = getattr(report, TRIGGER_ATTR, None)
    if trigger is not None and report.when == "call":
        word = trigger_word(trigger["run"])
        if report.failed:
            return "failed", "F", (f"FAILED {word}", {"red": True})
        return "passed", ".", (f"PASSED {word}", {"green": True})
    data = getattr(report, RUN_ATTR, None)
    if data is None or report.when != "call":
        return None
    run = RunResult.from_json(data["run"], data["arm"])
    controller = config.pluginmanager.get_plugin("plugin_eval_controller")
    progress = getattr(controller, "progress", None)
    word = progress.word(run) if progress is not None else run_word(run)
    if report.failed:
        return "failed", "F", (f"FAILED {word}", {"red": True})
    return "passed", ".", (f"PASSED {word}", {"green": True})


def pytest_unconfigure(config):
    get_session(config).close()
