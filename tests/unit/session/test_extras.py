"""Unit tests for the optional extras (pytest_plugin_eval.session.extras): nothing of the package imports
pytest-xdist or pytest-html when it is imported, and their options without them name the extra to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import xdist.plugin
from _pytest.config.argparsing import Parser

from pytest_plugin_eval.session.addoption import add_options
from pytest_plugin_eval.session.extras import missing_extra, option_name, refuse_missing_extras

PACKAGE = Path(__file__).resolve().parents[3] / "pytest_plugin_eval"


def test_no_module_of_the_package_needs_xdist_or_pytest_html_to_import():
    modules = sorted(
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")
    )
    # A module set to None in sys.modules cannot be imported: as if the extra were not installed.
    script = (
        "import importlib, sys\n"
        "for name in ('xdist', 'xdist.plugin', 'pytest_html', 'pytest_html.extras'): sys.modules[name] = None\n"
        f"for module in {modules!r}: importlib.import_module(module)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("arg", "name"),
    [("-n", "-n"), ("-n4", "-n"), ("--numprocesses=2", "--numprocesses"), ("--html", "--html"), ("-k", "-k")],
)
def test_option_name_of_an_argument(arg, name):
    assert option_name(arg) == name


def test_an_extras_option_names_the_extra_to_install():
    assert missing_extra(["--bogus", "-n4"]) == (
        "-n is an option of pytest-xdist, which is not installed (or is disabled with -p no:…): "
        "pip install 'pytest-plugin-eval[xdist]'"
    )
    assert "pip install 'pytest-plugin-eval[html]'" in (missing_extra(["--html=report.html"]) or "")
    assert missing_extra(["--bogus"]) is None  # pytest's own "unrecognized arguments" says it


def plugin_parser(*, with_xdist: bool) -> Parser:
    parser = Parser(_ispytest=True)
    add_options(parser)
    if with_xdist:
        xdist.plugin.pytest_addoption(parser)
    return parser


def test_minus_n_without_xdist_is_a_usage_error_naming_the_extra():
    with pytest.raises(pytest.UsageError, match=r"-n is an option of pytest-xdist.*\[xdist\]"):
        refuse_missing_extras(plugin_parser(with_xdist=False), ["evals/", "-n", "2"])


def test_minus_n_with_xdist_and_other_command_lines_pass():
    refuse_missing_extras(plugin_parser(with_xdist=True), ["evals/", "-n", "2"])
    refuse_missing_extras(plugin_parser(with_xdist=False), ["evals/", "-k", "no-plugin", "--runs", "3"])


def test_a_session_without_xdist_says_which_extra_gives_minus_n(pytester):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:xdist.looponfail", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "-n is an option of pytest-xdist" in result.stderr.str()
    assert "pip install 'pytest-plugin-eval[xdist]'" in result.stderr.str()
