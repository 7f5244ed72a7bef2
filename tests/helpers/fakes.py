"""Fakes of what the plugin talks to: the judge's client, and the parts of pytest's config a session reports
through (`config.hook`'s report hooks and the JUnit XML writer's node reporters)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_plugin_eval.grade.judge import Ballot, JudgeUnavailable


class FakeJudge:
    """A judge: every ballot is `ballot`, by default `votes` for `cost` dollars; with `error` it is unavailable.
    `calls` holds each (grader, content) it was asked about."""

    def __init__(
        self,
        ballot: Ballot | None = None,
        *,
        votes: tuple[bool, ...] = (True, True),
        cost: float = 0.004,
        error: str | None = None,
        model: str = "claude-haiku-5-5",
    ):
        self.model = model
        self._ballot = ballot if ballot is not None else Ballot(votes=list(votes), cost_usd=cost)
        self._error = error
        self.calls: list[tuple[str, list]] = []

    @property
    def asked(self) -> list[str]:
        return [grader for grader, _ in self.calls]

    def ballot(self, grader: str, content: list[dict]) -> Ballot:
        self.calls.append((grader, content))
        if self._error is not None:
            raise JudgeUnavailable(self._error)
        return self._ballot


class Recorder:
    """A JUnit node reporter of FakeLogXML: what was set on one testcase, also appended in order to a log it may
    share with a FakeHook."""

    def __init__(self, nodeid: str, log: list):
        self.nodeid, self.log = nodeid, log
        self.attributes: dict[str, object] = {}
        self.properties: list[tuple[str, object]] = []

    def add_attribute(self, name: str, value: object) -> None:
        self.attributes[name] = value
        self.log.append(("attribute", self.nodeid, name, value))

    def add_property(self, name: str, value: object) -> None:
        self.properties.append((name, value))
        self.log.append(("property", self.nodeid, name, value))


class FakeLogXML:
    """pytest's LogXML as far as a session uses it: a node reporter per test id."""

    def __init__(self, log: list | None = None):
        self.log = [] if log is None else log
        self.reporters: dict[str, Recorder] = {}

    def node_reporter(self, report: pytest.TestReport) -> Recorder:
        return self.reporters.setdefault(str(report.nodeid), Recorder(str(report.nodeid), self.log))


class FakeHook:
    """`config.hook`: records the report hooks called, in order, in `calls` (a list it may share with a
    FakeLogXML), and hands each report on to `forward` (a LogXML, a Controller) as pytest would."""

    def __init__(self, calls: list | None = None, forward: Any = None):
        self.calls = [] if calls is None else calls
        self.forward = forward

    def pytest_runtest_logstart(self, *, nodeid: str, location: tuple) -> None:
        self.calls.append(("logstart", nodeid, location))

    def pytest_runtest_logreport(self, *, report: pytest.TestReport) -> None:
        self.calls.append(("logreport", report.when, report))
        if self.forward is not None:
            self.forward.pytest_runtest_logreport(report)

    def pytest_runtest_logfinish(self, *, nodeid: str, location: tuple) -> None:
        self.calls.append(("logfinish", nodeid, location))

    @property
    def reports(self) -> list[pytest.TestReport]:
        return [call[2] for call in self.calls if call[0] == "logreport"]

    @property
    def verdicts(self) -> list[pytest.TestReport]:
        """The call report of each case's verdict, in the order they were reported."""
        return [report for report in self.reports if report.when == "call"]

    @property
    def outcomes(self) -> list[tuple[str, str]]:
        return [(str(r.nodeid), r.outcome) for r in self.verdicts]
