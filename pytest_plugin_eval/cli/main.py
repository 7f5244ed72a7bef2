"""`plugin-eval`: `claude plugin eval`'s command line, unchanged, on top of the pytest machinery.

    plugin-eval [target] --trust-plugin --json results.json --threshold 0.8 -j 4 …
    plugin-eval init [TARGET] | init --draft [TARGET] [--from FILE…] | init --bare NAME [--eval-dir DIR]
    plugin-eval triggers [TARGET] [options]
    plugin-eval tune SKILL [TARGET] [options]
    plugin-eval check [TARGET] [--strict]
    plugin-eval import [TARGET]
    plugin-eval compare OLD NEW [--json [PATH]] [--md PATH] [--html PATH] [--fail-on-worse] [--pairwise]
    plugin-eval merge DIR... | history [EVAL_DIR]
    plugin-eval review RESULTS | calibrate RESULTS... [--controls]
    plugin-eval pr-comment RESULTS [--against OLD]
    plugin-eval --version

The target is a plugin folder (default `.`), or an installed plugin's `name` / `name@marketplace`. The options
are the pytest plugin's own (same names, same checks); this module only finds the eval dirs, keeps stdout clean
for `--json`, and maps the exit status. Unlike the reference tool, `--allow-tools`, `--disallow-tools`, `--tag`
and `--json` do not swallow a following target path.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..core.errors import UsageError
from ..engine.options import OPTIONS, TRIGGER_MARKER
from ..load.suite import eval_dir_name, is_plugin_dir
from ..run.agent import ClaudeNotFound, claude_version, find_claude

# The option table of the pytest plugin, read the reference tool's way (--json is handled on its own).
FLAGS = {name for o in OPTIONS if o.kind == "flag" for name in o.names}
VALUES = {name for o in OPTIONS if o.kind in ("value", "append") for name in o.names}
LISTS = {name for o in OPTIONS if o.kind == "list" for name in o.names}
USAGE = """usage: plugin-eval [TARGET] [options] [-- pytest arguments]
       plugin-eval triggers [TARGET] [options]
       plugin-eval tune SKILL [TARGET] --trust-plugin [--rounds N] [--candidates N] [--max-cost-usd X] [--apply]
       plugin-eval init [TARGET] [--trust-plugin] [--from FILE…]
       plugin-eval init --draft [TARGET] [--trust-plugin] [--from FILE…]
       plugin-eval init --bare NAME [--eval-dir DIR]
       plugin-eval check [TARGET] [--eval-dir DIR] [--json] [--strict] [--model M] [--judge-model M] [--scripted]
                         [--against REF] [--ablate C,…]
       plugin-eval import [TARGET] [--eval-dir DIR]
       plugin-eval merge DIR... [--output-dir DIR] [--json PATH]
       plugin-eval compare OLD NEW [--json [PATH]] [--md PATH] [--html PATH] [--level L] [--fail-on-worse]
                               [--pairwise [--scripted] [--judge-model M] [--max-cost-usd USD]]
       plugin-eval history [EVAL_DIR | PLUGIN_DIR] [--json] [--limit N]
       plugin-eval pr-comment RESULTS [--against OLD] [--key NAME] [--baseline-name NAME] [--pr N] [--dry-run]
       plugin-eval review RESULTS [--port N] [--no-browser] [--export DIR]
       plugin-eval calibrate RESULTS... [--json OUT] [--labels FILE] [--report] [--controls [--scripted] [--judge-model M]]
       plugin-eval --version

Evaluate a Claude Code plugin: run its eval cases with and without it, grade the runs, report the difference.

