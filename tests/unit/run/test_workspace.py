"""Unit tests for a run's throwaway workspace and environment (pytest_plugin_eval.workspace) and the tool grants and
deny rules of a run (pytest_plugin_eval.permissions)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from pytest_plugin_eval.core import tools
from pytest_plugin_eval.core.tools import disallow_problem, grant_problem, is_gated, tool_of
from pytest_plugin_eval.run import workspace
from pytest_plugin_eval.run.output import Changes
from pytest_plugin_eval.run.permissions import DENIED_TOOLS, RunFolders, allowed_tools, disallowed_tools
from pytest_plugin_eval.run.workspace import GIT_HARDENING, GITCONFIG, Workspace, git_env, operator_env

HOME = str(Path.home())


# ---- operator_env -------------------------------------------------------------------------------------------

KEPT = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C",
    "TERM": "xterm",
    "ANTHROPIC_API_KEY": "sk-test",
    "ANTHROPIC_BASE_URL": "http://localhost:1",
    "ANTHROPIC_MODEL": "m",
    "CLAUDE_CODE_MAX_RETRIES": "2",
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "EVAL_FOO": "foo",
    "EVAL_": "empty-suffix",
    "HTTPS_PROXY": "http://proxy:8080",
    "https_proxy": "http://proxy:8080",
    "NO_PROXY": "localhost",
    "SSL_CERT_FILE": "/etc/ssl/cert.pem",
    "AWS_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "AKIA",
    "CLOUDSDK_CORE_PROJECT": "proj",
    "VERTEX_REGION_CLAUDE_3": "us",
    "DISABLE_TELEMETRY": "1",
    "CI": "true",
    "TZ": "UTC",
    "CLAUDE_CODE_OAUTH_TOKEN": "oauth",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4096",
    "ANTHROPIC_DEFAULT_SONNET_MODEL": "sonnet",
    "ANTHROPIC_FOUNDRY_API_KEY": "f",
    "AWS_SECRET_ACCESS_KEY": "s",
    "AWS_BEARER_TOKEN_BEDROCK": "b",
    "CLOUDSDK_AUTH_ACCESS_TOKEN": "g",
    "GOOGLE_APPLICATION_CREDENTIALS": "/etc/gcp/key.json",
    "AZURE_CLIENT_SECRET": "a",
}
DROPPED = {
    "SECRET_TOKEN": "s",
    "GITHUB_TOKEN": "ghp",
    "OPENAI_API_KEY": "sk-o",
    "NODE_OPTIONS": "--require x",
    "PYTHONPATH": "/x",
    "SSH_AUTH_SOCK": "/tmp/ssh",
    "eval_lower": "x",
    "EVAL_lower": "x",
    "HOME": HOME,
    "TMPDIR": "/tmp",
    "XDG_CONFIG_HOME": f"{HOME}/.config",
    "CLAUDE_CONFIG_DIR": f"{HOME}/.claude",
    "CLAUDE_CODE_SESSION_ID": "abc",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN": "t",
    "CLAUDE_CODE_HOST_PLATFORM": "x",
    "CLAUDE_CODE_SDK_VERSION": "1",
    "CLAUDE_CODE_SUBSCRIPTION_TYPE": "max",
    "CLAUDE_CODE_SOMETHING_DIR": HOME,
    "CLAUDE_CODE_SOMETHING_PATH": HOME,
    "CLAUDE_CODE_SOMETHING_FILE": HOME,
    "CLAUDE_CODE_EVAL_ALLOW_FLAG_OVERRIDES": "1",
    "CLAUDECODE": "1",
    "GIT_DIR": "/x",
    "LD_PRELOAD": "/x.so",
    "AWS_CONFIG_FILE": f"{HOME}/.aws/config",
    "AWS_SHARED_CREDENTIALS_FILE": f"{HOME}/.aws/credentials",
    "CLOUDSDK_CONFIG": f"{HOME}/.config/gcloud",
    "AZURE_CONFIG_DIR": f"{HOME}/.azure",
    # A provider's variables pass by name, never by prefix: only what reaching the model needs.
    "AWS_FOO": "x",
    "AWS_SECRET_OTHER_SERVICE": "s",
    "AZURE_SUBSCRIPTION_ID": "sub",
    "CLOUDSDK_CORE_ACCOUNT": "me@example.com",
    "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE": f"{HOME}/key.json",
    "ANTHROPIC_UNIX_SOCKET": "/run/a.sock",
    "ANTHROPIC_CONFIG_DIR": f"{HOME}/.anthropic",
    # A secret-shaped name passes by a prefix only when named: the OAuth token, not its refresh token.
    "CLAUDE_CODE_OAUTH_REFRESH_TOKEN": "r",
    "CLAUDE_CODE_SOME_API_KEY": "k",
    "CLAUDE_CODE_GATEWAY_PASSWORD": "p",
}


def test_operator_env_keeps_exactly_the_allow_list():
    assert operator_env({**KEPT, **DROPPED}) == KEPT


@pytest.mark.parametrize("name", sorted(KEPT))
def test_operator_env_keeps(name):
    assert operator_env({name: KEPT[name]}) == {name: KEPT[name]}


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_operator_env_drops(name):
    assert operator_env({name: DROPPED[name]}) == {}


def test_operator_env_does_not_change_its_input():
    environ = {"PATH": "/bin", "SECRET": "s"}
    operator_env(environ)
    assert environ == {"PATH": "/bin", "SECRET": "s"}


# ---- git_env ------------------------------------------------------------------------------------------------


def test_git_env_hardening():
    env = git_env()
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_PROXY_COMMAND"] == ""
    assert env["GIT_CONFIG_COUNT"] == "10" == str(len(GIT_HARDENING))
    pairs = {(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"]) for i in range(10)}
    assert {
        ("core.hooksPath", "/dev/null"),
        ("core.fsmonitor", ""),
        ("credential.helper", ""),
        ("protocol.ext.allow", "never"),
        ("core.pager", "cat"),
        ("core.editor", "true"),
    } <= pairs
    assert "GIT_CONFIG_KEY_10" not in env


# ---- Workspace --------------------------------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.create(tmp_path)


def test_create_layout(ws, tmp_path):
    assert ws.root.parent == tmp_path
    assert ws.root.name.startswith("claude-eval-")
    assert sorted(p.name for p in ws.root.iterdir()) == ["config", "home", "out", "tmp"]
    assert ws.home == ws.root / "home"
    assert ws.cwd == ws.root / "home" / "cwd"
    assert ws.config == ws.root / "config"
    assert ws.out == ws.root / "out"
    assert ws.trace == ws.root / "out" / "trace.jsonl"
    for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
        assert folder.is_dir()
    assert list(ws.tmp.iterdir()) == [] and list(ws.out.iterdir()) == []
    assert (ws.home / ".gitconfig").read_text() == GITCONFIG
    assert json.loads((ws.config / "settings.json").read_text()) == {"env": {"DISABLE_AUTOUPDATER": "1"}}
    assert json.loads((ws.config / ".claude.json").read_text()) == {"hasCompletedOnboarding": True}


def test_tmp_is_a_private_folder_of_its_own_in_the_short_temp_folder(ws, short_tmp):
    # Claude Code's sandbox puts its sockets in TMPDIR: a unix socket path holds at most 107 bytes.
    assert (ws.root / "tmp").is_symlink() and ws.tmp.parent == short_tmp and ws.tmp.name.startswith("pe-")
    assert stat.S_IMODE(ws.tmp.stat().st_mode) == 0o700
    assert ws.agent_env({}, {})["TMPDIR"] == str(ws.tmp) and Workspace(ws.root).tmp == ws.tmp
    (ws.tmp / "left.txt").write_text("x")
    ws.remove()
    assert not ws.tmp.exists() and not ws.root.exists()


def test_where_the_short_temp_folder_cannot_be_written_tmp_is_in_the_root(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace, "SHORT_TMP", tmp_path / "missing")
    ws = Workspace.create(tmp_path)
    assert ws.tmp == ws.root / "tmp" and ws.tmp.is_dir() and not ws.tmp.is_symlink()


def test_remove_leaves_a_tmp_link_to_anything_else_alone(tmp_path):
    elsewhere = tmp_path / "pe-elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "claude-eval-x"
    root.mkdir()
    (root / "tmp").symlink_to(elsewhere)
    Workspace(root).remove()
    assert elsewhere.is_dir() and not root.exists()


def test_create_makes_cwd_a_git_repository_on_main(ws):
    assert (ws.cwd / ".git").is_dir()
    assert (ws.cwd / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=ws.cwd,
        capture_output=True,
        text=True,
        env={**ws.base_env(), "PATH": os.environ["PATH"]},
    )
    assert top.stdout.strip() == str(ws.cwd)


def test_create_gives_every_run_its_own_root(tmp_path):
    first, second = Workspace.create(tmp_path), Workspace.create(tmp_path)
    assert first.root != second.root


def test_agent_env_points_into_the_run(ws):
    environ = {
        "PATH": "/usr/bin",
        "HOME": HOME,
        "TMPDIR": "/tmp",
        "XDG_CONFIG_HOME": f"{HOME}/.config",
        "CLAUDE_CONFIG_DIR": f"{HOME}/.claude",
        "AWS_CONFIG_FILE": f"{HOME}/.aws/config",
        "AWS_REGION": "eu-west-1",
        "GITHUB_TOKEN": "ghp",
        "EVAL_MODE": "shell",
        "EVAL_KEEP": "kept",
    }
    env = ws.agent_env(environ, {"EVAL_MODE": "case", "EVAL_NEW": "new"})
    home, tmp = str(ws.home), str(ws.tmp)
    assert env["PATH"] == "/usr/bin"
    assert env["AWS_REGION"] == "eu-west-1"
    assert "GITHUB_TOKEN" not in env
    assert (env["EVAL_MODE"], env["EVAL_KEEP"], env["EVAL_NEW"]) == ("case", "kept", "new")
    assert (env["HOME"], env["USERPROFILE"]) == (home, home)
    assert (env["TMPDIR"], env["TMP"], env["TEMP"]) == (tmp, tmp, tmp)
    assert env["XDG_CONFIG_HOME"] == f"{home}/.config"
    assert env["XDG_DATA_HOME"] == f"{home}/.local/share"
    assert env["XDG_CACHE_HOME"] == f"{home}/.cache"
    assert env["XDG_STATE_HOME"] == f"{home}/.local/state"
    assert env["AWS_CONFIG_FILE"] == str(ws.home / ".aws" / "config")
    assert env["AWS_SHARED_CREDENTIALS_FILE"] == str(ws.home / ".aws" / "credentials")
    assert env["CLOUDSDK_CONFIG"] == str(ws.home / ".config" / "gcloud")
    assert env["AZURE_CONFIG_DIR"] == str(ws.home / ".azure")
    assert env["CLAUDE_CONFIG_DIR"] == str(ws.config)
    assert env["CLAUDE_CODE_MANAGED_SETTINGS_PATH"] == str(ws.config)
    assert env["CLAUDE_CODE_TMPDIR"] == tmp
    assert env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["DISABLE_AUTOUPDATER"] == "1"
    assert env["CLAUDE_CODE_EVAL_CONFINED"] == "1"
    assert env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-cli"
    assert env["ENABLE_CLAUDEAI_MCP_SERVERS"] == "false"
    for name, value in git_env().items():
        assert env[name] == value
    # Nothing in the environment points at the operator's home any more.
    assert not [k for k, v in env.items() if v.startswith(HOME + "/") and not v.startswith(str(ws.root))]


def test_agent_env_run_folders_win_over_the_case(ws):
    env = ws.agent_env({}, {"HOME": "/elsewhere", "CLAUDE_CONFIG_DIR": "/elsewhere"})
    assert env["HOME"] == str(ws.home)
    assert env["CLAUDE_CONFIG_DIR"] == str(ws.config)


def test_agent_env_with_an_empty_environment(ws):
    env = ws.agent_env({}, {})
    assert "PATH" not in env
    assert env["HOME"] == str(ws.home)


def test_files_lists_every_file_under_cwd_but_git(ws):
    (ws.cwd / "a.txt").write_text("a")
    (ws.cwd / ".hidden").write_text("h")
    (ws.cwd / "sub" / "deep").mkdir(parents=True)
    (ws.cwd / "sub" / "deep" / "x.py").write_text("x")
    (ws.cwd / "sub" / ".env").write_text("e")
    (ws.cwd / "empty-dir").mkdir()
    (ws.cwd / ".git" / "extra").write_text("ignored")
    assert ws.files() == {"a.txt", ".hidden", "sub/deep/x.py", "sub/.env"}


def test_files_lists_symlinks_without_following_them(ws, tmp_path):
    target = tmp_path / "target-dir"
    target.mkdir()
    (target / "inside.txt").write_text("x")
    (ws.cwd / "dir-link").symlink_to(target)
    (ws.cwd / "file-link").symlink_to(target / "inside.txt")
    assert ws.files() == {"dir-link", "file-link"}


def test_files_of_a_fresh_workspace_is_empty(ws):
    assert ws.files() == set()
    assert ws.created_files(set()) == []


def test_created_files_excludes_files_present_before(ws):
    (ws.cwd / "pre.txt").write_text("before")
    (ws.cwd / "keep").mkdir()
    (ws.cwd / "keep" / "old.md").write_text("old")
    before = ws.files()
    (ws.cwd / "pre.txt").write_text("overwritten")
    (ws.cwd / "keep" / "old.md").write_text("changed")
    (ws.cwd / "new.txt").write_text("new")
    (ws.cwd / "keep" / "new.md").write_text("new")
    assert ws.created_files(before) == ["keep/new.md", "new.txt"]


def test_created_files_in_code_unit_order(ws):
    names = ["\uff5e.txt", "\U0001f600.txt", "a.txt", "_u.txt", "Z.txt", "a-b", "a.b", "é.txt", "10", "9"]
    for name in names:
        (ws.cwd / name).write_text("x")
    (ws.cwd / "a").mkdir()
    (ws.cwd / "a" / "b").write_text("x")
    # '-' (2D) < '.' (2E) < '/' (2F); the astral U+1F600 (D83D DE00) sorts before U+FF5E, as JavaScript sorts.
    assert ws.created_files(set()) == [
        "10",
        "9",
        "Z.txt",
        "_u.txt",
        "a-b",
        "a.b",
        "a.txt",
        "a/b",
        "é.txt",
        "\U0001f600.txt",
        "\uff5e.txt",
    ]


# ---- snapshot and changes ----------------------------------------------------------------------------------


def write_keeping_stat(path: Path, text: str) -> None:
    """Rewrite `path` at the same size and put its mtime back: a write in the same clock tick as the last one."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size


