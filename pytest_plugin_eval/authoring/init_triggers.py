"""`plugin-eval init --triggers`: an `evals/triggers.yaml` with a trigger set for every skill and command of the
plugin, each with placeholder queries that refuse to run until they are replaced (load/triggers.py)."""

from __future__ import annotations

from pathlib import Path

from ..load.skills import Component, components_of
from ..load.trigger_files import YAML_NAME
from ..load.triggers import PLACEHOLDER

HEAD = """\
# Trigger evals: does Claude consult the right skill when a user asks in their own words?
# Each query runs `runs` times with the plugin only (nothing else differs from what users have), and each run
# stops at the first skill Claude consults — or when it answers without one. `pytest evals/` or
# `plugin-eval triggers` runs them; a query is decided when its fire rate's 95% interval clears `threshold`.
#
# Replace every TODO query (they refuse to run): write should_fire requests as users phrase them — several
# shapes, without naming the plugin or the skill — and should_not_fire near-misses that a sibling skill or
# plain Claude should take. `scripted:` (fire, none, or a sibling's name) is what `--scripted` answers offline.
runs: 5
skills:
"""


def skill_block(component: Component) -> str:
    first = component.description.splitlines()[0] if component.description else "(no description)"
    about = first if len(first) <= 100 else first[:99] + "…"  # cut, and said to be
    return (
        f"  {component.name}:  # {component.kind}: {about}\n"
        "    should_fire:\n"
        f'      - "{PLACEHOLDER} a request a user would make that needs {component.name}"\n'
        f'      - "{PLACEHOLDER} the same need, put another way (terse, with a typo, with context)"\n'
        "    should_not_fire:\n"
        f'      - query: "{PLACEHOLDER} a near-miss that sounds close but needs something else"\n'
        "        scripted: none\n"
    )


def write_triggers(plugin_root: Path, eval_root: Path) -> Path:
    """Write `<eval dir>/triggers.yaml`; raises FileExistsError when there is one."""
    path = eval_root / YAML_NAME
    if path.exists():
        raise FileExistsError(path)
    components = components_of(plugin_root)
    if not components:
        raise ValueError(f"{plugin_root} has no skills/<name>/SKILL.md and no commands/*.md to write queries for")
    eval_root.mkdir(parents=True, exist_ok=True)
    path.write_text(HEAD + "".join(skill_block(c) for c in components), encoding="utf-8")
    return path
