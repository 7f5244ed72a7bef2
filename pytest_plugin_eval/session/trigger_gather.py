"""The controller's half of trigger evals: the trigger runs' reports gathered per eval dir and set, each query's
verdict reported as a test of its own once the session ends (`<trigger file>::<skill>/<query>`), and what the
sets add to the document, the exit status and the terminal."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..report import triggers as text
from ..results.matrix import model_dirname
from ..results.model import PartialReason
from ..results.triggers import QueryResult, TriggerSetResult
from . import verdicts
from .gathered import Collected
from .wire import TriggerReport

# A trigger run's parameters: [run-2], in a model matrix [haiku-run-2] (collect.run_params).
TRIGGER_PARAMS = re.compile(r"\[(?:(?P<model>[^\[\]]+)-)?run-\d+\]$")


@dataclass
class TriggerGather:
    """The trigger runs' reports, into each eval dir's SuiteRuns.trigger_sets (gathered.py)."""

    collected: Collected
    # (set key, model) → (node file, label)
    files: dict[tuple[tuple[str, str], str | None], tuple[str, str]] = field(default_factory=dict)
    order: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (set key, query id) → position
    expected: set[str] = field(default_factory=set)  # query node ids, for the progress count

    def expect(self, nodeids) -> None:
        for nodeid in map(str, nodeids):
            match = TRIGGER_PARAMS.search(nodeid)
            if match is not None:  # a query's verdict (on each model of a matrix)
                self.expected.add(nodeid.rsplit("[", 1)[0] + (f"[{match['model']}]" if match["model"] else ""))

    @property
    def files_expected(self) -> list[str]:
        """The trigger files of the runs expected (their eval dirs' results folders are claimed before runs)."""
        return list(dict.fromkeys(nodeid.split("::", 1)[0] for nodeid in self.expected))

    def record(self, report: TriggerReport, nodeid: str) -> None:
        sets = self.collected.of(report.eval_root, report.model).trigger_sets
        key = report.trigger_set.key()
        trigger_set = sets.setdefault(key, report.trigger_set)
        self.order[(key[0], key[1], report.query.id)] = report.position
        query = next((q for q in trigger_set.queries if q.id == report.query.id), None)
        if query is None:
            query = report.query
            trigger_set.queries.append(query)
            trigger_set.queries.sort(key=lambda q: self.order.get((key[0], key[1], q.id), 0))
        query.runs.append(report.run)
        query.runs.sort(key=lambda r: r.index)
        self.files[(key, report.model)] = (nodeid.split("::", 1)[0], report.label)

    def failed(self, options) -> bool:
        """A query decided on the wrong side, or a set past --min-recall / --max-false-fire: the session fails."""
        return any(
            set_failures(s, options) for suite in self.collected.suites.values() for s in suite.trigger_sets.values()
        )

    def report_verdicts(self, config: pytest.Config, options) -> None:
        """Each query's verdict, and (when a threshold is set) each set's, as pytest tests of their own."""
        for suite in self.collected.suites.values():
            for key, trigger_set in suite.trigger_sets.items():
                node_file, label = self.files.get((key, suite.model), (trigger_set.file, ""))
                on = "" if suite.model is None else f"[{model_dirname(suite.model)}]"
                classname = f"{label}.triggers.{trigger_set.name}"
                if sum(1 for s in suite.trigger_sets.values() if s.skill == trigger_set.skill) > 1:
                    classname += f"[{trigger_set.file}]"  # one skill's sets in two files: each its own tests
                for query in trigger_set.queries:
                    outcome, message = text.verdict_text(query, trigger_set)
                    report_test(
                        config,
                        f"{node_file}::{trigger_set.name}/{query.id}{on}",
                        outcome,
                        message,
                        junit_names=(classname, query.id),
                        properties=query_properties(query, trigger_set),
                    )
                failures = set_failures(trigger_set, options)
                if options.min_recall is not None or options.max_false_fire is not None:
                    report_test(
                        config,
                        f"{node_file}::{trigger_set.name}{on}",
                        "failed" if failures else "passed",
                        "\n".join(f"✗ {f}" for f in failures) or text.skill_line(trigger_set),
                        junit_names=(f"{label}.triggers", trigger_set.name),
                        properties=[],
                    )


def partial_reason(sets: list[TriggerSetResult]) -> PartialReason | None:
    """Why the trigger runs leave the session partial: a run that erred decided nothing, so its query was measured
    on fewer runs (named as a case run's error would name it)."""
    kinds = {run.error_kind for s in sets for run in s.runs if run.fired is None}
    kinds.discard("interrupted")  # the session's own reason says it
    reasons: tuple[tuple[str, PartialReason], ...] = (
        ("worker_lost", "worker_lost"),
        ("auth", "auth_failed"),
        ("api", "api_error"),
    )
    for kind, reason in reasons:
        if kind in kinds:
            return reason
    return "trigger_run_error" if kinds else None


def set_failures(trigger_set: TriggerSetResult, options) -> list[str]:
    """What fails a trigger set: a query decided on the wrong side, recall or false-fire rate past its bound."""
    out = [f"{q.id}: {text.verdict_text(q, trigger_set)[1].splitlines()[0]}" for q in trigger_set.wrong]
    recall, false_fire = trigger_set.recall, trigger_set.false_fire_rate
    if options.min_recall is not None and recall.value is not None and recall.value < options.min_recall:
        out.append(f"recall {recall.count}/{recall.of} is below --min-recall {options.min_recall:g}")
    if (
        options.max_false_fire is not None
        and false_fire.value is not None
        and false_fire.value > options.max_false_fire
    ):
        out.append(
            f"false-fire rate {false_fire.count}/{false_fire.of} is above --max-false-fire {options.max_false_fire:g}"
        )
    return out


def query_properties(query: QueryResult, trigger_set: TriggerSetResult) -> list[tuple[str, object]]:
    return [
        ("shouldFire", query.should_fire),
        ("fires", query.fires),
        ("runs", len(query.decided)),
        ("verdict", query.verdict(trigger_set.threshold)),
    ]


def report_test(
    config: pytest.Config,
    nodeid: str,
    outcome: str,
    message: str,
    junit_names: tuple[str, str],
    properties: list[tuple[str, object]],
) -> None:
    """One verdict through pytest's report hooks, as verdicts.report_case reports a case's."""
    node_file, name = nodeid.split("::", 1)
    location = (node_file, None, name)
    keywords: dict[str, Any] = {name: 1, "plugin_eval": 1, "plugin_eval_trigger": 1}
    now = time.time()
    config.hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    for when in ("setup", "call", "teardown"):
        result: Any = "passed"
        longrepr: Any = None
        if when == "call" and outcome == "failed":
            result, longrepr = "failed", verdicts.VerdictRepr(message)
        elif when == "call" and outcome == "skipped":
            result, longrepr = "skipped", (node_file, 0, f"Skipped: {message}")
        report = pytest.TestReport(
            nodeid,
            location,
            keywords,
            result,
            longrepr,
            when,
            duration=0.0,
            start=now,
            stop=now,
            user_properties=properties if when == "call" else (),
        )
        if when == "call":
            setattr(report, verdicts.VERDICT_ATTR, message.splitlines()[0])
        verdicts.junit(config, report, *junit_names, properties if when == "call" else ())
        config.hook.pytest_runtest_logreport(report=report)
    config.hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
