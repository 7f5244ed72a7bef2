"""Every document the tool writes (results.registry.DOCUMENTS) round-trips through its golden file: a fully loaded
one writes the golden text, as the tool writes it; the golden text reads back and writes the same text again. A
top-level jsonmap Document missing from the registry, or a registered one without a golden file here, fails."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import typing
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import golden as built
from helpers.rich import rich_suite

import pytest_plugin_eval
from pytest_plugin_eval.results.benchmark import benchmark
from pytest_plugin_eval.results.history import history_document
from pytest_plugin_eval.results.jsonmap import Document
from pytest_plugin_eval.results.registry import DOCUMENTS, DocumentKind
from pytest_plugin_eval.suite_check.suite import check_document

UNIT = Path(__file__).parents[1]
HERE = UNIT / "results"

# Each registered document: its golden file, and a fully loaded one.
GOLDEN: dict[str, tuple[Path, Callable[[], Document]]] = {
    "results": (HERE / "golden" / "results.json", rich_suite),
    "suites": (HERE / "golden" / "suites.json", built.suites),
    "matrix": (HERE / "golden" / "matrix.json", built.matrix),
    "compare": (HERE / "golden" / "compare.json", built.comparison),
    "trigger_compare": (HERE / "golden" / "trigger_compare.json", lambda: built.comparison().triggers[0]),
    "pairwise": (HERE / "golden" / "pairwise.json", built.pairwise),
    "history": (HERE / "golden" / "history.json", lambda: history_document(built.history_scan())),
    "history_row": (HERE / "golden" / "history_row.json", built.history_row),
    "check": (UNIT / "suite_check" / "golden" / "check.json", lambda: check_document(built.check_result())),
    "tune": (UNIT / "tune" / "golden" / "tune.json", built.tune),
    "calibration": (HERE / "golden" / "calibration.json", built.calibration),
    "labels": (HERE / "golden" / "labels.json", built.labels),
    "benchmark": (HERE / "golden" / "benchmark.json", lambda: benchmark(built.benchmark_suite())),
}


def golden_text(kind: DocumentKind) -> str:
    return GOLDEN[kind.name][0].read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", DOCUMENTS, ids=lambda k: k.name)
def test_a_fully_loaded_document_writes_its_golden_text(kind: DocumentKind):
    document = GOLDEN[kind.name][1]()
    assert isinstance(document, kind.type())
    assert kind.text(document) == golden_text(kind)


@pytest.mark.parametrize("kind", DOCUMENTS, ids=lambda k: k.name)
def test_the_golden_text_reads_back_and_writes_the_same(kind: DocumentKind):
    read = kind.type().from_json(json.loads(golden_text(kind)))
    assert kind.text(read) == golden_text(kind)
    again = kind.type().from_json(json.loads(kind.text(read)))
    assert again == read


def test_every_registered_document_has_a_golden_file_and_no_more():
    assert sorted(GOLDEN) == sorted(k.name for k in DOCUMENTS)
    assert len({k.name for k in DOCUMENTS}) == len(DOCUMENTS)


def _documents_in_the_package() -> set[type[Document]]:
    for module in pkgutil.walk_packages(pytest_plugin_eval.__path__, "pytest_plugin_eval."):
        importlib.import_module(module.name)
    found: set[type[Document]] = set()
    todo = list(Document.__subclasses__())
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo += cls.__subclasses__()
    return {cls for cls in found if cls.__module__.startswith("pytest_plugin_eval.")}


def _held(hint: typing.Any, into: set[type]) -> None:
    if isinstance(hint, type) and issubclass(hint, Document):
        into.add(hint)
    for arg in typing.get_args(hint):
        _held(arg, into)


def test_every_top_level_document_is_registered():
    """A Document no other Document holds is one the tool writes on its own: it must be in the registry (a
    section held by another, such as a history row, may be registered too)."""
    documents = _documents_in_the_package()
    held: set[type] = set()
    for cls in documents:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if "json" in f.metadata:
                _held(hints[f.name], held)
    registered = {kind.type() for kind in DOCUMENTS}
    top_level = {f"{cls.__module__}:{cls.__qualname__}" for cls in documents - held - registered}
    assert not top_level, f"documents missing from results/registry.py's DOCUMENTS: {sorted(top_level)}"
