"""Every JSON document the tool writes for a person or another tool to read, in one list: each is a `jsonmap`
Document that reads back, and `tests/unit/results/test_registry.py` round-trips each through its golden file and
fails on a top-level Document that is missing here — so a new document cannot be forgotten.

Classes are named, not imported: some documents live above results/ (tune's, check's), and reading this list
must not load them. What stays outside (scratch files, files in another program's format) is listed in
`NOT_DOCUMENTS` with the reason.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any

from .jsonmap import Document


@dataclass(frozen=True)
class DocumentKind:
    """One document: `name` as a person knows it, `cls` as `module:Class` under pytest_plugin_eval, and how the tool
    writes it (`indent`, `ascii`: non-ASCII escaped)."""

    name: str
    cls: str
    written_by: str
    indent: int = 1
    ascii: bool = False
    part_of: str | None = None  # a section of another document, also read on its own

    def type(self) -> type[Document]:
        module, name = self.cls.split(":")
        found = getattr(importlib.import_module(f"pytest_plugin_eval.{module}"), name)
        assert isinstance(found, type) and issubclass(found, Document), f"{self.cls} is no jsonmap Document"
        return found

    def text(self, document: Document | dict[str, Any]) -> str:
        """The document as the tool writes it."""
        data = document.to_json() if isinstance(document, Document) else document
        return json.dumps(data, indent=self.indent, ensure_ascii=self.ascii) + "\n"


DOCUMENTS: tuple[DocumentKind, ...] = (
    DocumentKind("results", "results.model:SuiteResult", "aggregate-result.json, --json of one suite, merge"),
    DocumentKind("suites", "results.suites:SuitesDocument", "--json of several eval dirs or models, merge --json"),
    DocumentKind("matrix", "results.matrix:Matrix", "matrix.json of a model matrix"),
    DocumentKind("compare", "results.comparison:Comparison", "plugin-eval compare --json"),
    DocumentKind("trigger_compare", "results.trigger_compare:TriggerSetChange", "compare --json", part_of="compare"),
    DocumentKind("pairwise", "results.pairwise:PairwiseComparison", "compare --pairwise --json (under pairwise)"),
    DocumentKind("history", "results.history:HistoryDocument", "plugin-eval history --json"),
    DocumentKind("history_row", "results.history:HistoryRow", "history --json", part_of="history"),
    DocumentKind("check", "results.check:CheckDocument", "plugin-eval check --json", ascii=True),
    DocumentKind("tune", "tune.result:TuneResult", "tune.json, plugin-eval tune --json", indent=2),
    DocumentKind("calibration", "results.calibration:Calibration", "plugin-eval calibrate --json"),
    DocumentKind("labels", "results.labels:Labels", "labels.json of a results folder (plugin-eval review)"),
    DocumentKind("benchmark", "results.benchmark:Benchmark", "--skill-creator-benchmark (skill-creator's schema)"),
)

# JSON the tool writes that is no document of its own, and why.
NOT_DOCUMENTS: dict[str, str] = {
    "trace.jsonl, mock-calls.jsonl, created-files.json, changes.json in a run's folder": "a run's artefacts as "
    "Claude Code, the mock servers and the workspace record them (run/, below results/); graders and regrade read "
    "them back",
    "mock-recordings/<server>/<tool>-<key>.json": "written by the mock server process (doubles/, below results/) in "
    "the format its replay reads back from mocks/.replay/",
    "init's draft-<time>.jsonl": "Claude Code's stream-json transcript of the drafting session",
    ".plugin-eval.lock, ~/.config/pytest-plugin-eval/trusted.json, init's authoring config, entry's mark file": "the "
    "tool's own state, read only by the tool",
    "worker and wire messages, the mock model's environment file, the review server's replies, a page's embedded "
    "data": "passed between the tool's own processes or to its own page, never stored for a reader",
    "settings.json, .claude.json, plugin.json, .mcp.json written for Claude Code; GitHub's REST bodies": "other "
    "programs' formats",
}


def kind(name: str) -> DocumentKind:
    return next(k for k in DOCUMENTS if k.name == name)
