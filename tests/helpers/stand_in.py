"""The configuration the MCP stand-in server is started with, for the tests that drive it (in-process and over
stdio): a server `tracker` of the plugin `mockp`, answering with the given responders."""

from __future__ import annotations

import json
from pathlib import Path

PREFIX = "mcp__plugin_mockp_tracker__"


def stand_in_config(tmp_path: Path, responders: dict, agent: dict | None = None, tools: list | None = None) -> dict:
    return {
        "server": "tracker",
        "registeredName": "plugin:mockp:tracker",
        "toolPrefix": PREFIX,
        "callLog": str(tmp_path / "out" / "mock-calls.jsonl"),
        "tools": tools
        if tools is not None
        else [
            {"name": name, "description": f"The {name} tool", "inputSchema": {"type": "object"}} for name in responders
        ],
        "responders": responders,
        "agent": agent,
    }


def fixed(body: str, base_dir: Path, guards: list | None = None, is_error: bool = False) -> dict:
    return {"kind": "fixed", "body": body, "isError": is_error, "guards": guards or [], "baseDir": str(base_dir)}


def call_log(tmp_path: Path) -> list[dict]:
    path = tmp_path / "out" / "mock-calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def text_of(result: dict) -> str:
    assert [block["type"] for block in result["content"]] == ["text"]
    return result["content"][0]["text"]
