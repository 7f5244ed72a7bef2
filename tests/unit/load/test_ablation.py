"""What --ablate can name in a plugin folder, and what leaving each out removes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.load.ablation import UnknownComponent, removal_of, removals, server_files


def plugin(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": "p", "hooks": {"Stop": []}, "mcpServers": {"inline": {"command": "x"}}}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    for skill in ("review", "greet"):
        (root / "skills" / skill).mkdir(parents=True)
        (root / "skills" / skill / "SKILL.md").write_text(f"---\nname: {skill}\ndescription: d\n---\nx\n")
    (root / "commands").mkdir()
    (root / "commands" / "ship.md").write_text("---\ndescription: d\n---\n")
    (root / "agents").mkdir()
    (root / "agents" / "critic.md").write_text("---\nname: critic\n---\n")
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text("{}")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": {"command": "db"}}}))
    return root


def test_every_kind_of_component_can_be_named(tmp_path):
    found = removals(plugin(tmp_path))
    kinds = {name: [r.kind for r in found[name]] for name in found}
    assert kinds == {
        "review": ["skill"],
        "greet": ["skill"],
        "ship": ["command"],
        "critic": ["agent"],
        "hooks": ["hooks"],
        "db": ["mcp server"],
        "inline": ["mcp server"],
    }
    assert found["review"][0].paths == (Path("skills/review"),)
    assert found["hooks"][0].paths == (Path("hooks/hooks.json"),) and found["hooks"][0].manifest_keys == ("hooks",)


def test_an_unknown_component_names_what_there_is(tmp_path):
    with pytest.raises(UnknownComponent, match=r"--ablate nope: .* \(it has: critic, db, greet, hooks, inline"):
        removal_of(plugin(tmp_path), "nope")


def test_server_files_are_those_that_exist(tmp_path):
    assert server_files(plugin(tmp_path)) == [Path(".mcp.json"), Path(".claude-plugin/plugin.json")]
