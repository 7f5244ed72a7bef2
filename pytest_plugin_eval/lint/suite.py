"""Every pre-run finding of a loaded case, as `plugin-eval check`, a session's start and the `init` interview
ask for them, and of a loaded trigger set, as `check` asks. The plugin's shipped texts are read once per plugin
folder."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..load.case import Case
from ..load.triggers import TriggerSet
from ..results.findings import Finding
from .asks import asking_findings
from .grants import Grants, grant_findings
from .patterns import pattern_findings
from .prompt import named_query_findings, prompt_findings
from .rubric import rubric_findings
from .shipped import Shipped, shipped


def lint_case(case: Case, grants: Grants, plugin: Shipped | None = None) -> list[Finding]:
    out: list[Finding] = []
    if plugin is not None and case.trigger is None:
        out += prompt_findings(case, plugin)
    out += pattern_findings(case, plugin)
    out += rubric_findings(case)
    out += grant_findings(case, grants)
    out += asking_findings(case, plugin)
    return out


def lint_cases(cases: Iterable[Case], grants: Grants) -> list[Finding]:
    plugins: dict[Path, Shipped] = {}
    out: list[Finding] = []
    for case in cases:
        root = case.plugin_dirs[0] if case.plugin_dirs else None
        if root is not None and root not in plugins:
            plugins[root] = shipped(root)
        out += lint_case(case, grants, plugins.get(root) if root is not None else None)
    return out


def lint_trigger_sets(sets: Iterable[TriggerSet]) -> list[Finding]:
    """The queries that name what Claude should pick (what `plugin-eval tune` refuses)."""
    return [f for trigger_set in sets for f in named_query_findings(trigger_set)]
