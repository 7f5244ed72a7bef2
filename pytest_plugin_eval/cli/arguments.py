"""The reference tool's command line (`plugin-eval [TARGET] [options] [-- pytest arguments]`), read into a
`Command`: the options of the pytest plugin's table in pytest's spelling, the target and its plugin folder, and the
pytest arguments a session of it is. Unlike the reference tool, `--allow-tools`, `--disallow-tools`, `--tag` and
`--json` do not swallow a following target path."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import UsageError
from ..engine.options import OPTIONS
from ..load.installed import installed_plugin
from ..load.suite import eval_dir_name, is_plugin_dir

# The option table of the pytest plugin, read the reference tool's way (--json is handled on its own).
FLAGS = {name for o in OPTIONS if o.kind == "flag" for name in o.names}
VALUES = {name for o in OPTIONS if o.kind in ("value", "append") for name in o.names}
LISTS = {name for o in OPTIONS if o.kind == "list" for name in o.names}
# The reference tool's `--verbose` logs trace events to its debug log; every run's trace is kept here anyway, so it
# becomes pytest's own --verbose: a line per run with its score and failing graders.
PYTEST_FLAGS = {"--verbose"}


class CliError(UsageError):
    """A command-line problem: printed, exit 1."""


@dataclass
class Command:
    target: str = "."
    options: list[str] = field(default_factory=list)  # for pytest, in its spelling
    json: str | None = None  # "-": print the document to stdout
    eval_dir: str | None = None
    output_dir: str | None = None
    passthrough: list[str] = field(default_factory=list)  # after `--`: more pytest arguments


def looks_like_target(value: str) -> bool:
    """A value that names an existing folder or file is the target, not another list item."""
    return "(" not in value and os.path.exists(value)


def parse(argv: list[str]) -> Command:
    cmd, targets, i = Command(), [], 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--":
            cmd.passthrough = argv[i + 1 :]
            break
        if name in FLAGS or arg in PYTEST_FLAGS:
            cmd.options.append(name)
        elif name == "--json":
            following = argv[i + 1] if i + 1 < len(argv) else None
            if eq:
                cmd.json = inline
            elif (
                following is not None
                and not following.startswith("-")
                and (following.endswith(".json") or not looks_like_target(following))
            ):
                cmd.json = following
                i += 1
            else:
                cmd.json = "-"
        elif name in VALUES:
            if eq:
                value = inline
            elif i + 1 < len(argv) and argv[i + 1] != "--":  # `--md -- -vv`: the value was left out
                value, i = argv[i + 1], i + 1
            else:
                raise CliError(f"error: option '{name}' argument missing")
            if name == "--eval-dir":
                cmd.eval_dir = value
            if name == "--output-dir":
                cmd.output_dir = value
            cmd.options += [name, value]
        elif name in LISTS:
            values = [inline] if eq else []
            while (
                not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-") and not looks_like_target(argv[i + 1])
            ):
                values.append(argv[i + 1])
                i += 1
            if not values:
                raise CliError(f"error: option '{name}' argument missing")
            # `--name=value` each: a value can never swallow the target or a pytest argument after `--`.
            cmd.options += [f"{name}={value}" for value in values]
        elif arg.startswith("-"):
            # pytest's own options (--lf, -k, -x, -q…) are passed on after `--`: say so, it is the usual cause
            raise CliError(
                f"error: unknown option '{arg}' — pytest's options go after `--` (plugin-eval . -- {arg}); "
                "plugin-eval --help lists ours"
            )
        else:
            targets.append(arg)
        i += 1
    if len(targets) > 1:
        raise CliError(f"error: too many arguments: {' '.join(targets)} (one target: a plugin folder or name)")
    cmd.target = targets[0] if targets else "."
    return cmd


def resolve_target(cmd: Command) -> tuple[Path, bool]:
    """(plugin folder, installed?)."""
    path = Path(cmd.target)
    if path.exists():
        return path.absolute(), False
    if re.fullmatch(r"[\w.-]+(@[\w.-]+)?", cmd.target):
        found = installed_plugin(cmd.target)
        if found is not None:
            return found, True
    raise CliError(f"✗ {cmd.target}: no such file or directory, and no installed plugin of that name")


def pytest_args(cmd: Command, root: Path, installed: bool, json_file: str | None) -> list[str]:
    name = eval_dir_name(root if is_plugin_dir(root) else None, cmd.eval_dir)
    evals = root / name
    args = [str(evals) if evals.is_dir() else str(root), "--rootdir", str(root), "-c", os.devnull]
    if installed and cmd.output_dir is None:
        # an installed plugin's folder is not ours to write in: results go under ./evals/results/
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
        args += ["--output-dir", str(Path.cwd() / "evals" / "results" / stamp)]
    if json_file:
        args += ["--json", json_file]
    return args + cmd.options + cmd.passthrough


def asks_for_help(argv: list[str]) -> bool:
    """-h or --help among our arguments (after `--` they are pytest's): `plugin-eval triggers --help` and
    `plugin-eval . --help` were refused as unknown options."""
    ours = argv[: argv.index("--")] if "--" in argv else argv
    return any(arg in ("-h", "--help") for arg in ours)
