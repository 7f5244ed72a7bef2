"""The pre-run findings (lint/), said as the session starts, before a run is paid for: the same rules as
`plugin-eval check`, under this session's grants. Asked of the run items' node ids, so they are said once and the
same with and without pytest-xdist (whose controller has the workers' ids, not their items). The results document
and the summary list them again, with those read from the runs."""

from __future__ import annotations

from collections.abc import Iterable

from ..lint.grants import KIND as NOT_GRANTED
from ..lint.suite import lint_cases
from ..results.findings import Finding
from .linted_cases import cases_of_nodeids
from .rules import grants_of
from .session_view import SessionView

HEADING = (
    "plugin-eval: ⚑ {n} finding(s) before running — cases that may measure less than they seem (docs/findings.md):"
)


def start_findings(session: SessionView, nodeids: Iterable[str]) -> list[Finding]:
    found = lint_cases(cases_of_nodeids(session, nodeids), grants_of(session.options))
    if session.stored is not None:  # regrading: the stored runs were granted what they were
        found = [f for f in found if f.kind != NOT_GRANTED]
    return found


def say_start_findings(session: SessionView, nodeids: Iterable[str]) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    found = start_findings(session, nodeids)
    if not found:
        return
    reporter.write_line(HEADING.format(n=len(found)))
    for finding in found:
        reporter.write_line(f'  ⚑ case "{finding.case}": {finding.line()}')
