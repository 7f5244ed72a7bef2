"""pytest's internals are used in one module (pytest_plugin_eval.session.pytest_internals) and nowhere else, and
what it does with them works on the installed pytest."""

from __future__ import annotations

import ast
import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.session import pytest_internals

PACKAGE = Path(pytest_internals.__file__).resolve().parents[1]
HOME = Path(pytest_internals.__file__).resolve()
# Private attributes of pytest's objects the plugin touches (TerminalReporter._tw, TerminalWriter._file,
# LFPlugin._report_status, OptionGroup._addoption).
PRIVATE = {"_tw", "_file", "_report_status", "_addoption"}


def internals_used(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_pytest"):
            found.append(f"{path.name}:{node.lineno}: from {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{path.name}:{node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_pytest")]
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return found


def test_no_module_but_pytest_internals_uses_pytest_internals():
    assert [hit for path in sorted(PACKAGE.rglob("*.py")) if path != HOME for hit in internals_used(path)] == []
    assert internals_used(HOME)  # the scan does see them where they are


def test_the_terminal_can_be_redirected(pytestconfig):
    terminal = SimpleNamespace(_tw=None)
    config = SimpleNamespace(
        pluginmanager=SimpleNamespace(get_plugin={"terminalreporter": terminal}.get),
        option=pytestconfig.option,
        get_terminal_writer=None,
    )
    out = io.StringIO()
    pytest_internals.redirect_terminal(config, out)
    pytest_internals.terminal_writer(terminal).write("moved")
    assert pytest_internals.terminal_file(terminal) is out and out.getvalue() == "moved"


def test_the_last_failed_status_line_is_set_on_pytests_lf_plugin(pytester: pytest.Pytester):
    pytester.makepyfile("def test_a(): pass")
    pytester.makeconftest(
        "import pytest\n"
        "from pytest_plugin_eval.session.pytest_internals import set_last_failed_status\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_collection_finish(session):\n"
        "    set_last_failed_status(session.config, 'rerunning 2 runs of 1 case')\n"
    )
    result = pytester.runpytest("--lf", "-p", "no:plugin_eval")
    result.stdout.fnmatch_lines(["run-last-failure: rerunning 2 runs of 1 case"])
