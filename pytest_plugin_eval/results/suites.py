"""The document of a session over several suites (`--json` with several eval dirs, a matrix's models, `merge
--json` of a matrix's shards): each suite's results document, in order, under one schemaVersion.

    {"schemaVersion": 1, "suites": [<results document>, …]}

A session of one suite writes that suite's document alone; `store.read_suites` reads either shape as a list of
suites.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .jsonmap import EXTRA, Document, key
from .model import SCHEMA_VERSION, SuiteResult


@dataclass
class SuitesDocument(Document):
    """Several suites' results documents under one schemaVersion."""

    _: KW_ONLY
    schema_version: int = field(default=SCHEMA_VERSION, metadata=key("schemaVersion"))
    suites: list[SuiteResult] = field(default_factory=list, metadata=key("suites"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


def session_document(documents: list[SuiteResult]) -> Document:
    """What a session's `--json` holds: its one suite's document, or with several suites the document of them all."""
    return documents[0] if len(documents) == 1 else SuitesDocument(suites=list(documents))


def is_several(data: Any) -> bool:
    """Whether `data` (JSON) is the document of several suites rather than one suite's."""
    return isinstance(data, dict) and "suites" in data and "cases" not in data