def test_changes_are_created_modified_and_deleted_files(ws):
    (ws.cwd / "kept.txt").write_text("same")
    (ws.cwd / "edited.txt").write_text("v1")
    (ws.cwd / "gone.txt").write_text("bye")
    (ws.cwd / "sub").mkdir()
    (ws.cwd / "sub" / "gone-too.md").write_text("x")
    before = ws.snapshot()
    (ws.cwd / "edited.txt").write_text("version 2")
    (ws.cwd / "gone.txt").unlink()
    (ws.cwd / "sub" / "gone-too.md").unlink()
    (ws.cwd / "new.txt").write_text("new")
    (ws.cwd / ".git" / "index-ish").write_text("git's own")
    assert ws.changes(before) == Changes(
        created=("new.txt",), modified=("edited.txt",), deleted=("gone.txt", "sub/gone-too.md")
    )


def test_a_same_size_rewrite_within_the_same_tick_is_a_modification(ws):
    (ws.cwd / "staged.txt").write_text("STAGED v1")
    before = ws.snapshot()
    write_keeping_stat(ws.cwd / "staged.txt", "EDITED v2")
    assert ws.changes(before).modified == ("staged.txt",)


def test_rewriting_the_same_content_is_no_modification(ws):
    (ws.cwd / "same.txt").write_text("unchanged")
    before = ws.snapshot()
    (ws.cwd / "same.txt").write_text("unchanged")
    os.utime(ws.cwd / "same.txt", ns=(1, 2))
    assert ws.changes(before) == Changes()


