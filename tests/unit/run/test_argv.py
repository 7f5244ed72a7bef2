"""Unit tests for the child's command line and environment (pytest_plugin_eval.run.execute: build_argv, child_env,
stage, stand_ins) for loaded cases, in a workspace whose folders are made by hand (no `git init`, no child)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.plugin import Suite

from pytest_plugin_eval.load.case import Case
from pytest_plugin_eval.run import execute as run_execute
from pytest_plugin_eval.run import permissions
from pytest_plugin_eval.run.agent import AgentStartError
from pytest_plugin_eval.run.execute import (
    CHILD_DEFAULTS,
    RunPlan,
    RunSettings,
    build_argv,
    child_env,
    mock_calls_with_only,
    stage,
    stand_ins,
)
from pytest_plugin_eval.run.stand_ins import plan_mocks
from pytest_plugin_eval.run.workspace import Workspace

CLAUDE = Path("/opt/claude/bin/claude")


def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
        folder.mkdir(parents=True)
    return ws


def plan(case: Case, arm: str = "with", environ: dict | None = None, **settings) -> RunPlan:
    return RunPlan(
        case=case,
        arm=arm,
        index=1,
        settings=RunSettings(**settings),
        claude=CLAUDE,
        environ={"PATH": "/usr/bin"} if environ is None else environ,
    )


def flag(argv: list[str], name: str) -> str | None:
    """The value of `--name=value` (None when absent)."""
    found = [a.split("=", 1)[1] for a in argv if a.startswith(f"{name}=")]
    assert len(found) <= 1, argv
    return found[0] if found else None


def values(argv: list[str], name: str) -> list[str]:
    """Every value of the separate-argument flag `name value`."""
    return [argv[i + 1] for i, a in enumerate(argv) if a == name]


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return workspace(tmp_path)


# ---- build_argv ------------------------------------------------------------------------------------------------


def test_the_argv_of_a_plain_case(suite, ws):
    case = suite.loaded()
    argv = build_argv(plan(case), ws)
    disallowed = [
        f"Read(/{ws.config}/**)",
        f"Edit(/{ws.config}/**)",
        f"Read(/{ws.out}/**)",
        f"Edit(/{ws.out}/**)",
        f"Edit(/{suite.plugin}/**)",
        f"Edit(/{case.dir}/**)",
        f"Edit(/{ws.cwd}/.git)",
        f"Edit(/{ws.cwd}/.git/**)",
        f"Edit(/{ws.cwd}/.eval-artifacts)",
        f"Edit(/{ws.cwd}/.eval-artifacts/**)",
        f"Read(/{suite.evals})",
        f"Read(/{suite.evals}/**)",
        f"Edit(/{suite.evals})",
        f"Edit(/{suite.evals}/**)",
        "Read(//proc/**)",
        # The operator's home, other runs' workspaces, credential files (test_confinement.py).
        *permissions.elsewhere_rules(run_execute.run_folders(plan(case), ws)),
        *permissions.DENIED_TOOLS,
    ]
    assert argv == [
        str(CLAUDE),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",  # evidence of a reply still coming at a time limit (run/partial.py)
        "--max-turns",
        "10",
        "--permission-mode",
        "dontAsk",
        "--setting-sources",
        "user",
        "--plugin-dir",
        str(suite.plugin),
        "--disallowed-tools=" + ",".join(disallowed),
    ]


def test_the_plugin_is_loaded_in_the_with_arm_only(suite, ws):
    case = suite.loaded()
    assert values(build_argv(plan(case, "with"), ws), "--plugin-dir") == [str(suite.plugin)]
    assert values(build_argv(plan(case, "without"), ws), "--plugin-dir") == []


def test_several_plugins_of_a_case(suite, ws):
    for sub in ("a", "b"):
        (suite.plugin / "extra" / sub / "skills").mkdir(parents=True)
    case = suite.loaded(fm="plugins: [../../extra/a, ../../extra/b]")
    assert values(build_argv(plan(case), ws), "--plugin-dir") == [
        str(suite.plugin / "extra" / "a"),
        str(suite.plugin / "extra" / "b"),
    ]


def test_the_model_option_wins_over_the_case(suite, ws):
    case = suite.loaded(fm="model: haiku\nmax_turns: 3")
    argv = build_argv(plan(case), ws)
    assert flag(argv, "--model") == "haiku"
    assert values(argv, "--max-turns") == ["3"]
    assert flag(build_argv(plan(case, model="opus"), ws), "--model") == "opus"
    assert flag(build_argv(plan(suite.loaded(name="plain")), ws), "--model") is None


def test_allowed_and_disallowed_tools(suite, ws):
    case = suite.loaded(fm="allowed_tools: [Read, Skill, Bash, Edit(src/**)]\ndisallowed_tools: [Agent]")
    argv = build_argv(
        plan(case, allow_tools=("Write", "WebFetch(domain:example.com)"), disallow_tools=("TaskStop", "Agent")), ws
    )
    # Bash and Edit(src/**) are gated: the case cannot grant them, only the operator.
    readers = [
        f"Read(/{root}/**)" for root in (ws.home, ws.tmp, suite.plugin / ".claude-plugin", suite.plugin / "skills")
    ]
    assert flag(argv, "--allowed-tools").split(",") == [
        *readers,
        "Skill",
        "WebFetch(domain:example.com)",
        f"Edit(/{ws.cwd}/**)",
        f"Write(/{ws.cwd}/**)",
        f"Edit(/{ws.tmp}/**)",
        f"Write(/{ws.tmp}/**)",
    ]
    disallowed = flag(argv, "--disallowed-tools").split(",")
    # Granted tools leave the deny list; the case's and the operator's removals come last, once each.
    assert "Write" not in disallowed and "Edit" not in disallowed and "WebFetch" not in disallowed
    assert "Bash" in disallowed and "WebSearch" in disallowed
    assert disallowed[-2:] == ["Agent", "TaskStop"]
    assert disallowed.count("Agent") == 1


ADD_DIRS = (
    'schema_version: "1.0"\nname: n\nexecution:\n  prompt: Read the fixtures.\n'
    "  append_system_prompt: Be brief.\ncontext:\n  add_dirs: [fixtures, more]\n"
)


def test_add_dirs_are_readable_and_named(suite, ws):
    case = suite.loaded(md=False, case_yaml=ADD_DIRS, files={"fixtures/a.txt": "a", "more/b.txt": "b"})
    argv = build_argv(plan(case), ws)
    fixtures, more = case.dir / "fixtures", case.dir / "more"
    assert values(argv, "--add-dir") == [str(fixtures), str(more)]
    assert flag(argv, "--allowed-tools").split(",") == [
        f"{tool}(/{folder}/**)" for folder in (fixtures, more) for tool in ("Read", "Glob", "Grep")
    ]
    # The rest of the suite stays hidden: the case's other files are denied one by one.
    disallowed = flag(argv, "--disallowed-tools").split(",")
    assert f"Read(/{case.dir / 'case.yaml'})" in disallowed
    assert f"Read(/{fixtures})" not in disallowed and f"Read(/{suite.evals})" not in disallowed
    assert flag(argv, "--append-system-prompt") == "Be brief."


def test_no_append_system_prompt_unless_asked(suite, ws):
    assert not any(a.startswith("--append-system-prompt") for a in build_argv(plan(suite.loaded()), ws))


HISTORY = (
    'schema_version: "1.0"\nname: resumed\nexecution:\n  prompt: Go on.\ncontext:\n  history_file: history.jsonl\n'
)


def test_a_history_is_resumed_from_the_workspace_copy(suite, ws):
    case = suite.loaded(md=False, case_yaml=HISTORY, files={"history.jsonl": '{"type":"user"}\n'})
    argv = build_argv(plan(case), ws)
    assert values(argv, "--resume") == [str(ws.history)]
    assert values(build_argv(plan(suite.loaded(name="plain")), ws), "--resume") == []


def test_active_stand_ins_bring_the_mcp_config_and_their_tools(tmp_path):
    suite = Suite(tmp_path, mcp=True)
    ws = workspace(tmp_path)
    case = suite.loaded(files={"mocks/srv/lookup.md": "found it", "mocks/extra/ping.md": "pong"})
    mock_plan = plan_mocks(case.mocks, {"p": suite.plugin}, "with", allow_real_servers=False)
    argv = build_argv(plan(case), ws, mock_plan)
    assert flag(argv, "--mcp-config") == str(ws.out / "mcp-config.json")
    assert flag(argv, "--allowed-tools").split(",") == ["mcp__extra__ping", "mcp__plugin_p_srv__lookup"]
    assert flag(build_argv(plan(case), ws, None), "--mcp-config") is None
    assert flag(build_argv(plan(case), ws, None), "--allowed-tools") is None


def test_inactive_stand_ins_add_nothing(suite, ws):
    case = suite.loaded()
    mock_plan = plan_mocks(case.mocks, {"p": suite.plugin}, "with", allow_real_servers=False)
    assert not mock_plan.active
    assert build_argv(plan(case), ws, mock_plan) == build_argv(plan(case), ws)


def test_stand_ins_write_the_mcp_config(tmp_path):
    suite = Suite(tmp_path, mcp=True)
    ws = workspace(tmp_path)
    case = suite.loaded(files={"mocks/srv/lookup.md": "found it"})
    mock_plan = stand_ins(plan(case), ws)
    assert [(s.registered, s.kind) for s in mock_plan.stand_ins] == [("plugin:p:srv", "shadow")]
    config = json.loads((ws.out / "mcp-config.json").read_text())
    assert list(config["mcpServers"]) == ["plugin:p:srv"]
    assert config["mcpServers"]["plugin:p:srv"]["args"][:2] == ["-m", "pytest_plugin_eval.doubles.mcp.server"]
    # In the without arm the plugin's servers are not served; --mocks off serves none.
    assert stand_ins(plan(case, "without"), workspace(tmp_path / "w2")).active is False
    assert stand_ins(plan(case, mocks="off"), ws) is None


# ---- child_env -------------------------------------------------------------------------------------------------


def test_child_env_defaults_and_the_runs_folders(suite, ws):
    case = suite.loaded(fm='env:\n  EVAL_COLOUR: "blue"')
    env = child_env(plan(case, environ={"PATH": "/usr/bin", "SECRET_TOKEN": "s", "HOME": "/root"}), ws)
    assert {k: env[k] for k in CHILD_DEFAULTS} == {"CLAUDE_CODE_MAX_RETRIES": "3"}
    assert env["CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS"] == "90000"  # the default 300 s limit: 90 s of silence
    assert (env["PATH"], env["HOME"], env["CLAUDE_CONFIG_DIR"], env["TMPDIR"]) == (
        "/usr/bin",
        str(ws.home),
        str(ws.config),
        str(ws.tmp),
    )
    assert env["EVAL_COLOUR"] == "blue"
    assert "SECRET_TOKEN" not in env
    assert "ANTHROPIC_BASE_URL" not in env and "ANTHROPIC_API_KEY" not in env


@pytest.mark.parametrize(("timeout", "idle"), [(12, "10000"), (45, "15000"), (180, "60000"), (900, "90000")])
def test_the_silence_claude_code_drops_a_stream_after_is_a_third_of_the_time_limit(suite, ws, timeout, idle):
    env = child_env(plan(suite.loaded(fm=f"timeout_seconds: {timeout}"), environ={"PATH": "/usr/bin"}), ws)
    assert env["CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS"] == idle


def test_the_operator_can_override_the_child_defaults(suite, ws):
    env = child_env(
        plan(suite.loaded(), environ={"CLAUDE_CODE_MAX_RETRIES": "7", "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS": "1000"}), ws
    )
    assert (env["CLAUDE_CODE_MAX_RETRIES"], env["CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS"]) == ("7", "1000")


def test_the_operators_endpoint_and_key_pass_through(suite, ws):
    env = child_env(
        plan(suite.loaded(), environ={"ANTHROPIC_API_KEY": "sk-real", "ANTHROPIC_BASE_URL": "https://proxy.example"}),
        ws,
    )
    assert (env["ANTHROPIC_API_KEY"], env["ANTHROPIC_BASE_URL"]) == ("sk-real", "https://proxy.example")


def test_scripted_runs_get_their_url_and_a_placeholder_key(suite, ws):
    asked = []

    def url(cwd: Path) -> str:
        asked.append(cwd)
        return "http://127.0.0.1:4321/agent/abc"

    case = suite.loaded()
    scripted = RunPlan(
        case=case,
        arm="with",
        index=1,
        settings=RunSettings(),
        claude=CLAUDE,
        base_url=url,
        environ={"ANTHROPIC_BASE_URL": "https://real.example"},
    )
    env = child_env(scripted, ws)
    assert (env["ANTHROPIC_BASE_URL"], env["ANTHROPIC_API_KEY"]) == ("http://127.0.0.1:4321/agent/abc", "scripted")
    assert asked == [ws.cwd]
    # An operator's key is left as it is (the endpoint ignores it).
    keyed = RunPlan(
        case=case,
        arm="with",
        index=1,
        settings=RunSettings(),
        claude=CLAUDE,
        base_url=url,
        environ={"ANTHROPIC_API_KEY": "sk-real"},
    )
    assert child_env(keyed, ws)["ANTHROPIC_API_KEY"] == "sk-real"


# ---- stage -----------------------------------------------------------------------------------------------------


def test_stage_copies_the_history_into_the_workspace(suite, ws):
    case = suite.loaded(md=False, case_yaml=HISTORY, files={"history.jsonl": '{"type":"user"}\n'})
    stage(plan(case), ws)
    assert ws.history.read_text() == '{"type":"user"}\n'
    assert (case.dir / "history.jsonl").read_text() == '{"type":"user"}\n'


def test_stage_copies_the_case_files_into_the_working_directory_at_their_path(suite, ws):
    yaml = 'schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\ncontext:\n  files: [in/sales.csv]\n'
    case = suite.loaded(md=False, case_yaml=yaml, files={"in/sales.csv": "a,b\n"})
    stage(plan(case), ws)
    assert (ws.cwd / "in" / "sales.csv").read_text() == "a,b\n"


SCAFFOLD = 'schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\ncontext:\n  scaffold_script: setup.sh\n'


def test_the_scaffold_runs_only_with_the_option(suite, ws, monkeypatch):
    ran = []
    monkeypatch.setattr(Workspace, "run_scaffold", lambda self, script: ran.append((self, script)))
    case = suite.loaded(md=False, case_yaml=SCAFFOLD, files={"setup.sh": "#!/bin/sh\n"})
    stage(plan(case), ws)
    assert ran == []
    stage(plan(case, scaffold=True), ws)
    assert ran == [(ws, case.dir / "setup.sh")]


def test_a_granted_shell_needs_the_sandbox(suite, ws, monkeypatch):
    case = suite.loaded()
    monkeypatch.setattr(run_execute.permissions, "sandbox_missing", lambda: "bubblewrap is not installed")
    with pytest.raises(AgentStartError, match="^bubblewrap is not installed$"):
        stage(plan(case, allow_tools=("Bash",)), ws)
    monkeypatch.setattr(run_execute.permissions, "sandbox_missing", lambda: None)
    stage(plan(case, allow_tools=("Bash(git *)",)), ws)
    settings = json.loads((ws.config / "settings.json").read_text())
    assert settings["env"] == {"DISABLE_AUTOUPDATER": "1"}
    assert settings["sandbox"]["enabled"] is True
    assert settings["sandbox"]["filesystem"]["allowWrite"] == [f"/{ws.cwd}", f"/{ws.tmp}"]


def test_without_a_shell_grant_no_sandbox_is_written(suite, ws):
    stage(plan(suite.loaded(), allow_tools=("Write",)), ws)
    assert not (ws.config / "settings.json").exists()


def test_mock_calls_graders_are_indicators_only_when_every_stand_in_shadows(tmp_path):
    suite = Suite(tmp_path, mcp=True)
    shadow = suite.loaded(name="shadow", files={"mocks/srv/lookup.md": "found it"})
    mixed = suite.loaded(name="mixed", files={"mocks/srv/lookup.md": "found it", "mocks/notes/add.md": "ok"})
    assert mock_calls_with_only(plan(shadow)) is True
    assert mock_calls_with_only(plan(shadow, mocks="record", allow_real_servers=True)) is True
    assert mock_calls_with_only(plan(mixed)) is False  # notes is served in the without arm too
    assert mock_calls_with_only(plan(suite.loaded(name="none"))) is False  # no stand-in in either arm
    assert mock_calls_with_only(plan(shadow, mocks="off")) is False  # real servers: no stand-in at all
    # The same split as the stand-ins the without arm gets.
    assert [s.kind for s in stand_ins(plan(mixed, "without"), workspace(tmp_path)).stand_ins] == ["standalone"]


def test_an_unmocked_remote_server_is_said_to_be_not_connected_and_a_local_one_not_started(tmp_path):
    """The notice told users of an HTTP server that it was NOT started and to run "the real server": a remote
    server has nothing to start; the runs would connect to its address."""
    suite = Suite(tmp_path, mcp=True)
    servers = {"mcpServers": {"srv": {"command": "srv"}, "web": {"type": "http", "url": "https://mcp.example/x"}}}
    (suite.plugin / ".mcp.json").write_text(json.dumps(servers))
    case = suite.loaded()
    notes = plan_mocks(case.mocks, {"p": suite.plugin}, "with", allow_real_servers=False).notes
    assert notes == [
        'mocks: "plugin:p:srv" has no mock and is NOT started — its tools are unavailable to the runs; add '
        "mocks/srv/ to mock it, or pass --allow-real-servers to run the real server",
        'mocks: "plugin:p:web" has no mock and is NOT connected — its tools are unavailable to the runs; add '
        "mocks/web/ to mock it, or pass --allow-real-servers to let the runs connect to https://mcp.example/x",
    ]
    allowed = plan_mocks(case.mocks, {"p": suite.plugin}, "with", allow_real_servers=True).notes
    assert (
        allowed[1]
        == '⚠ mocks: "plugin:p:web" has no mock: the runs connect to its REAL server at https://mcp.example/x (--allow-real-servers)'
    )
