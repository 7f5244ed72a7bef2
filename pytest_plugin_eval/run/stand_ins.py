"""The stand-in MCP servers of one run: which servers the plugins declare, which mocks shadow them, which are
standalone, which declared servers are withheld — and, after the run, what the agent called.

Claude Code names a plugin's MCP server `plugin:<plugin>:<server>` and its tools `mcp__plugin_<plugin>_<server>__
<tool>`. A stand-in registered under the same name (`--mcp-config`) takes the real server's place, so the agent
sees the tools it would see in real use, and no real server starts unless asked (`--allow-real-servers`,
`--mocks off`). A mock folder matching no declared server is a standalone server, `mcp__<dir>__<tool>`, and is
the only kind also served in the without arm (no plugin is loaded there).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..load.mocks import MockSet, ServerMocks
from ..load.suite import declared_servers, plugin_at
from .artefacts import MOCK_CALLS

# A stand-in holds its answer to an aborting call this long: the harness stops the agent meanwhile, so the agent
# never acts on the answer (the harness polls the call log every 0.2 s).
ABORT_HOLD_SECONDS = 10


def tool_prefix(registered: str) -> str:
    return "mcp__" + re.sub(r"[^A-Za-z0-9_-]", "_", registered) + "__"


@dataclass(frozen=True)
class StandIn:
    server: str  # the mock folder's name (or the declared server's, when withheld)
    registered: str  # the name Claude Code knows it by
    kind: str  # "shadow" | "standalone"
    mocks: ServerMocks | None  # None: withheld (an empty stand-in keeps the real server from starting)

    @property
    def prefix(self) -> str:
        return tool_prefix(self.registered)

    def tool_names(self) -> list[str]:
        return [self.prefix + tool for tool in sorted(self.mocks.responders)] if self.mocks else []

    def summary(self) -> dict:
        out: dict = {"server": self.server, "kind": self.kind}
        if self.mocks is None:
            out["withheld"] = True
        elif self.mocks.replay_dir is not None:
            out["replayPinned"] = len(list(self.mocks.replay_dir.glob("*.json")))
        out["tools"] = [
            {"tool": t, "responder": r.kind} for t, r in sorted((self.mocks.responders if self.mocks else {}).items())
        ]
        return out


@dataclass
class MockPlan:
    stand_ins: list[StandIn] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return bool(self.stand_ins)

    def granted_tools(self) -> list[str]:
        return [name for s in self.stand_ins for name in s.tool_names()]


def mocked_tools(mocks: MockSet, plugin_dirs: tuple[Path, ...]) -> list[str]:
    """The tools the case's stand-ins serve in the with arm, by the names the agent calls them. They are granted
    to every run (an answer from a mock file is safe), as the reference tool grants its mocked tools: a grader
    or an allowed_tools entry naming one needs no --allow-tools."""
    plugins = {plugin_at(folder).name: folder for folder in plugin_dirs}
    return plan_mocks(mocks, plugins, "with", allow_real_servers=False).granted_tools()


def plan_mocks(mocks: MockSet, plugins: dict[str, Path], arm: str, *, allow_real_servers: bool) -> MockPlan:
    """Which stand-ins a run registers. `plugins`: name → folder of the plugins loaded in this arm."""
    configs = {name: declared_servers(folder) for name, folder in plugins.items()}
    declared = {server: name for name, servers in configs.items() for server in servers}
    plan = MockPlan()
    for server, found in sorted(mocks.servers.items()):
        plan.notes += found.notes
        if not found.responders:
            continue
        if server in declared:
            plan.stand_ins.append(StandIn(server, f"plugin:{declared[server]}:{server}", "shadow", found))
        else:
            unmocked = [f"plugin:{p}:{s}" for s, p in declared.items() if s not in mocks.servers]
            hint = f' — rename the directory if that was meant to shadow "{unmocked[0]}"' if unmocked else ""
            plan.notes.append(
                f"mocks: mocks/{server}/ matches no server the plugins declare, so it is served as standalone{hint}"
            )
            plan.stand_ins.append(StandIn(server, server, "standalone", found))
    if arm == "without":
        plan.stand_ins = [s for s in plan.stand_ins if s.kind == "standalone"]
        return plan
    for server, plugin in sorted(declared.items()):
        if server in mocks.servers and mocks.servers[server].responders:
            continue
        registered = f"plugin:{plugin}:{server}"
        url = remote_url(configs[plugin][server])
        if allow_real_servers:
            plan.notes.append(
                f'⚠ mocks: "{registered}" has no mock: the runs connect to its REAL server at {url} '
                f"(--allow-real-servers)"
                if url is not None
                else f'⚠ mocks: "{registered}" has no mock: its REAL server starts (--allow-real-servers), '
                f"as you, outside the sandbox"
            )
            continue
        real = f"let the runs connect to {url}" if url is not None else "run the real server"
        plan.notes.append(
            f'mocks: "{registered}" has no mock and is NOT {"connected" if url is not None else "started"} — its '
            f"tools are unavailable to the runs; add mocks/{server}/ to mock it, or pass --allow-real-servers to {real}"
        )
        plan.stand_ins.append(StandIn(server, registered, "shadow", None))
    return plan


def remote_url(config: dict) -> str | None:
    """The address of a server Claude Code connects to (`type: http` or `sse`, or a `url`), None for one it starts."""
    if config.get("type") in ("http", "sse") or "url" in config:
        return str(config.get("url") or "(no url)")
    return None


def write_configs(plan: MockPlan, out: Path, agent: dict | None, record_dir: Path | None, env: dict) -> Path:
    """Each stand-in's config, and the --mcp-config file registering them. Returns the latter."""
    folder = out / "mocks"
    folder.mkdir(parents=True, exist_ok=True)
    servers = {}
    for stand_in in plan.stand_ins:
        config = folder / f"{re.sub(r'[^A-Za-z0-9_-]', '_', stand_in.registered)}.json"
        tools = stand_in.mocks.tool_listing() if stand_in.mocks else []
        responders = {t: r.to_config() for t, r in (stand_in.mocks.responders.items() if stand_in.mocks else ())}
        uses_agent = any(r["kind"] == "agent" for r in responders.values())
        agent_config = None
        if uses_agent and agent is not None and stand_in.mocks is not None:
            agent_config = {
                **agent,
                "replayDir": str(stand_in.mocks.replay_dir) if stand_in.mocks.replay_dir else None,
                "recordDir": str(record_dir / stand_in.server) if record_dir else str(out / "recordings"),
            }
        config.write_text(
            json.dumps(
                {
                    "server": stand_in.server,
                    "registeredName": stand_in.registered,
                    "toolPrefix": stand_in.prefix,
                    "callLog": str(out / MOCK_CALLS),
                    "tools": tools,
                    "responders": responders,
                    "agent": agent_config,
                    "abortHoldSeconds": ABORT_HOLD_SECONDS,
                },
                indent=1,
            )
        )
        servers[stand_in.registered] = {
            "command": sys.executable,
            "args": ["-m", "pytest_plugin_eval.doubles.mcp.server", str(config)],
            "env": env,
        }
    path = out / "mcp-config.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=1))
    return path


