"""The front pages outside the docs site — README.md, CONTRIBUTING.md, CHANGELOG.md — link to files that exist
(mkdocs build --strict checks the links inside docs/, not these)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def local_links(text: str) -> list[str]:
    """Relative link targets of a Markdown text, anchors cut off (web addresses and in-page anchors are left out)."""
    targets = (m.group(1) for m in LINK.finditer(text))
    return [t.split("#")[0] for t in targets if not re.match(r"^[a-z]+:|#", t)]


def test_local_links_are_read_relative_and_without_anchors():
    text = "[a](docs/a.md) [b](docs/b.md#part) [c](https://x.org/y.md) [d](#here) [e](mailto:me@x.org)"
    assert local_links(text) == ["docs/a.md", "docs/b.md"]


@pytest.mark.parametrize("page", ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"])
def test_every_local_link_of_a_front_page_exists(page):
    missing = [t for t in local_links((ROOT / page).read_text(encoding="utf-8")) if not (ROOT / t).exists()]
    assert not missing, f"{page} links to files that do not exist: {missing}"


def test_the_changelog_is_wrapped():
    # merges leave joined lines behind; the changelog is read as text as often as rendered
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    long = [n for n, line in enumerate(text.splitlines(), 1) if len(line) > 120]
    assert not long, f"CHANGELOG.md lines longer than 120 characters: {long}"
