"""`plugin-eval`: `claude plugin eval`'s command line, unchanged, on top of the pytest machinery.

    plugin-eval [target] --trust-plugin --json results.json --threshold 0.8 -j 4 …
    plugin-eval init [TARGET] | init --draft [TARGET] [--from FILE…] | init --bare NAME [--eval-dir DIR]
    plugin-eval triggers [TARGET] [options]
    plugin-eval tune SKILL [TARGET] [options]
    plugin-eval check [TARGET] [--strict]
    plugin-eval import [TARGET]
    plugin-eval entry NAME [MARKETPLACE] --into DIR
    plugin-eval compare OLD NEW [--json [PATH]] [--md PATH] [--html PATH] [--fail-on-worse] [--pairwise]
    plugin-eval merge DIR... | history [EVAL_DIR]
    plugin-eval review RESULTS | calibrate RESULTS... [--controls]
    plugin-eval pr-comment RESULTS [--compare-to OLD]
    plugin-eval --version

The target is a plugin folder (default `.`), or an installed plugin's `name` / `name@marketplace`. The options
are the pytest plugin's own (same names, same checks). This module only dispatches: `--help` and `--version`
(usage.py), each subcommand to its module in commands/ (the COMMANDS table), anything else to commands/run.py.
"""

from __future__ import annotations

import importlib
import os
import sys

from .usage import help_text, version_text

# The subcommands: each is a module of cli/commands/ (imported when it is used) and the function given its
# arguments; a command line that starts with none of them is the reference tool's (`run`).
COMMANDS = {  # in USAGE's order (the options reference lists them so)
    "triggers": ".commands.triggers:triggers_command",
    "tune": ".commands.tune:tune_command",
    "init": ".commands.init:init",
    "check": ".commands.check:check",
    "import": ".commands.import_evals:import_command",
    "entry": ".commands.entry:entry_command",
    "merge": ".commands.merge:merge_command",
    "compare": ".commands.compare:compare_command",
    "history": ".commands.history:history_command",
    "pr-comment": ".commands.pr_comment:pr_comment_command",
    "review": ".commands.review:review_command",
    "calibrate": ".commands.calibrate:calibrate_command",
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
    from .commands.run import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