def read_calls(out: Path) -> list[dict]:
    lines = []
    try:
        text = (out / MOCK_CALLS).read_text(encoding="utf-8")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


def first_abort(calls: list[dict]) -> dict | None:
    for call in calls:
        if call.get("verdict") == "abort":
            tool = call.get("tool", "")
            return {"server": call.get("server"), "tool": tool.rsplit("__", 1)[-1], "reason": call.get("reason", "")}
    return None


def grader_view(calls: list[dict]) -> tuple[dict, ...]:
    """The mock_calls target: one record per call — tool, input, output, isError (when set), verdict."""
    out = []
    for call in calls:
        record = {"tool": call.get("tool"), "input": call.get("input"), "output": call.get("output", "")}
        if call.get("isError"):
            record["isError"] = True
        record["verdict"] = call.get("verdict", "ok")
        out.append(record)
    return tuple(out)


def run_summary(plan: MockPlan, calls: list[dict], tool_calls: list, warnings: list[str]) -> dict:
    """The run's `mocks` field: servers, warnings, and what was called."""
    mocked = {name for s in plan.stand_ins for name in s.tool_names()}
    prefixes = tuple(s.prefix for s in plan.stand_ins)
    unmocked = Counter(c.name for c in tool_calls if c.name.startswith(prefixes) and c.name not in mocked)
    replay = Counter(call.get("replay") for call in calls if call.get("replay"))
    return {
        "servers": [s.summary() for s in plan.stand_ins],
        "warnings": warnings,
        "calls": {
            "total": len(calls),
            "errors": sum(1 for c in calls if c.get("isError")),
            "unmocked": [{"tool": t, "count": n} for t, n in sorted(unmocked.items())],
            "costUsd": sum(c.get("costUsd") or 0.0 for c in calls),
            "replay": {"hits": replay["hit"], "misses": replay["miss"], "stale": replay["stale"]},
        },
    }
