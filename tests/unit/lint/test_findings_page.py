"""docs/findings.md lists every kind of finding the code can give (read from the source, so a new kind without
its line in the docs fails here)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [
    *(ROOT / "pytest_plugin_eval" / "lint").glob("*.py"),
    *(ROOT / "pytest_plugin_eval" / "results").glob("*.py"),
]


def kinds_in_code() -> set[str]:
    found: set[str] = set()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'(?<!\w)kind="([a-z-]+)"', text))  # Finding(…, kind="…")
        found |= set(re.findall(r'^KIND = "([a-z-]+)"', text, re.M))
        found |= (
            set(re.findall(r'kind="([a-z-]+)" if \w+ else "([a-z-]+)"', text)[0])
            if " if negated else " in text
            else set()
        )
    return found


def test_every_kind_is_on_the_findings_page():
    kinds = kinds_in_code()
    assert {"tool-not-granted", "tool-refused", "prompt-names-skill", "no-delta-possible"} <= kinds
    page = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert [k for k in sorted(kinds) if f"| `{k}` |" not in page] == []
