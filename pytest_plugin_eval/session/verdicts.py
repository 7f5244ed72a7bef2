"""Each case's verdict as a pytest test of its own, and readable JUnit.

Runs are pytest items, but whether a case passes depends on all of its runs — possibly on several xdist workers.
So once the controller has every run of a case, it reports the case as one more test under its own name,
`<case file>::<case name>`: failed when the case is below the threshold (the reason on its first line), passed
otherwise. Run items themselves fail only when the harness could not run them. The terminal, `-x`, JUnit XML and
pytest-html all see these reports; the exit status counts the same cases.

JUnit gets readable names: a case is `<plugin>` / `<case>`, a run `<plugin>.<case>` / `with-plugin-2`, and each
case records its score, Δ, runs and cost as properties.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest

from ..results.model import CaseResult
from ..results.verdict import CaseVerdict
from .pytest_internals import junit_xml

CASE_KEYWORD = "plugin_eval_case"
VERDICT_ATTR = "plugin_eval_verdict"  # on a case's call report: the verdict's headline
JUNIT_ATTR = "plugin_eval_junit"  # on every report of a run item: [classname, name]


@dataclass(frozen=True)
class VerdictRepr:
    """The failure text of a case: pytest prints it whole; its first line is the short summary and JUnit's
    message."""

    text: str

    @property
    def reprcrash(self) -> Any:
        return _Crash(self.text.split("\n", 1)[0])

    def toterminal(self, tw) -> None:
        for line in self.text.split("\n"):
            tw.line(line, red=line.startswith("✗"))

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class _Crash:
    message: str
    path: str = ""
    lineno: int = 0


def report_case(
    config: pytest.Config, case_file: str, label: str, case: CaseResult, verdict: CaseVerdict, model: str | None = None
) -> None:
    """Report `case`'s verdict as a test named `<case file>::<case name>` (on one model of a matrix:
    `<case file>::<case name>[<model>]`)."""
    nodeid = f"{case_file}::{case.name}" if model is None else f"{case_file}::{case.name}[{model}]"
    on = "" if model is None else f" on {model}"
    report_verdict(
        config,
        nodeid,
        (case_file, None, f"{case.name} (the case, over its runs{on})"),
        {case.name: 1, CASE_KEYWORD: 1, "plugin_eval": 1},
        verdict.outcome,
        verdict.text,
        verdict.headline,
        (label, case.name),
        properties(case),
        duration=sum(run.duration_seconds for run in case.runs()),
    )


def report_verdict(
    config: pytest.Config,
    nodeid: str,
    location: tuple[str, int | None, str],
    keywords: dict[str, Any],
    outcome: str,
    text: str,
    headline: str,
    junit_names: tuple[str, str],
    props: list[tuple[str, object]],
    duration: float = 0.0,
) -> None:
    """One verdict (a case's, a trigger query's or set's) through pytest's report hooks, as a test of its own:
    a synthetic start, a report for setup, call and teardown (the call carries the outcome, `text` when it failed,
    `headline` when skipped and for the progress line, the JUnit names and properties), and the finish."""
    now = time.time()
    hook = config.hook
    hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    for when in ("setup", "call", "teardown"):
        result: Any = "passed"
        longrepr: Any = None
        if when == "call" and outcome == "failed":
            result, longrepr = "failed", VerdictRepr(text)
        elif when == "call" and outcome == "skipped":
            result, longrepr = "skipped", (location[0], 0, f"Skipped: {headline}")
        report = pytest.TestReport(
            nodeid,
            location,
            keywords,
            result,
            longrepr,
            when,
            duration=duration if when == "call" else 0.0,
            start=now,
            stop=now,
            user_properties=props if when == "call" else (),
        )
        if when == "call":
            setattr(report, VERDICT_ATTR, headline)
        junit(config, report, *junit_names, props if when == "call" else ())
        hook.pytest_runtest_logreport(report=report)
    hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)


def properties(case: CaseResult) -> list[tuple[str, object]]:
    agg = case.aggregates
    out: list[tuple[str, object]] = [("score", agg.score)]
    if case.two_arm:
        out += [("scoreWithout", agg.score_without), ("delta", agg.delta)]
    out += [("runs", len(case.runs())), ("costUsd", round(case.cost_usd, 6))]
    return out


def junit(config: pytest.Config, report: pytest.TestReport, classname: str, name: str, props: Any = ()) -> None:
    """Readable names (and properties) for a report's testcase in JUnit XML, when --junitxml is on."""
    xml = junit_xml(config)
    if xml is None:
        return
    reporter = xml.node_reporter(report)
    reporter.add_attribute("classname", classname)
    reporter.add_attribute("name", name)
    for key, value in props:
        reporter.add_property(key, "" if value is None else value)
