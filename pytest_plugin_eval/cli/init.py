"""`plugin-eval init --bare NAME`: a new case that loads and runs as written.

The reference tool's template fails to load until edited (its TODO lines are load errors). This one is a
working case from the start — a placeholder prompt, a free grader and a plugin-fired indicator, and a
scripted.yaml so `pytest evals/NAME --scripted` runs it offline — to be edited into the real thing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..load.suite import RESERVED_DIR, eval_dir_name, is_plugin_dir

NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
RESERVED = {RESERVED_DIR, "results"}

PROMPT = """---
runs: 3
max_turns: 10
allowed_tools: [Read, Glob, Grep, Skill]
---
Replace this paragraph with a request a user would make, in their words, without naming your plugin or skill.
"""
GRADERS = {
    "replied.md": "---\ntype: regex\npattern: '\\S'\n---\n",
    "skill-fired.md": "---\ntype: tool_used\ntool: Skill\n---\n",
}
SCRIPT = """# What the scripted endpoint answers (pytest --scripted): checks the plumbing offline. Edit or delete.
with:
  - tool: Skill
    input: {skill: "your-plugin:your-skill"}
  - text: "A reply that uses the skill."
without:
  - text: "A reply without the plugin."
"""


def init(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="plugin-eval init", description="Write a new eval case.")
    parser.add_argument("name", nargs="?")
    parser.add_argument("--bare", action="store_true", help="write the template without asking anything")
    parser.add_argument("--eval-dir", default=None)
    args = parser.parse_args(argv)
    if not args.name:
        print("A case name is required: plugin-eval init --bare NAME", file=sys.stderr)
        return 1
    problem = name_problem(args.name)
    if problem:
        print(f"Error: {problem}", file=sys.stderr)
        return 1
    root = Path.cwd()
    folder = root / eval_dir_name(root if is_plugin_dir(root) else None, args.eval_dir) / args.name
    if folder.exists():
        print(
            f"Error: {folder.relative_to(root)} already exists — pick another name, or edit that case", file=sys.stderr
        )
        return 1
    written = write_case(folder)
    print("Created " + ", ".join(str(p.relative_to(root)) for p in written))
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


def write_case(folder: Path) -> list[Path]:
    (folder / "graders").mkdir(parents=True)
    files = {folder / "prompt.md": PROMPT, folder / "scripted.yaml": SCRIPT}
    files.update({folder / "graders" / name: text for name, text in GRADERS.items()})
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)
