"""The test suite itself: pytest imports test modules outside a package by their basename, so two such modules
with one name (tests/unit/x/test_a.py and tests/acceptance/test_a.py) break `pytest tests` — though each half
runs alone."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_top_level_test_modules_share_a_basename():
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if not (path.parent / "__init__.py").exists():  # in a package, the module's name is qualified
            by_name[path.name].append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}
