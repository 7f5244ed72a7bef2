"""The pytest entry point. Every pytest run in an environment with the plugin installed loads this module, so it
only registers the options, the hookspecs and the fixtures; when the run evaluates something — it reaches an eval
dir, or eval options were given — it starts the eval session (session/hooks.py), which brings in the rest."""

from __future__ import annotations

import sys
from collections.abc import Generator, Iterable
from pathlib import Path

import pytest

from .engine import option_parse as _option_parse
from .engine import options as _options
from .load.skill_suites import missing_eval_root
from .load.suite import find_eval_roots
from .session import addoption as _addoption
from .session import extras as _extras
from .session.fixtures import eval_agent, eval_mocks  # noqa: F401  (fixtures are found on the plugin module)

# pytest's own options that only print (--help, --version, --markers): they run nothing of a suite.
HELP_FLAGS = ("help", "version", "markers")

# The options as validated before the conftest files are imported, so that they are read (a --regrade or
# --compare-to document included) once.
OPTIONS_KEY = pytest.StashKey["_options.EvalOptions"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    _addoption.add_options(parser)
    parser.addini(
        _option_parse.REUSE_INI,
        "Reuse unchanged without-plugin runs of stored sessions, as --reuse-baseline does",
        type="bool",
        default=False,
    )
    parser.addini(
        _option_parse.STRICT_TOOLS_INI,
        "Make a run whose tools Claude Code refused a run error, as --strict-tools does",
        type="bool",
        default=False,
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """pytest is about to import the conftest.py files of the paths it was given — a suite's among them, and
    running a suite runs the plugin's code: an untrusted plugin is asked about (or refused) before that."""
    namespace = early_config.known_args_namespace
    if hasattr(early_config, "workerinput"):
        return  # a worker of a session its controller let start
    try:  # a bad option value is said first, once, before any question or import; pytest_configure reuses it
        early_config.stash[OPTIONS_KEY] = _option_parse.parse_options(namespace)
    except _option_parse.OptionError as e:
        sys.stderr.write(f"{e}\n")
        raise SystemExit(1) from None  # pytest.exit is not handled this early
    if getattr(namespace, "trust_plugin", False):
        return  # trusted on the command line
    if any(getattr(namespace, flag, False) for flag in HELP_FLAGS):
        namespace.noconftest = True  # help runs no suite code, so it needs no trust: no conftest.py is imported
        return
    base = early_config.invocation_params.dir
    paths = list(getattr(namespace, "file_or_dir", None) or early_config.getini("testpaths") or ["."])
    roots = eval_roots_of(
        [(base / str(p).split("::")[0]).absolute() for p in paths], getattr(namespace, "eval_dir", None)
    )
    if roots:
        from .engine.trust import TrustRefused, confirm_trust

        try:
            confirm_trust([root.parent for root in roots])
        except TrustRefused as e:
            sys.stderr.write(f"{e}\n")
            raise SystemExit(1) from None  # pytest.exit is not handled this early


@pytest.hookimpl(wrapper=True, specname="pytest_load_initial_conftests")
def pytest_load_initial_conftests_extras(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, object, object]:
    """After the conftests have registered their options: `-n` or `--html` without its extra names the extra."""
    result = yield
    _extras.refuse_missing_extras(parser, args)
    return result


def eval_roots_of(paths: Iterable[Path], eval_dir: str | None) -> list[Path]:
    """The eval dirs the paths reach, and those a plugin whose suite is only in its skill folders would have."""
    roots: list[Path] = []
    for path in paths:
        found = find_eval_roots(path, eval_dir, missing=missing_eval_root)
        roots += [root for root in found if root not in roots]
    return roots


@pytest.hookimpl(trylast=True)  # after the terminal reporter exists
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "plugin_eval: one run of a Claude Code plugin eval case")
    config.addinivalue_line("markers", f"{_options.TRIGGER_MARKER}: one run of a trigger query (trigger evals)")
    options = config.stash.get(OPTIONS_KEY, None)
    if options is None:  # an xdist worker, which skips the early check
        try:
            options = _option_parse.parse_options(config.option)
        except _option_parse.OptionError as e:
            pytest.exit(str(e), returncode=1)
    options = _option_parse.with_ini(options, config)
    if options.json_path == "-":
        terminal_to_stderr(config)
    roots = eval_roots_of(_option_parse.collection_paths(config), options.eval_dir)
    worker_of_eval = _options.WORKER_INPUT_KEY in getattr(config, "workerinput", {})
    if roots or worker_of_eval or _option_parse.eval_options_given(config.option):
        from .session import hooks

        hooks.start(config, options, roots)


def terminal_to_stderr(config: pytest.Config) -> None:
    """`--json` without a path prints the document on stdout: pytest's own output goes to stderr, so that stdout
    is the document alone."""
    from .session.pytest_internals import redirect_terminal

    redirect_terminal(config, sys.stderr)
