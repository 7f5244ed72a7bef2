"""`tool_used` (how often a tool was called) and `tool_order` (whether one call came before another).

Both count every tool_use block of the trace, subagent calls included, and match names exactly.
`input_match` is an ECMAScript pattern tested against the call's input as compact JSON, exactly as
JavaScript's JSON.stringify writes it (keys in the model's order, no spaces, non-ASCII kept raw).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.problems import SpecError
from ...core.tools import misspelling_of
from ...core.validate import known_keys, need_int, require_str, string, type_name
from ...run.output import RunOutput
from ...run.transcript import ToolCall
from .. import ecmaregex
from ..base import GradeContext, GraderType, Verdict, register
from .regex import check_pattern


def tool_name_warning(tool: str, outcome: str) -> list[str]:
    """A near miss of a Claude Code tool (`skill`, `SkillTool`) is never called. The reference tool loads such a
    grader and runs it as written (a public suite relies on it), so it loads here too, and is said at load with a
    did-you-mean, as `--allow-tools` says it, and with what the grader then does (`outcome`)."""
    meant = misspelling_of(tool)
    if not meant:
        return []
    return [
        f"tool {tool!r} is no tool of Claude Code's — did you mean {meant}? The grader runs as written (tool names "
        f"are exact): no call is ever named {tool!r}, so it {outcome}"
    ]


@dataclass(frozen=True)
class CallSpec:
    tool: str
    input_match: str | None = None

    def matches(self, call: ToolCall) -> bool:
        if call.name != self.tool:
            return False
        if self.input_match is None:
            return True
        return ecmaregex.search(self.input_match, "", ecmaregex.compact_json(call.input))

    def to_json(self) -> dict:
        out = {"tool": self.tool}
        if self.input_match is not None:
            out["input_match"] = self.input_match
        return out


def parse_input_match(raw: dict, key: str) -> str | None:
    """`input_match` of `raw`, named `key` in messages (`before.input_match` inside tool_order)."""
    pattern = raw.get("input_match")
    if pattern is None:
        return None
    check_pattern(string(pattern, key), "", key)
    return pattern


@dataclass(frozen=True)
class ToolUsedConfig:
    call: CallSpec
    min: int
    max: int | None
    written: dict  # the keys as written, which is what the results JSON reports


@register
class ToolUsedGrader(GraderType):
    name = "tool_used"
    keys = ("tool", "input_match", "min", "max")

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> ToolUsedConfig:
        tool = require_str(raw, "tool", nonempty=True)
        input_match = parse_input_match(raw, "input_match")
        low = need_int(raw, "min", minimum=0, default=1)
        high = need_int(raw, "max", minimum=0, default=None)
        if high is not None and low > high:
            if "min" in raw:
                raise SpecError("max", f"is {high}, below min {low}: the grader could never pass")
            raise SpecError(
                "max",
                f"is {high} but min defaults to 1, so the grader could never pass — "
                f"to check that {tool} is not called, write `min: 0` and `max: 0`",
            )
        written = {k: raw[k] for k in self.keys if k in raw}
        return ToolUsedConfig(CallSpec(tool, input_match), low, high, written)

    def config_json(self, config: ToolUsedConfig) -> dict:
        return dict(config.written)

    def with_only_by_default(self, config: ToolUsedConfig) -> bool:
        # A Skill call only exists when the plugin is loaded: a plugin-fired indicator, not a score.
        return config.call.tool == "Skill"

    def required_tools(self, config: ToolUsedConfig) -> tuple[str, ...]:
        return (config.call.tool,) if config.min >= 1 else ()

    def load_warnings(self, config: ToolUsedConfig) -> list[str]:
        outcome = "passes every run (it allows 0 calls)" if config.min == 0 else f"fails every run (min {config.min})"
        if misspelling_of(config.call.tool) == "Skill":
            outcome += ", and it is scored in both arms (only `tool: Skill` is the plugin-fired indicator)"
        return tool_name_warning(config.call.tool, outcome)

    def grade(self, config: ToolUsedConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        count = sum(1 for call in run.transcript.tool_calls if config.call.matches(call))
        high = "∞" if config.max is None else str(config.max)
        passed = config.min <= count and (config.max is None or count <= config.max)
        return Verdict(passed, f"{config.call.tool} called {count}x (expected {config.min}..{high})")


def parse_side(raw: dict, key: str) -> CallSpec:
    value = raw.get(key)
    if isinstance(value, str) and value:
        return CallSpec(value)
    if isinstance(value, dict):
        known_keys(value, ("tool", "input_match"), key, f"`{key}:`")
        tool = value.get("tool")
        if not isinstance(tool, str) or not tool:
            raise SpecError(f"{key}.tool", f"must be a tool name (got {type_name(tool)})")
        return CallSpec(tool, parse_input_match(value, f"{key}.input_match"))
    raise SpecError(key, f"must be a tool name or {{tool: NAME, input_match: PATTERN}} (got {type_name(value)})")


@dataclass(frozen=True)
class ToolOrderConfig:
    before: CallSpec
    after: CallSpec


@register
class ToolOrderGrader(GraderType):
    name = "tool_order"
    keys = ("before", "after")

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> ToolOrderConfig:
        return ToolOrderConfig(parse_side(raw, "before"), parse_side(raw, "after"))

    def config_json(self, config: ToolOrderConfig) -> dict:
        return {"before": config.before.to_json(), "after": config.after.to_json()}

    def required_tools(self, config: ToolOrderConfig) -> tuple[str, ...]:
        return (config.before.tool, config.after.tool)

    def load_warnings(self, config: ToolOrderConfig) -> list[str]:
        never = "fails every run"
        return [*tool_name_warning(config.before.tool, never), *tool_name_warning(config.after.tool, never)]

    def grade(self, config: ToolOrderConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        calls = run.transcript.tool_calls
        first = {
            side: next((c.index for c in calls if spec.matches(c)), None)
            for side, spec in (("before", config.before), ("after", config.after))
        }
        for side, spec in (("before", config.before), ("after", config.after)):
            if first[side] is None:
                called = any(c.name == spec.tool for c in calls)
                why = f"no {spec.tool} call matched input_match" if called and spec.input_match else "never called"
                return Verdict(False, f'"{side}" tool {spec.tool} {why}')
        b, a = first["before"], first["after"]
        assert b is not None and a is not None  # both were found above
        if b < a:
            return Verdict(True, f"{config.before.tool}@{b} precedes {config.after.tool}@{a}")
        return Verdict(False, f"{config.before.tool}@{b} does NOT precede {config.after.tool}@{a}")
