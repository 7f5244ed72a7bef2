"""`plugin-eval init --bare NAME`: a new case that loads and runs as written (load/case_template.py's files).

The reference tool's template fails to load until edited (its TODO lines are load errors). This one is a
working case from the start — a placeholder prompt, a free grader and a plugin-fired indicator, and a
scripted.yaml so `pytest evals/NAME --scripted` runs it offline — to be edited into the real thing. The
indicator and the script name the plugin's real skill, or command when it has no skill (`plugin:name`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import UsageError
from ..load.case_template import PLACEHOLDER_SKILL, PROMPT, REPLIED, SCRIPT, SKILL_FIRED
from ..load.skills import components_of
from ..load.suite import RESERVED_DIR, plugin_at, plugin_eval_dir
from .gitignore import GITIGNORE, ignore

NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
RESERVED = {RESERVED_DIR, "results"}

REGEX_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def name_problem(name: str) -> str | None:
    if name in RESERVED:
        return (
            f'"{name}" is reserved ({RESERVED_DIR}/ holds mock responders, results/ holds results) — pick another name'
        )
    if not NAME_RE.match(name) or name in (".", ".."):
        return (
            f'case name "{name}" won\'t work — use letters, digits, ".", "_" and "-" only (no "/", no spaces, '
            f"not starting with a dot)"
        )
    return None


def first_skill(root: Path) -> str | None:
    """The name of the first skill the model may pick, as Claude Code names it (load.skills: its skills, then its
    commands, which the agent calls through Skill too), or None when it has neither (a `disable-model-invocation:
    true` skill never fires)."""
    components = components_of(root)
    return components[0].name if components else None


def skill_match(plugin: str, skill: str) -> str:
    """An input_match for a Skill call of `skill`: the model may name it with or without the plugin prefix."""
    plugin_re, skill_re = (REGEX_SPECIAL.sub(lambda m: "\\" + m.group(), s) for s in (plugin, skill))
    return f'"skill":"({plugin_re}:)?{skill_re}"'


def yaml_quoted(text: str) -> str:
    """A single-quoted YAML scalar: backslashes stay literal, which is what a regex wants."""
    return "'" + text.replace("'", "''") + "'"


def write_case(folder: Path, plugin: str, skill: str | None) -> list[Path]:
    skill = skill or PLACEHOLDER_SKILL
    (folder / "graders").mkdir(parents=True)
    files = {
        folder / "prompt.md": PROMPT,
        folder / "scripted.yaml": SCRIPT.format(skill=json.dumps(f"{plugin}:{skill}", ensure_ascii=False)),
        folder / "graders" / "replied.md": REPLIED,
        folder / "graders" / "skill-fired.md": SKILL_FIRED.format(input_match=yaml_quoted(skill_match(plugin, skill))),
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)


@dataclass(frozen=True)
class BareCase:
    """What `init --bare NAME` did: the files written, the skill its graders name (None: the placeholder), the
    results folder it ignores, and whether .gitignore gained that line (or why it could not)."""

    written: list[Path]
    skill: str | None
    results: str
    ignored: bool
    ignore_error: str | None = None


def init_bare(root: Path, name: str, eval_dir: str | None = None) -> BareCase:
    """`init --bare NAME` in the plugin folder `root`: one case from the template in its eval dir, and that eval
    dir's results/ in .gitignore. Raises UsageError for a name that is refused or taken."""
    problem = name_problem(name)
    if problem:
        raise UsageError(f"Error: {problem}")
    folder = plugin_eval_dir(root, eval_dir) / name
    if folder.exists():
        raise UsageError(f"Error: {folder.relative_to(root)} already exists — pick another name, or edit that case")
    skill = first_skill(root)
    written = write_case(folder, plugin_at(root).name, skill)
    results = f"{folder.parent.relative_to(root).as_posix()}/results/"
    try:
        return BareCase(written, skill, results, ignore(root / GITIGNORE, results))
    except (OSError, UnicodeDecodeError) as e:  # the case is written; the ignore line is a convenience
        return BareCase(written, skill, results, False, str(e))