def test_a_large_file_is_compared_by_size_and_mtime(ws, monkeypatch):
    monkeypatch.setattr(workspace, "HASHED_FILE_BYTES", 4)
    (ws.cwd / "big.bin").write_text("0123456789")
    before = ws.snapshot()
    assert before["big.bin"].digest is None and before["big.bin"].size == 10
    write_keeping_stat(ws.cwd / "big.bin", "abcdefghij")  # indistinguishable without reading it
    assert ws.changes(before) == Changes()
    (ws.cwd / "big.bin").write_text("abcdefghij")
    os.utime(ws.cwd / "big.bin", ns=(1, before["big.bin"].mtime_ns + 1))
    assert ws.changes(before).modified == ("big.bin",)


def test_hashing_stops_at_a_total_budget(ws, monkeypatch):
    monkeypatch.setattr(workspace, "HASHED_TOTAL_BYTES", 6)
    for name in ("a", "b", "c"):
        (ws.cwd / name).write_text("abc")
    assert [s.digest is not None for _, s in sorted(ws.snapshot().items())] == [True, True, False]


def test_a_fifo_left_by_a_scaffold_is_not_read(ws):
    os.mkfifo(ws.cwd / "pipe")  # opening it to hash it would wait for a writer forever
    before = ws.snapshot()
    assert before["pipe"].digest is None
    assert ws.changes(before) == Changes()


