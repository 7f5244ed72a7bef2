"""CONTRIBUTING.md's "Where each capability lives" stays true: every path it names exists, and every module of the
package is named in one of its rows (a new module gets a place on the map, a moved one its new path)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_plugin_eval"
HEADING = "## Where each capability lives"
PATH = re.compile(r"`([\w./-]+(?:\.py|\.md|/))`")


def map_rows(text: str) -> list[str]:
    """The table rows of the map's section."""
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| capability")]


def named_paths(rows: list[str]) -> set[str]:
    return {m.group(1) for row in rows for m in PATH.finditer(row)}


def package_modules() -> set[str]:
    return {
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if p.name != "__init__.py" or p.parent == PACKAGE
    }


ROWS = map_rows((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))


def test_the_map_has_rows():
    assert len(ROWS) > 10


def test_the_paths_are_read_from_backticks():
    assert named_paths(["| tune | `tune/loop.py` (the loop), `report/templates/`, `plugin-eval tune` |"]) == {
        "tune/loop.py",
        "report/templates/",
    }


def test_every_path_it_names_exists():
    missing = sorted(path for path in named_paths(ROWS) if not (PACKAGE / path).exists())
    assert not missing, f"CONTRIBUTING.md's map names paths that do not exist below pytest_plugin_eval/: {missing}"


def test_every_module_is_on_the_map():
    unmapped = sorted(package_modules() - named_paths(ROWS))
    assert not unmapped, f"modules missing from CONTRIBUTING.md's map (give each a row or a place in one): {unmapped}"


LAYOUT = "## How the code is laid out"


def layout_rows(text: str) -> list[str]:
    """The first cells of the layout table: one package (`load/`) or top-level module (`stats.py`) a row."""
    section = text.split(LAYOUT, 1)[1].split("\n## ", 1)[0]
    return [
        line.split("|")[1].strip().strip("`")
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| package")
    ]


def top_level() -> list[str]:
    """The package's own parts: its subpackages (`load/`) and its top-level modules (`stats.py`, `__init__.py`)."""
    packages = [p.name + "/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    return sorted(packages + [p.name for p in PACKAGE.glob("*.py")])


def test_every_package_has_one_row_of_its_own_in_the_layout():
    rows = layout_rows((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert len(rows) == len(set(rows)), f"a package with two rows in CONTRIBUTING.md's layout: {rows}"
    assert sorted(rows) == top_level(), (
        "CONTRIBUTING.md's 'How the code is laid out' has a row per package and top-level module, each alone: "
        f"missing {sorted(set(top_level()) - set(rows))}, not in the package {sorted(set(rows) - set(top_level()))}"
    )
