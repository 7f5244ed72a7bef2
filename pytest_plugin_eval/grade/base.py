"""The contract of a grader type: what it validates at load, the verdict it gives, the registry the built-in types
are found in (more come from the `pytest_plugin_eval_grader_types` hook)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:  # for annotations only: the contract imports nothing of the run or the judge
    from ..run.output import RunOutput
    from .judge import Ballot


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


class JudgeClient(Protocol):
    """What a paid grader asks of the judge (grade.judge.Judge, or a test's fake): a ballot on some content."""

    model: str

    def ballot(self, grader: str, content: list[dict]) -> Ballot: ...


@dataclass(frozen=True)
class GradeContext:
    """What a grader may need besides the run: its own name, and the judge (paid graders)."""

    grader: str = ""
    judge: JudgeClient | None = None


class GraderType:
    """A family of graders. Subclasses set `name`, `keys` (their own frontmatter keys) and implement
    `parse` (validate raw frontmatter into config; raise SpecError) and `grade` (config × run → Verdict).
    `parse` gets the case folder for graders that read files of the case (baseline_file)."""

    name: ClassVar[str]
    keys: ClassVar[tuple[str, ...]] = ()
    paid: ClassVar[bool] = False  # calls a model (skipped under the cost ceiling)
    uses_body: ClassVar[bool] = False  # the Markdown body is part of the definition

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> Any:
        raise NotImplementedError

    def grade(self, config: Any, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        raise NotImplementedError

    def config_json(self, config: Any) -> dict:
        return dict(config) if isinstance(config, dict) else {}

    def with_only_by_default(self, config: Any) -> bool:
        """Graders that only make sense with the plugin loaded (a plugin-fired indicator)."""
        return False

    def reads_mock_calls(self, config: Any) -> bool:
        """Graders that read the run's mock calls: by default, a config whose `target` or `focus` is mock_calls
        (regex, llm). Whether they are plugin-fired indicators depends on the case's mocks (grade.engine)."""
        return "mock_calls" in (getattr(config, "target", None), getattr(config, "focus", None))

    def required_tools(self, config: Any) -> tuple[str, ...]:
        """Tools a run must be able to call for this grader to pass (for the start-up lint)."""
        return ()

    def reads_created_files(self, config: Any) -> bool:
        return False

    def load_warnings(self, config: Any) -> list[str]:
        """What is suspect in a config that loads (a tool name Claude Code has not, which no run ever calls)."""
        return []


_REGISTRY: dict[str, GraderType] = {}


def register(kind: type[GraderType] | GraderType) -> Any:
    """Add a grader type to the registry (usable as a class decorator)."""
    instance = kind() if isinstance(kind, type) else kind
    _REGISTRY[instance.name] = instance
    return kind


def registry() -> dict[str, GraderType]:
    return _REGISTRY
