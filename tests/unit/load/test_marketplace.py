"""A marketplace root and the plugins it lists (pytest_plugin_eval.load.marketplace)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.load.marketplace import Entry, marketplace_entries, marketplace_refusal


def marketplace(root: Path, plugins: list, **extra) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "plugins": plugins, **extra}))
    return root


def test_its_entries_local_and_remote(tmp_path):
    root = marketplace(
        tmp_path / "m",
        [
            {"name": "a", "source": "./plugins/a", "strict": False},
            {"name": "b", "source": {"source": "github", "repo": "o/b"}},
            {"name": "c", "source": "c"},
        ],
        metadata={"pluginRoot": "./plugins"},
    )
    assert marketplace_entries(root) == [
        Entry("a", root / "plugins" / "a", strict=False),
        Entry("b", None),
        Entry("c", root / "plugins" / "c"),
    ]
    assert marketplace_entries(tmp_path) is None


def test_a_marketplace_root_with_nothing_of_its_own_is_refused_with_its_plugins(tmp_path):
    root = marketplace(tmp_path / "m", [{"name": "a", "source": "./plugins/a"}])
    (root / "plugins" / "a").mkdir(parents=True)
    said = marketplace_refusal(root, "check", loads_something=False)
    assert said is not None and "this folder is a plugin marketplace (.claude-plugin/marketplace.json)" in said
    assert "  a: plugins/a" in said and "(e.g. cd plugins/a && plugin-eval check)" in said
    # a marketplace root that is a plugin itself (a root SKILL.md, as anthropics/skills-style repos) is evaluated
    assert marketplace_refusal(root, "check", loads_something=True) is None
