"""The document of `plugin-eval check --json`: whether the suite loads and meets the floor, what it holds, each
problem by file (relative to the plugin folder) and key, the warnings and findings, and what a pilot and the full
suite would cost. `suite_check.suite.check_document` makes it from a check; it reads back with `from_json`."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .findings import Finding
from .jsonmap import EXTRA, Document, key
from .jsonmap import key as json_key  # for FileProblem, whose field `key` hides the function


@dataclass
class CheckedTriggerSet(Document):
    skill: str = field(metadata=key("skill"))  # its qualified name
    file: str = field(metadata=key("file"))  # relative to the suite (the eval dir's parent)
    queries: int = field(metadata=key("queries"))


@dataclass
class FileProblem(Document):
    file: str = field(metadata=json_key("file"))  # relative to the plugin folder ("" for none)
    key: str = field(metadata=json_key("key"))  # "" for the file as a whole
    message: str = field(metadata=json_key("message"))


@dataclass
class CostBounds(Document):
    pilot_bound_usd: float = field(metadata=key("pilotBoundUsd"))
    full_bound_usd: float = field(metadata=key("fullBoundUsd"))


@dataclass
class CostPrediction(Document):
    full_suite_usd: float = field(metadata=key("fullSuiteUsd"))
    pilot_cost_usd: float = field(metadata=key("pilotCostUsd"))


@dataclass
class CheckDocument(Document):
    ok: bool = field(metadata=key("ok"))
    eval_dir: str = field(metadata=key("evalDir"))
    cases: list[str] = field(metadata=key("cases"))
    _: KW_ONLY
    trigger_sets: list[CheckedTriggerSet] = field(default_factory=list, metadata=key("triggerSets"))
    problems: list[FileProblem] = field(default_factory=list, metadata=key("problems"))
    warnings: list[str] = field(default_factory=list, metadata=key("warnings"))
    findings: list[Finding] = field(default_factory=list, metadata=key("findings"))
    estimate: CostBounds | None = field(default=None, metadata=key("estimate", omit="none"))
    prediction: CostPrediction | None = field(default=None, metadata=key("prediction", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