def test_a_retargeted_symlink_is_a_modification(ws):
    (ws.cwd / "one.txt").write_text("1")
    (ws.cwd / "two.txt").write_text("2")
    (ws.cwd / "link").symlink_to("one.txt")
    before = ws.snapshot()
    (ws.cwd / "link").unlink()
    (ws.cwd / "link").symlink_to("two.txt")
    assert ws.changes(before).modified == ("link",)


def test_record_changes_writes_changes_json_beside_the_trace(ws):
    before = ws.snapshot()
    (ws.cwd / "new.txt").write_text("n")
    changes = ws.record_changes(before)
    assert ws.changes_file == ws.trace.parent / "changes.json"
    assert json.loads(ws.changes_file.read_text()) == {"created": ["new.txt"], "modified": [], "deleted": []}
    assert changes.created == ("new.txt",)


def test_remove_removes_read_only_folders(ws):
    locked = ws.cwd / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "f.txt").write_text("x")
    os.chmod(locked / "f.txt", 0o400)
    os.chmod(locked, 0o500)
    os.chmod(ws.cwd / "locked", 0o500)
    os.chmod(ws.out, 0o000)
    ws.remove()
    assert not ws.root.exists()


def test_remove_twice_is_harmless(ws):
    ws.remove()
    ws.remove()
    assert not ws.root.exists()


