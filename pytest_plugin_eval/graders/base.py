"""What every grader type shares: the spec it is loaded from, the verdict it gives, the registry it is found in."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

COMMON_KEYS = ("type", "name", "weight", "arm")
ARMS = ("with-only", "both")


class SpecError(Exception):
    """A grader definition that cannot work: `key` names the offending key ('' for the whole grader).
    `structural` marks a definition that cannot even be read as a grader (no `type:`)."""

    def __init__(self, key: str, message: str, structural: bool = False):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message
        self.structural = structural


@dataclass(frozen=True)
class Verdict:
    """One grader's judgement of one run.

    `errored` marks a grader that could not judge for reasons outside the plugin (a judge outage): it is
    reported but left out of the score. `skipped` marks a paid grader skipped by the cost ceiling (likewise
    left out). `details` holds extra JSON fields (judgeVotes, evidence, judgeModel…)."""
    passed: bool
    explanation: str
    errored: bool = False
    skipped: bool = False
    cost_usd: float = 0.0
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class GraderSpec:
    """A validated grader definition, as loaded from graders/<name>.md or an inline case.yaml entry."""
    name: str
    type: str
    weight: float
    arm: str | None
    config: Any               # the type's own validated config (plain data)
    source: str               # where it was defined, for messages
    body: str | None = None   # the Markdown body (rubric) of llm/baseline graders

    @property
    def kind(self) -> "GraderType":
        return registry()[self.type]

    def config_json(self) -> dict:
        out = dict(self.kind.config_json(self.config))
        if self.arm is not None:
            out["arm"] = self.arm
        return out


@dataclass(frozen=True)
class GradeContext:
    """What a grader may need besides the run: its own name, and the judge (paid graders)."""
    grader: str = ""
    judge: Any = None


class GraderType:
    """A family of graders. Subclasses set `name`, `keys` (their own frontmatter keys) and implement
    `parse` (validate raw frontmatter into config; raise SpecError) and `grade` (config × run → Verdict).
    `parse` gets the case folder for graders that read files of the case (baseline_file)."""
    name: ClassVar[str]
    keys: ClassVar[tuple[str, ...]] = ()
    paid: ClassVar[bool] = False       # calls a model (skipped under the cost ceiling)
    uses_body: ClassVar[bool] = False  # the Markdown body is part of the definition

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> Any:
        raise NotImplementedError

    def grade(self, config: Any, run: Any, ctx: GradeContext | None = None) -> Verdict:
        raise NotImplementedError

    def config_json(self, config: Any) -> dict:
        return dict(config) if isinstance(config, dict) else {}

    def with_only_by_default(self, config: Any) -> bool:
        """Graders that only make sense with the plugin loaded (a plugin-fired indicator)."""
        return False

    def required_tools(self, config: Any) -> tuple[str, ...]:
        """Tools a run must be able to call for this grader to pass (for the start-up lint)."""
        return ()

    def reads_created_files(self, config: Any) -> bool:
        return False


_REGISTRY: dict[str, GraderType] = {}


def register(kind: type[GraderType] | GraderType) -> Any:
    """Add a grader type to the registry (usable as a class decorator)."""
    instance = kind() if isinstance(kind, type) else kind
    _REGISTRY[instance.name] = instance
    return kind


def registry() -> dict[str, GraderType]:
    return _REGISTRY


# ---- small validators shared by the grader types -------------------------------------------------------

def type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing (null)"
    return type(value).__name__


def need_str(raw: dict, key: str, *, required: bool = False, nonempty: bool = False,
             default: str | None = None) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise SpecError(key, "is required")
        return default
    if not isinstance(value, str):
        raise SpecError(key, f"must be a string (got {type_name(value)})")
    if nonempty and not value.strip():
        raise SpecError(key, "must not be empty")
    return value


def need_int(raw: dict, key: str, *, minimum: int, default: int | None) -> int | None:
    if key not in raw:
        return default
    value = raw[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(key, f"must be a whole number ≥ {minimum} (got {type_name(value)})")
    if value < minimum:
        raise SpecError(key, f"must be a whole number ≥ {minimum} (got {value})")
    return value
