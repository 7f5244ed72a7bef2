"""An indicator's `input_match` against the skills the plugin has: a pattern no Skill call of theirs can match.

A plugin-fired indicator (`tool_used: Skill` with an `input_match`) whose pattern misspells the skill's name or its
namespace (`superpower:` for `superpowers:`) fails in every run, whatever Claude does: the session would blame the
skill's description. `check` tests each pattern against the Skill call Claude Code makes for every skill and
command of the plugin, before any run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ..load.case import Case
from ..load.skills import Component
from . import ecmaregex
from .types.tools import CallSpec, ToolOrderConfig, ToolUsedConfig


def skill_call_input(component: Component) -> str:
    """The input of the Skill call that takes `component`, as compact JSON (what `input_match` is tested on)."""
    return ecmaregex.compact_json({"skill": component.qualified_name})


def _skill_specs(config: object) -> list[CallSpec]:
    if isinstance(config, ToolUsedConfig):
        specs = [config.call]
    elif isinstance(config, ToolOrderConfig):
        specs = [config.before, config.after]
    else:
        return []
    return [spec for spec in specs if spec.tool == "Skill" and spec.input_match is not None]


def skill_pattern_warnings(case: Case, components: Iterable[Component]) -> list[str]:
    """A warning for each Skill `input_match` of the case's graders that no skill or command of the plugin matches
    (with the closest name when one is close)."""
    components = list(components)
    if not components:
        return []
    names = [c.qualified_name for c in components]
    out = []
    for grader in case.graders:
        for spec in _skill_specs(grader.config):
            pattern = spec.input_match or ""
            if any(ecmaregex.search(pattern, "", skill_call_input(c)) for c in components):
                continue
            close = difflib.get_close_matches(pattern.strip("^$\"'"), names, n=1, cutoff=0.6)
            meant = f" — did you mean {close[0]!r}?" if close else ""
            out.append(
                f'case "{case.name}": grader "{grader.name}": input_match {pattern!r} matches no Skill call of the '
                f"plugin's skills ({', '.join(names)}; a call's input is {skill_call_input(components[0])}), so it "
                f"fails whatever Claude does{meant}"
            )
    return out
