"""The controller's half of trigger evals: the trigger runs' reports gathered per eval dir and set, each query's
verdict reported as a test of its own once the session ends (`<trigger file>::<skill>/<query>`), and what the
sets add to the document, the exit status and the terminal."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..engine.collected import Collected
from ..engine.options import TRIGGER_MARKER
from ..engine.trigger_outcomes import query_properties, set_failures
from ..engine.wire import TriggerReport
from ..report import triggers as text
from ..results.matrix import model_dirname
from . import verdicts

# A trigger run's parameters: [run-2], in a model matrix [haiku-run-2] (session/items/case.py's run_params).
# A run of --against's version: [against-run-2] ([haiku-against-run-2]).
TRIGGER_PARAMS = re.compile(r"\[(?:(?P<model>[^\[\]]+?)-)??(?:against-)?run-\d+\]$")


@dataclass
class TriggerGather:
    """The trigger runs' reports, into each eval dir's SuiteRuns.trigger_sets (collected.py)."""

    collected: Collected
    # (set key, model) → (node file, label)
    files: dict[tuple[tuple[str, str], str | None], tuple[str, str]] = field(default_factory=dict)
    order: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (set key, query id) → position
    expected: set[str] = field(default_factory=set)  # query node ids, for the progress count
    runs: set[str] = field(default_factory=set)  # trigger run node ids: runs the progress line counts

    def expect(self, nodeids) -> None:
        for nodeid in map(str, nodeids):
            match = TRIGGER_PARAMS.search(nodeid)
            if match is not None:  # a query's verdict (on each model of a matrix)
                self.expected.add(nodeid.rsplit("[", 1)[0] + (f"[{match['model']}]" if match["model"] else ""))
                self.runs.add(nodeid)

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
        runs = query.against_runs if report.arm == "against" else query.runs
        runs.append(report.run)
        runs.sort(key=lambda r: r.index)
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


def report_test(
    config: pytest.Config,
    nodeid: str,
    outcome: str,
    message: str,
    junit_names: tuple[str, str],
    properties: list[tuple[str, object]],
) -> None:
    """A trigger query's or set's verdict as a test `<trigger file>::<set>[/<query>]` (verdicts.report_verdict)."""
    node_file, name = nodeid.split("::", 1)
    keywords: dict[str, Any] = {name: 1, "plugin_eval": 1, TRIGGER_MARKER: 1}
    headline = message.splitlines()[0] if message else ""
    verdicts.report_verdict(
        config, nodeid, (node_file, None, name), keywords, outcome, message, headline, junit_names, properties
    )