# ---- permissions: checks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["Monitor", "EnterWorktree", "ExitWorktree", "Monitor(x)"])
def test_grant_problem_never_available(entry):
    assert grant_problem(entry) == (
        f"{entry!r} is never available in an evaluation (EnterWorktree, ExitWorktree, Monitor)"
    )


@pytest.mark.parametrize("entry", ["Bash(", "Bash(ls))", "", "1Bash", "Bash ls", "Edit(a(b))", "*"])
def test_grant_problem_malformed(entry):
    assert grant_problem(entry) == (
        f"{entry!r} is malformed — write a tool name, optionally with a pattern: Bash, Edit(src/**), mcp__server__tool"
    )


def test_grant_problem_server_wildcard():
    assert (
        grant_problem("mcp__*") == "'mcp__*' is a wildcard the child does not support — name the server: mcp__server__*"
    )


@pytest.mark.parametrize(
    "entry",
    [
        "Bash",
        "Write",
        "Edit(src/**)",
        "Bash(git status:*)",
        "mcp__srv__tool",
        "mcp__srv__*",
        "mcp__my-srv__do-it",
        "WebFetch(domain:example.com)",
        "Read",
    ],
)
def test_grant_problem_accepts(entry):
    assert grant_problem(entry) is None


@pytest.mark.parametrize("entry", ["Agent", "TaskStop", "Bash", "WebSearch", "ReadMcpResourceTool"])
def test_disallow_problem_accepts_removable_builtins(entry):
    assert disallow_problem(entry) is None


@pytest.mark.parametrize("entry", ["Bogus", "Read(//etc/**)", "Bash(rm:*)", "mcp__srv__tool", "agent", "Monitor", ""])
def test_disallow_problem_refuses(entry):
    assert disallow_problem(entry) == (
        f'"{entry}" cannot be disallowed: it is not a built-in tool that can be '
        f"removed — use bare names such as Agent or TaskStop (patterns such as "
        f"Bash(rm:*) and MCP tools are not accepted)"
    )


