"""`plugin-eval [TARGET] [options]`: the reference tool's command, a pytest session of the target's eval suite
(`plugin-eval triggers`: of its trigger sets alone). It keeps stdout clean for `--json` and maps the exit status."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

import pytest

from ...engine.options import TRIGGER_MARKER
from ...session.pytest_internals import forget_config_file
from ..arguments import CliError, asks_for_help, parse, pytest_args, resolve_target
from ..usage import help_text


class NoConfigFile:
    """`-c os.devnull` keeps the plugin folder's own pytest configuration (its addopts, say) out of the session;
    pytest would then name /dev/null as the session's config file in its header. There is none: say nothing."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        if config.inipath is not None and str(config.inipath) == os.devnull:
            forget_config_file(config)


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
