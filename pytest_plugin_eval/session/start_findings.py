"""The pre-run findings (lint/), said as the session starts, before a run is paid for: the same rules as
`plugin-eval check`, under this session's grants. The results document and the summary list them again, with
those read from the runs. (Under pytest-xdist the controller collects no items: the summary says them.)"""

from __future__ import annotations

import pytest

from ..engine.rules import grants_of
from ..engine.session_view import SessionView
from ..lint.grants import KIND as NOT_GRANTED
from ..lint.suite import lint_cases
from ..load.case import Case
from ..results.findings import Finding
from .items.case import RunItem

HEADING = (
    "plugin-eval: ⚑ {n} finding(s) before running — cases that may measure less than they seem (docs/findings.md):"
)


def start_findings(session: SessionView, items: list[pytest.Item]) -> list[Finding]:
    cases: dict[str, Case] = {}
    for item in items:
        if isinstance(item, RunItem) and item.case.trigger is None:
            cases.setdefault(str(item.case.dir), item.case)
    found = lint_cases(cases.values(), grants_of(session.options))
    if session.stored is not None:  # regrading: the stored runs were granted what they were
        found = [f for f in found if f.kind != NOT_GRANTED]
    return found


def say_start_findings(session: SessionView, pytest_session: pytest.Session) -> None:
    found = start_findings(session, list(pytest_session.items))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not found or reporter is None:
        return
    reporter.write_line(HEADING.format(n=len(found)))
    for finding in found:
        reporter.write_line(f'  ⚑ case "{finding.case}": {finding.line()}')