def test_tool_of_and_is_gated():
    assert tool_of("Edit(src/**)") == "Edit"
    assert tool_of("Read") == "Read"
    assert is_gated("Bash(ls)") and is_gated("Write") and is_gated("mcp__a__b") and is_gated("PowerShell")
    assert not is_gated("Read") and not is_gated("Skill") and not is_gated("Glob(**)")


# ---- permissions: the command-line lists -------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path: Path) -> RunFolders:
    root = tmp_path / "run"
    plugin = tmp_path / "plugin"
    for folder in (
        root / "home" / "cwd",
        root / "tmp",
        root / "config",
        root / "out",
        plugin / ".claude-plugin",
        plugin / "skills",
        plugin / "evals" / "c",
    ):
        folder.mkdir(parents=True)
    (plugin / "README.md").write_text("readme")
    return RunFolders(
        home=root / "home",
        cwd=root / "home" / "cwd",
        tmp=root / "tmp",
        config=root / "config",
        out=root / "out",
        plugin=plugin,
        case_dir=plugin / "evals" / "c",
        eval_root=plugin / "evals",
    )


def test_allowed_tools_empty(folders):
    assert allowed_tools((), (), folders) == []


def test_case_read_is_scoped_to_the_run_and_the_plugin(folders):
    p = folders.plugin
    assert allowed_tools(("Read",), (), folders) == [
        f"Read(/{folders.home}/**)",
        f"Read(/{folders.tmp}/**)",
        f"Read(/{p}/.claude-plugin/**)",
        f"Read(/{p}/README.md)",
        f"Read(/{p}/skills/**)",
    ]
    # Never the eval dir: graders and rubrics stay hidden.
    assert not [e for e in allowed_tools(("Read", "Glob", "Grep"), (), folders) if "/evals" in e]


def test_case_readers_without_a_plugin(folders):
    no_plugin = RunFolders(**{**folders.__dict__, "plugin": None})
    assert allowed_tools(("Glob", "Grep"), (), no_plugin) == [
        f"Glob(/{folders.home}/**)",
        f"Glob(/{folders.tmp}/**)",
        f"Grep(/{folders.home}/**)",
        f"Grep(/{folders.tmp}/**)",
    ]


def test_case_gated_and_never_tools_are_dropped(folders):
    case = (
        "Skill",
        "Write",
        "Bash",
        "Bash(ls)",
        "WebFetch",
        "WebSearch",
        "Edit(src/**)",
        "NotebookEdit",
        "PowerShell",
        "mcp__x__y",
        "Monitor",
        "TodoWrite",
    )
    assert allowed_tools(case, (), folders) == ["Skill", "TodoWrite"]


def test_case_reader_patterns_do_not_escape_the_scope(folders):
    out = allowed_tools(("Read(//etc/**)", "Glob(//root/**)"), (), folders)
    assert "Read(//etc/**)" not in out and "Glob(//root/**)" not in out


def test_operator_write_grant_scopes_writers_to_cwd_and_tmp(folders):
    cwd, tmp = folders.cwd, folders.tmp
    expected = [f"Edit(/{cwd}/**)", f"Write(/{cwd}/**)", f"Edit(/{tmp}/**)", f"Write(/{tmp}/**)"]
    assert allowed_tools((), ("Write",), folders) == expected
    assert allowed_tools((), ("Write", "Edit"), folders) == expected
    # Edit alone edits; it does not create files
    assert allowed_tools((), ("Edit",), folders) == [f"Edit(/{cwd}/**)", f"Edit(/{tmp}/**)"]


def test_operator_pattern_grants_are_anchored_at_cwd(folders):
    cwd = folders.cwd
    assert allowed_tools((), ("Edit(src/**)",), folders) == [f"Edit(/{cwd}/src/**)"]
    # A file pattern that leaves the workspace is never passed (the options refuse it: grant_problem).
    assert allowed_tools(
        (),
        ("Edit(/abs/**)", "Edit(~/notes/**)", "Bash(git status:*)", "mcp__srv__tool", "mcp__srv__*", "Bash"),
        folders,
    ) == ["Bash(git status:*)", "mcp__srv__tool", "mcp__srv__*", "Bash"]


