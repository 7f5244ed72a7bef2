"""What a plugin offers Claude to pick: its skills and commands, each with the name Claude Code gives it
(`plugin:name`), the description Claude chooses by, and the file it comes from.

Trigger evals ask which of these Claude consulted for a query; the results record every description, so that a
change in how often a skill fires can be put beside the change in its description.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.kinds import ComponentKind
from ..core.yamlio import FrontmatterError, YamlError, split_frontmatter
from .plugin_facts import seen_description, skills_of
from .suite import markdown_components, plugin_at
from .workflows import workflows_of


@dataclass(frozen=True)
class Component:
    """A skill or command of a plugin, as Claude Code offers it."""

    name: str  # as its frontmatter (else its file or folder) names it
    qualified_name: str  # `plugin:name`, what the agent's Skill call names
    kind: ComponentKind
    description: str  # its frontmatter's `description` (what `tune` rewrites)
    path: Path  # its SKILL.md or command file
    when_to_use: str | None = None  # a skill's `when_to_use`, which Claude Code appends to what the model sees

    @property
    def seen(self) -> str:
        """The description as the model sees it (`description - when_to_use`)."""
        return seen_description(self.description, self.when_to_use) or ""

    def answers_to(self, called: str) -> bool:
        """Whether a Skill call naming `called` (`plugin:name`, `name` or `/plugin:name`) is a call of this one."""
        called = called.strip().lstrip("/")
        return called in (self.qualified_name, self.name)


def components_of(plugin_root: Path) -> list[Component]:
    """What the model may pick: the plugin's skills (as Claude Code names them, plugin_facts.skills_of) but those
    only a user may invoke, its workflows (offered as skills), then its commands by name, but those a skill of the same name shadows."""
    plugin = plugin_at(plugin_root).name
    # A skill with `disable-model-invocation: true` is not offered to the model: no query can fire it.
    skills = [
        Component(s.name, s.qualified_name, "skill", s.description or "", s.path.absolute(), s.when_to_use)
        for s in skills_of(plugin_root)
        if s.model_invocable
    ]
    taken = {s.name for s in skills}
    skills += [  # a workflow is offered as a skill of the plugin (load/workflows.py)
        Component(w.name, f"{plugin}:{w.name}", "skill", w.description, w.path.absolute(), w.when_to_use)
        for w in workflows_of(plugin_root)
        if w.name not in taken
    ]
    commands = sorted(
        (_command(plugin, path) for path in markdown_components(plugin_root, "commands")), key=lambda c: c.name
    )
    # A command named like a skill is shadowed by it: Claude Code 2.1 offers the skill alone under that name.
    return skills + [c for c in commands if c.name not in {s.name for s in skills}]


def _command(plugin: str, path: Path) -> Component:
    try:
        meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, FrontmatterError, YamlError):
        meta = None
    description = (meta or {}).get("description")
    return Component(
        name=path.stem,
        qualified_name=f"{plugin}:{path.stem}",
        kind="command",
        description=description.strip() if isinstance(description, str) else "",
        path=path.absolute(),
    )


@dataclass(frozen=True)
class TriggerTarget:
    """What a trigger run is about: one query of a skill's trigger set, and the plugin's components that compete
    for it (a near-miss may fire a sibling)."""

    skill: Component
    should_fire: bool
    components: tuple[Component, ...]
    query_id: str
    set_file: Path
    threshold: float = 0.5  # the fire rate a query's verdict is decided against

    def component_called(self, called: str) -> Component | None:
        return next((c for c in self.components if c.answers_to(called)), None)

    def component_at(self, path: str) -> Component | None:
        """The component whose file `path` is (a Read of a SKILL.md consults that skill)."""
        try:
            target = Path(path).absolute()
        except (TypeError, ValueError):
            return None
        return next((c for c in self.components if c.path == target), None)
