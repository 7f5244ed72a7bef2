"""The public API is named three times in `pytest_plugin_eval/__init__.py`, each for a reader of its own: `_EXPORTS`
(what `__getattr__` imports on first use), `__all__` (a literal list, as type checkers read a py.typed package's
re-exports) and the `TYPE_CHECKING` imports (what type checkers see). They name the same names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest_plugin_eval

INIT = Path(pytest_plugin_eval.__file__)


def type_checking_imports() -> dict[str, str]:
    """name → module (relative to the package) of the imports under `if TYPE_CHECKING:`."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    return {
        alias.asname or alias.name: node.module or ""
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_all_names_exactly_the_exports():
    assert sorted(pytest_plugin_eval.__all__) == sorted(pytest_plugin_eval._EXPORTS)


def test_the_type_checking_imports_are_the_exports_from_their_modules():
    assert type_checking_imports() == pytest_plugin_eval._EXPORTS


def test_every_export_imports():
    for name, module in pytest_plugin_eval._EXPORTS.items():
        assert getattr(pytest_plugin_eval, name) is getattr(
            importlib.import_module(f"pytest_plugin_eval.{module}"), name
        )


def test_no_module_of_the_package_is_named_as_an_export():
    """Importing `pytest_plugin_eval.<name>` sets the package's attribute `<name>` to that module, which would
    then shadow the export of that name (a `check/` package hid `pytest_plugin_eval.check` once imported)."""
    top = {p.stem if p.suffix == ".py" else p.name for p in INIT.parent.iterdir() if not p.name.startswith("_")}
    assert not top & set(pytest_plugin_eval._EXPORTS)