def test_operator_webfetch_domain_grant_is_kept(folders):
    assert allowed_tools((), ("WebFetch(domain:example.com)",), folders) == ["WebFetch(domain:example.com)"]


def test_case_tools_then_operator_grants(folders):
    out = allowed_tools(("Skill", "Write"), ("Bash", "Edit(src/**)", "Write"), folders)
    cwd, tmp = folders.cwd, folders.tmp
    assert out == [
        "Skill",
        "Bash",
        f"Edit(/{cwd}/src/**)",
        f"Edit(/{cwd}/**)",
        f"Write(/{cwd}/**)",
        f"Edit(/{tmp}/**)",
        f"Write(/{tmp}/**)",
    ]


def path_rules(f: RunFolders) -> list[str]:
    return [
        f"Read(/{f.config}/**)",
        f"Edit(/{f.config}/**)",
        f"Read(/{f.out}/**)",
        f"Edit(/{f.out}/**)",
        f"Edit(/{f.plugin}/**)",
        f"Edit(/{f.case_dir}/**)",
        f"Edit(/{f.cwd}/.git)",
        f"Edit(/{f.cwd}/.git/**)",
        f"Edit(/{f.cwd}/.eval-artifacts)",
        f"Edit(/{f.cwd}/.eval-artifacts/**)",
        f"Read(/{f.eval_root})",
        f"Read(/{f.eval_root}/**)",
        f"Edit(/{f.eval_root})",
        f"Edit(/{f.eval_root}/**)",
        "Read(//proc/**)",
    ]


def test_disallowed_tools_default(folders):
    assert disallowed_tools((), (), folders) == path_rules(folders) + list(DENIED_TOOLS)
    rules = disallowed_tools((), (), folders)
    assert f"Read(//{str(folders.config).lstrip('/')}/**)" in rules  # `//` is Claude Code's absolute path form


def test_disallowed_tools_without_a_plugin(folders):
    no_plugin = RunFolders(**{**folders.__dict__, "plugin": None})
    expected = [r for r in path_rules(folders) if r != f"Edit(/{folders.plugin}/**)"] + list(DENIED_TOOLS)
    assert disallowed_tools((), (), no_plugin) == expected


def test_disallowed_tools_minus_the_grants(folders):
    rules = disallowed_tools(("Write", "Bash(git status:*)", "mcp__a__b", "WebFetch"), (), folders)
    assert rules == path_rules(folders) + [t for t in DENIED_TOOLS if t not in ("Write", "Edit", "Bash", "WebFetch")]


def test_disallowed_tools_edit_grant_keeps_write_denied(folders):
    rules = disallowed_tools(("Edit(src/**)",), (), folders)
    assert "Edit" not in rules and "Write" in rules


def test_disallowed_tools_plus_removals(folders):
    rules = disallowed_tools((), ("Agent", "Bash", "TaskStop"), folders)
    assert rules == path_rules(folders) + list(DENIED_TOOLS) + ["Agent", "TaskStop"]
    # A removal of a granted tool still removes it.
    granted = disallowed_tools(("Bash",), ("Bash",), folders)
    assert granted[-1] == "Bash" and granted.count("Bash") == 1


def test_denied_tools_cover_the_gated_and_never_tools():
    assert set(tools.GATED) <= set(DENIED_TOOLS)
    assert set(tools.NEVER) <= set(DENIED_TOOLS)


def test_a_workspace_is_found_by_the_run_it_was_made_for(tmp_path):
    first, second = Workspace.create(tmp_path), Workspace.create(tmp_path)
    label = workspace.run_label(tmp_path / "evals" / "c", "with", 2)
    first.run_file.write_text(label)
    second.run_file.write_text(workspace.run_label(tmp_path / "evals" / "c", "without", 2))
    assert Workspace.of_run(tmp_path, label) == [first]
    assert Workspace.of_run(tmp_path, workspace.run_label(tmp_path / "evals" / "d", "with", 2)) == []
    assert first.run_file.parent == first.out  # not the agent's to read: it would learn its arm
