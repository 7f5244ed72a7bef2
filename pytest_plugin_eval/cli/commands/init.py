"""`plugin-eval init`: the interview and the draft (interview.py), and `init --bare NAME`: a new case that loads
and runs as written.

The reference tool's template fails to load until edited (its TODO lines are load errors). This one is a
working case from the start — a placeholder prompt, a free grader and a plugin-fired indicator, and a
scripted.yaml so `pytest evals/NAME --scripted` runs it offline — to be edited into the real thing. The
indicator and the script name the plugin's real skill (`plugin:skill`), and the results folder is added to the
plugin's .gitignore.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ...authoring.gitignore import GITIGNORE, ignore
from ...authoring.init_triggers import write_triggers
from ...authoring.interview import add_arguments, author
from ...core.paths import display_path
from ...load.case_template import PLACEHOLDER_SKILL, PROMPT, REPLIED, SCRIPT, SKILL_FIRED
from ...load.plugin_facts import skills_of
from ...load.suite import RESERVED_DIR, eval_dir_name, is_plugin_dir, plugin_at
from ..plugin_args import add_eval_dir, not_a_marketplace

NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
RESERVED = {RESERVED_DIR, "results"}

REGEX_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval init",
        description="Write eval cases: interview the author at a terminal (init [TARGET]), draft a suite without "
        "asking (init --draft [TARGET] [--from FILE...]), or write one blank case (init --bare NAME).",
    )
    parser.add_argument(
        "name", nargs="?", metavar="NAME|TARGET", help="--bare: the case's name; else the plugin folder"
    )
    parser.add_argument("--bare", action="store_true", help="write one case from the template without asking anything")
    parser.add_argument(
        "--triggers",
        action="store_true",
        help="write the eval dir's triggers.yaml: a trigger set per skill and command, queries to fill in",
    )
    add_eval_dir(parser)
    add_arguments(parser)
    return parser


def init(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    if args.triggers:
        return init_triggers(Path(args.name or "."), args.eval_dir)
    if not args.bare:
        return author(args, args.name)
    if not args.name:
        print("A case name is required: plugin-eval init --bare NAME", file=sys.stderr)
        return 1
    problem = name_problem(args.name)
    if problem:
        print(f"Error: {problem}", file=sys.stderr)
        return 1
    root = Path.cwd()
    if not not_a_marketplace(root, f"init --bare {args.name}"):
        return 1
    folder = root / eval_dir_name(root if is_plugin_dir(root) else None, args.eval_dir) / args.name
    if folder.exists():
        print(
            f"Error: {folder.relative_to(root)} already exists — pick another name, or edit that case", file=sys.stderr
        )
        return 1
    plugin, skill = plugin_at(root).name, first_skill(root)
    written = write_case(folder, plugin, skill)
    print("Created " + ", ".join(str(p.relative_to(root)) for p in written))
    if skill is None:
        print(f"No skills/<name>/SKILL.md found: edit the skill name ({PLACEHOLDER_SKILL}) in the case's files")
    results = f"{folder.parent.relative_to(root).as_posix()}/results/"
    try:
        if ignore(root / GITIGNORE, results):
            print(f"Added {results} to {GITIGNORE}")
    except (OSError, UnicodeDecodeError) as e:  # the case is written; the ignore line is a convenience
        print(f"Could not add {results} to {GITIGNORE} ({e}): add it yourself", file=sys.stderr)
    return 0


def init_triggers(root: Path, eval_dir: str | None) -> int:
    """`init --triggers [TARGET]`: the plugin's trigger sets, to fill in."""
    if not not_a_marketplace(root, "init --triggers"):
        return 1
    eval_root = root / eval_dir_name(root if is_plugin_dir(root) else None, eval_dir)
    try:
        path = write_triggers(root, eval_root)
    except FileExistsError:
        print(f"Error: {display_path(eval_root / 'triggers.yaml')} already exists — edit it", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    print(f"Created {display_path(path)}: replace its TODO queries, then `plugin-eval triggers --scripted` checks it")
    return 0


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
    """The name of the plugin's first skill the model may invoke, as Claude Code names it (load.plugin_facts: by
    its folder), or None when the plugin has none (a `disable-model-invocation: true` skill never fires)."""
    skills = [s for s in skills_of(root) if s.model_invocable]
    return skills[0].name if skills else None


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