commands:
  (none)       run the eval suite of TARGET: a plugin folder (default .), or an installed plugin's
               name or name@marketplace
  triggers     run only the suite's trigger sets: does Claude consult each skill for the queries that
               should fire it, and leave it for the near-misses? (runs with the plugin only, each stopped
               at its first skill call)
  tune         a better description for SKILL, proposed by Claude from its trigger set's train failures,
               chosen on validation by a paired interval, scored once on test (plugin-eval tune --help)
  init         write the eval suite with Claude Code, interviewing you at a terminal (the plugin stays
               read-only; every file is checked); --draft: a first draft without questions, from the plugin
               and real prompts (--from prompts.txt or session .jsonl); --bare NAME: one blank case
  check        load the suite and check its floor (a should-not-fire case, an outcome grader per case,
               runs >= 3, two arms) without running it: exit 0 or 1, each problem named
  import       write skill-creator's evals/evals.json of each skill as case folders (prompt.md, graders/*.md,
               context files), leaving existing folders as they are
  merge        combine the results folders of --shard K/N jobs into one session's results
  compare      did a change help? two sessions' results side by side: per case the change in WITH and
               in Δ with an interval and a verdict, graders whose pass rate moved, cost; --fail-on-worse;
               --pairwise: a blind judge compares the two sessions' outputs run by run, in both orders
  review       label the judged verdicts of a results folder in a local page (127.0.0.1): pass or fail,
               a note and failure codes per verdict, saved to the folder's labels.json; --export DIR: a
               static copy that works with no server
  calibrate    can I trust the judge? each llm/baseline grader against your labels: TPR and TNR with
               intervals, kappa, WITH, W/OUT and delta corrected for the judge's errors; --controls: answers
               the judge must fail
  history      list the past sessions in the suite's results folder, newest first: version, git commit,
               model, score, mean Δ, cost
  pr-comment   post the results on the pull request as one comment per suite, updated in place on every
               push (GitHub's API, from GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_TOKEN)

options (claude plugin eval's; list options also take comma-separated values, --allow-tools=Write,Edit):
"""


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
        if name in FLAGS:
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
            elif i + 1 < len(argv):
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


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def installed_plugin(name: str) -> Path | None:
    """An installed plugin's folder, from Claude Code's plugins/installed_plugins.json (`name` or
    `name@marketplace`)."""
    try:
        data = json.loads((claude_home() / "plugins" / "installed_plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plugins = data.get("plugins", data) if isinstance(data, dict) else {}
    for key, entries in plugins.items():
        if key != name and key.split("@")[0] != name:
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if path and Path(path).is_dir():
                return Path(path)
    return None


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


class NoConfigFile:
    """`-c os.devnull` keeps the plugin folder's own pytest configuration (its addopts, say) out of the session;
    pytest would then name /dev/null as the session's config file in its header. There is none: say nothing."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        if config.inipath is not None and str(config.inipath) == os.devnull:
            config._inipath = None  # what the header reads; pytest has no public way to run without a config file


def asks_for_help(argv: list[str]) -> bool:
    """-h or --help among our arguments (after `--` they are pytest's): `plugin-eval triggers --help` and
    `plugin-eval . --help` were refused as unknown options."""
    ours = argv[: argv.index("--")] if "--" in argv else argv
    return any(arg in ("-h", "--help") for arg in ours)


def run(argv: list[str], only_triggers: bool = False) -> int:
    """The eval suite of the target (`only_triggers`: its trigger sets alone, `plugin-eval triggers`)."""
    if asks_for_help(argv):
        print(help_text())
        return 0
    try:
        cmd = parse(argv)
        if only_triggers:
            cmd.passthrough += ["-m", TRIGGER_MARKER]
        root, installed = resolve_target(cmd)
    except CliError as e:
        print(e, file=sys.stderr)
        return 1
    if cmd.json and cmd.json != "-" and not cmd.json.endswith(".json"):
        print(
            f"Error: --json output path must end in .json (got '{cmd.json}'). If that is your eval target, "
            f"put it before --json.",
            file=sys.stderr,
        )
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        json_file = str(Path(tmp) / "result.json") if cmd.json == "-" else cmd.json
        args = pytest_args(cmd, root, installed, json_file)
        # With --json, stdout carries only the document (or "Wrote FILE"): pytest's own output goes to stderr.
        quiet = contextlib.redirect_stdout(sys.stderr) if cmd.json else contextlib.nullcontext()
        with quiet:
            status = pytest.main(args, plugins=[NoConfigFile()])
        written = Path(json_file) if json_file else None
        if cmd.json == "-" and written and written.exists():
            sys.stdout.write(written.read_text(encoding="utf-8"))
        elif cmd.json and written and written.exists():
            print(f"Wrote {cmd.json}")
    return 1 if int(status) == pytest.ExitCode.USAGE_ERROR else int(status)


def help_text() -> str:
    """USAGE and every option of the table the pytest plugin registers, with its help."""

    def spelling(o) -> str:
        value = f" [{o.metavar}]" if o.kind == "optional" else f" {o.metavar}" if o.metavar else ""
        return ", ".join(o.names) + value + (" …" if o.kind == "list" else "")

    rows = [(spelling(o), o.help) for o in OPTIONS]
    rows += [
        ("--version", "Print plugin-eval's version and the Claude Code binary it would use"),
        ("-h, --help", "Show this help"),
    ]
    width = max(len(left) for left, _ in rows) + 4
    lines = [
        textwrap.fill(
            text, 118, break_on_hyphens=False, initial_indent=f"  {left:<{width - 2}}", subsequent_indent=" " * width
        )
        for left, text in rows
    ]
    return USAGE + "\n".join(lines)


def package_version() -> str:
    try:
        return importlib.metadata.version("pytest-plugin-eval")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def version_text(explicit_claude: str | None = None) -> str:
    """Two lines: this package's version, then the Claude Code a session would run (and its version)."""
    try:
        claude = find_claude(explicit_claude)
    except ClaudeNotFound as e:
        return f"plugin-eval {package_version()}\nClaude Code: none found — {str(e).split(' — ', 1)[-1]}"
    return f"plugin-eval {package_version()}\nClaude Code {claude_version(claude)} ({claude})"


# The subcommands: each is a module of cli/commands/ (imported when it is used) and the function given its
# arguments; a command line that starts with none of them is the reference tool's (`run`).
COMMANDS = {
    "init": ".commands.init:init",
    "check": ".commands.check:check",
    "import": ".commands.import_evals:import_command",
    "merge": ".commands.merge:merge_command",
    "compare": ".commands.compare:compare_command",
    "calibrate": ".commands.calibrate:calibrate_command",
    "review": ".commands.review:review_command",
    "history": ".commands.history:history_command",
    "pr-comment": ".commands.pr_comment:pr_comment_command",
    "triggers": ".commands.triggers:triggers_command",
    "tune": ".commands.tune:tune_command",
}


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:  # `plugin-eval check | head -1`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that Python's own flush at exit does not fail again
        return 1


def _main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(help_text())
        return 0
    if argv[:1] in (["--version"], ["-V"]):
        claude = next((a.split("=", 1)[1] for a in argv if a.startswith("--claude=")), None)
        if "--claude" in argv[:-1]:
            claude = argv[argv.index("--claude") + 1]
        print(version_text(claude))
        return 0
    command = COMMANDS.get(argv[0]) if argv else None
    if command is not None:
        module, function = command.split(":")
        return getattr(importlib.import_module(module, __package__), function)(argv[1:])
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
