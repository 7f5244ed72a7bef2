"""Unit tests for where the agent's tools reach (pytest_plugin_eval.run.permissions, core.tools.grant_problem,
run.workspace's allow-list of credentials): its file tools see the run's own folders, the fixture folders and the
plugin, never the operator's home, another run's workspace, a results folder or a credential file; its shell
gets no credential. The real binary's behaviour under these rules: tests/acceptance/test_confinement.py."""

from __future__ import annotations

import functools
import json
import random
import re
import tempfile
from pathlib import Path

import pytest

from pytest_plugin_eval.core.tools import grant_problem, leaves_workspace
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.run import execute as run_execute
from pytest_plugin_eval.run import permissions
from pytest_plugin_eval.run.execute import RunPlan, RunSettings, build_argv, stage
from pytest_plugin_eval.run.permissions import (
    RunFolders,
    allowed_tools,
    deny_except,
    disallowed_tools,
    elsewhere_rules,
    other_runs,
    other_than,
    other_tmps,
    sandbox_failure,
    sandbox_settings,
)
from pytest_plugin_eval.run.workspace import (
    Workspace,
    credential_files,
    credential_names,
    is_credential,
    operator_env,
    secret_values,
)

MKDTEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


@pytest.fixture
def folders(tmp_path: Path) -> RunFolders:
    root = tmp_path / "scratch" / "workspaces" / "claude-eval-k2x_9qaz"
    plugin = tmp_path / "plugin"
    for folder in (root / "home" / "cwd", root / "tmp", root / "config", root / "out", plugin / "skills"):
        folder.mkdir(parents=True)
    (plugin / "evals" / "c" / "data").mkdir(parents=True)
    return RunFolders(
        home=root / "home",
        cwd=root / "home" / "cwd",
        tmp=root / "tmp",
        config=root / "config",
        out=root / "out",
        plugin=plugin,
        case_dir=plugin / "evals" / "c",
        eval_root=plugin / "evals",
        root=root,
        plugins=(plugin,),
        caller_homes=(tmp_path / "caller",),
        temp_dir=tmp_path,
    )


def with_(folders: RunFolders, **changes) -> RunFolders:
    return RunFolders(**{**folders.__dict__, **changes})


# ---- grants: who grants a file tool does not change where it reaches ---------------------------------------


@pytest.mark.parametrize("tool", ["Read", "Grep", "Glob"])
def test_an_operator_reader_grant_is_scoped_like_a_cases(folders, tool):
    granted = allowed_tools((), (tool,), folders)
    assert granted == allowed_tools((tool,), (), folders)
    assert granted == [
        f"{tool}(/{folders.home}/**)",
        f"{tool}(/{folders.tmp}/**)",
        f"{tool}(/{folders.plugin}/skills/**)",
    ]
    assert tool not in granted  # never bare: a bare grant reads the whole machine


def test_a_notebook_edit_grant_is_scoped_to_cwd_and_tmp(folders):
    assert allowed_tools((), ("NotebookEdit",), folders) == [
        f"NotebookEdit(/{folders.cwd}/**)",
        f"NotebookEdit(/{folders.tmp}/**)",
    ]


@pytest.mark.parametrize(
    "entry",
    ["Read(/etc/**)", "Read(//etc/**)", "Grep(~/.ssh/**)", "Glob(../../**)", "Edit(src/../../x)", "Write(C:\\x)"],
)
def test_a_file_pattern_leaving_the_workspace_is_refused_and_never_passed(folders, entry):
    assert leaves_workspace(entry)
    problem = grant_problem(entry)
    assert problem is not None and "reaches outside the run's workspace" in problem
    assert allowed_tools((), (entry,), folders) == []
    assert allowed_tools((entry,), (), folders) == []  # a case's is dropped too


@pytest.mark.parametrize("entry", ["Read(src/**)", "Edit(docs/*.md)", "Bash(cat /etc/hosts)", "WebFetch(domain:x.io)"])
def test_patterns_inside_the_workspace_or_of_other_tools_are_accepted(entry):
    assert not leaves_workspace(entry) and grant_problem(entry) is None


# ---- deny rules: what no grant reaches ---------------------------------------------------------------------


def test_the_callers_home_is_denied(folders, tmp_path):
    home = tmp_path / "caller"
    rules = elsewhere_rules(folders)
    for rule in (f"Read(/{home})", f"Read(/{home}/**)", f"Edit(/{home})", f"Edit(/{home}/**)"):
        assert rule in rules
    assert all(rule in disallowed_tools(("Read",), (), folders) for rule in rules)


def test_a_plugin_or_workspace_inside_the_callers_home_stays_readable(tmp_path):
    home = tmp_path / "home"
    for folder in ("code/plugin/skills", "code/other", ".ssh", ".aws"):
        (home / folder).mkdir(parents=True)
    plugin, root = home / "code" / "plugin", home / "tmp" / "claude-eval-aaaaaaaa"
    (root / "home" / "cwd").mkdir(parents=True)
    hidden = deny_except(home, (root, plugin))
    assert sorted(p.relative_to(home).as_posix() for p in hidden) == [".aws", ".ssh", "code/other"]
    assert deny_except(home, (home,)) == [] and deny_except(home, ()) == [home]


def test_a_home_that_cannot_be_hidden_whole_still_hides_its_credential_folders(folders):
    # The plugin checked out as HOME (pytester does this; so might a CI job): the home is the plugin, readable —
    # but not its .ssh, .aws, gcloud files.
    home = folders.plugin
    as_home = with_(folders, caller_homes=(home,))
    rules = elsewhere_rules(as_home)
    for rel in (".ssh", ".aws", ".config/gcloud", ".netrc"):
        assert f"Read(/{home / rel})" in rules and f"Read(/{home / rel}/**)" in rules
    assert f"Read(/{home})" not in rules
    deny = sandbox_settings(as_home, as_home.plugins)["filesystem"]["denyRead"]
    assert f"/{home / '.ssh'}" in deny and f"/{home}" not in deny


def test_a_home_holding_the_plugin_is_hidden_but_for_the_plugin_and_names_its_credential_folders(folders, tmp_path):
    home = tmp_path  # holds the plugin and the run's workspace
    (home / ".ssh").mkdir()
    hidden = with_(folders, caller_homes=(home,)).hidden_in_homes()
    assert home / ".ssh" in hidden and home / ".aws" in hidden
    assert not any(h == folders.plugin or h in folders.plugin.parents for h in hidden)
    deny = sandbox_settings(with_(folders, caller_homes=(home,)), folders.plugins)["filesystem"]["denyRead"]
    assert f"/{home}" in deny  # whole, for the sandbox: its allowRead carves the plugin and the run back out


def test_a_filesystem_root_is_never_a_home_to_deny(folders):
    root_home = with_(folders, caller_homes=(Path("/"),))
    assert root_home.homes() == []
    assert "Read(///**)" not in elsewhere_rules(root_home)


@functools.cache
def glob_regex(pattern: str) -> re.Pattern:
    """Claude Code's rule glob, for these patterns: `**` crosses folders, `*` and `?` do not, `[...]` is a class;
    matched case-insensitively (as Claude Code does: `[A-Z]` matches `a`)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[":
            end = pattern.index("]", i + 2)
            out, i = out + "[" + pattern[i + 1 : end].replace("\\", "\\\\") + "]", end + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out, re.IGNORECASE)


def matches(pattern: str, path: str) -> bool:
    return glob_regex(pattern).fullmatch(path) is not None


def test_other_than_covers_every_other_mkdtemp_name_and_never_the_own():
    rng = random.Random(7)
    own = "k2x_9qaz"
    patterns = other_than(own)
    assert not any(matches(p, own) for p in patterns)
    others = ["".join(rng.choice(MKDTEMP_CHARS) for _ in range(8)) for _ in range(2000)]
    others += [own[:-1] + c for c in MKDTEMP_CHARS if c != own[-1]] + [own + "x", own.upper() + "1"]
    for name in others:
        if name.lower() != own:
            assert any(matches(p, name) for p in patterns), name
    assert all("[!" not in p and "[^" not in p for p in patterns)  # the matcher has no negation


def test_other_runs_hides_the_siblings_in_the_session_and_in_the_temp_folder(tmp_path):
    temp = tmp_path
    own = temp / "plugin-eval-session-s1s1s1s1" / "workspaces" / "claude-eval-k2x_9qaz"
    patterns = other_runs(own, temp)
    sibling = own.parent / "claude-eval-zzzzzzzz"
    other_session = temp / "plugin-eval-session-abcdefgh" / "workspaces" / "claude-eval-k2x_9qaz"
    old_style = temp / "claude-eval-k2x_9qaz"  # an eval_agent workspace, made straight in the temp folder

    def denied(path: Path) -> bool:  # each pattern becomes two rules: the folder, and all below it
        return any(matches(p, str(path)) or matches(f"{p}/**", str(path)) for p in patterns)

    for path in (sibling, other_session, old_style):
        assert denied(path) and denied(path / "home" / "cwd" / "secret.txt"), path
    for path in (own, own / "home" / "cwd" / "a.txt", own.parent, temp / "plugin-eval-session-s1s1s1s1"):
        assert not denied(path), path


def test_other_runs_of_a_workspace_made_straight_in_the_temp_folder(tmp_path):
    own = tmp_path / "claude-eval-k2x_9qaz"
    patterns = other_runs(own, tmp_path)
    assert f"{tmp_path}/plugin-eval-session-*" in patterns
    assert f"{tmp_path}/claude-eval-*" not in patterns  # that would hide the run itself
    assert any(matches(p, str(tmp_path / "claude-eval-aaaaaaaa")) for p in patterns)
    assert not any(matches(p, str(own)) for p in patterns)


def test_other_runs_rules_are_read_rules_on_both_spellings(folders):
    rules = elsewhere_rules(folders)
    for pattern in other_runs(folders.root, folders.temp_dir):
        assert f"Read(/{pattern})" in rules and f"Read(/{pattern}/**)" in rules


def test_a_tmp_in_the_short_temp_folder_hides_every_other_runs_tmp_beside_it(folders, tmp_path):
    short = tmp_path / "short"
    own = with_(folders, tmp=short / "pe-k2x_9qaz")
    patterns = other_tmps(own.tmp)
    rules = elsewhere_rules(own)

    def denied(path: Path) -> bool:
        return any(matches(p, str(path)) or matches(f"{p}/**", str(path)) for p in patterns)

    for path in (short / "pe-zzzzzzzz", short / "pe-k2x_9qa_" / "claude-socks-1.sock"):
        assert denied(path), path
    assert not denied(own.tmp) and not denied(own.tmp / "x.txt")
    assert all(f"Read(/{p})" in rules for p in patterns)
    assert other_tmps(folders.tmp) == []  # a tmp inside the run's root has no siblings of that kind
    sandbox = sandbox_settings(own, own.plugins)
    assert f"/{short}" in sandbox["filesystem"]["denyRead"]  # with the run's own carved back out:
    assert f"/{own.tmp}" in sandbox["filesystem"]["allowRead"] and f"/{own.tmp}" in sandbox["filesystem"]["allowWrite"]


def test_results_folders_are_hidden_with_the_suite(folders, tmp_path):
    results = tmp_path / "elsewhere" / "results"
    results.mkdir(parents=True)
    hidden = with_(folders, results=(results,))
    assert results in hidden.hidden()
    rules = disallowed_tools((), (), hidden)
    assert f"Read(/{results})" in rules and f"Read(/{results}/**)" in rules and f"Edit(/{results}/**)" in rules
    sandbox = sandbox_settings(hidden, hidden.plugins)
    assert f"/{results}" in sandbox["filesystem"]["denyRead"]


def test_a_results_folder_holding_the_plugin_hides_all_but_the_plugin(folders, tmp_path):
    # --output-dir pointed at a folder that also holds the plugin and the workspace: those stay readable.
    (tmp_path / "2026-01-01T00-00-00Z").mkdir()
    hidden = with_(folders, results=(tmp_path,)).hidden()
    assert tmp_path / "2026-01-01T00-00-00Z" in hidden
    for visible in (folders.plugin / "skills", folders.home, folders.tmp):
        assert not any(h == visible or h in visible.parents for h in hidden), visible


def test_credential_files_are_denied(folders, tmp_path):
    key = tmp_path / "gcp" / "key.json"
    rules = elsewhere_rules(with_(folders, credential_files=(key,)))
    assert f"Read(/{key})" in rules
    assert f"/{key}" in sandbox_settings(with_(folders, credential_files=(key,)), ())["filesystem"]["denyRead"]


# ---- the shell's sandbox ------------------------------------------------------------------------------------


def test_the_sandbox_hides_home_temp_folder_and_the_workspaces_folder(folders, tmp_path):
    sandbox = sandbox_settings(folders, folders.plugins, ["ANTHROPIC_FOUNDRY_API_KEY"])
    deny, allow = sandbox["filesystem"]["denyRead"], sandbox["filesystem"]["allowRead"]
    for path in (tmp_path / "caller", tmp_path, folders.root.parent, folders.config, folders.out, folders.eval_root):
        assert f"/{path}" in deny, path
    # What the run may read is carved back out of them.
    assert allow == [f"/{folders.home}", f"/{folders.tmp}", f"/{folders.plugin}"]
    assert f"/{folders.root}" not in allow  # its config and trace stay hidden
    assert sandbox["filesystem"]["allowWrite"] == [f"/{folders.cwd}", f"/{folders.tmp}"]


def test_the_sandbox_withholds_every_credential_of_the_child(folders):
    names = [
        e["name"]
        for e in sandbox_settings(folders, (), ["ANTHROPIC_FOUNDRY_API_KEY", "ZZ_TOKEN"])["credentials"]["envVars"]
    ]
    assert "ANTHROPIC_FOUNDRY_API_KEY" in names and "ZZ_TOKEN" in names and "AWS_SECRET_ACCESS_KEY" in names
    assert all(e["mode"] == "deny" for e in sandbox_settings(folders, ())["credentials"]["envVars"])
    assert len(names) == len(set(names))


def test_the_sandbox_never_hides_a_filesystem_root(folders):
    at_root = with_(folders, temp_dir=Path("/"), caller_homes=(Path("/"),))
    assert "//" not in sandbox_settings(at_root, ())["filesystem"]["denyRead"]


@pytest.mark.parametrize(
    "text, cause",
    [
        (
            "Sandbox is required but failed to initialize: Failed to create bridge sockets after 5 attempts. Restart "
            "to retry. Running it outside the sandbox (dangerouslyDisableSandbox) is not allowed either.",
            "Failed to create bridge sockets after 5 attempts",
        ),
        ("Sandbox is enabled but failed to initialize. Until the sandbox can start, …", "no reason given"),
    ],
)
def test_a_sandbox_that_did_not_start_is_named_with_its_cause_and_the_fix(text, cause):
    why = sandbox_failure(["command not found: x", text], Path("/tmp/pe-x"))
    assert why.startswith(f"harness fault: Claude Code's sandbox failed to start ({cause}), so none of")
    assert "`socat -V`" in why and "/tmp/pe-x" in why
    assert sandbox_failure(["exit code 1", "Sandbox is nice"], Path("/tmp")) is None


# ---- credentials: the allow-list names them, the shell never sees them ---------------------------------------


def test_credential_names_are_the_operators_secrets_and_credential_files():
    env = operator_env(
        {
            "PATH": "/bin",
            "ANTHROPIC_FOUNDRY_API_KEY": "f",
            "CLOUDSDK_AUTH_ACCESS_TOKEN": "g",
            "AWS_SECRET_ACCESS_KEY": "s",
            "AWS_REGION": "eu-west-1",
            "GOOGLE_APPLICATION_CREDENTIALS": "/etc/gcp/key.json",
            "EVAL_API_TOKEN": "the case's own, for the agent",
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4096",
        }
    )
    assert credential_names(env) == [
        "ANTHROPIC_FOUNDRY_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "CLOUDSDK_AUTH_ACCESS_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ]
    assert credential_files(env) == [Path("/etc/gcp/key.json")]
    assert not is_credential("GOOGLE_APPLICATION_CREDENTIALS")  # its value is a path, not a secret
    assert not is_credential("EVAL_API_TOKEN")  # the case's own variables are meant for the agent


def test_secret_values_include_a_proxy_password():
    values = secret_values({"HTTPS_PROXY": "http://me:p%40ssw0rd!@proxy:3128", "ANTHROPIC_API_KEY": "sk-ant-123456"})
    assert values == {
        "sk-ant-123456": "ANTHROPIC_API_KEY",
        "p@ssw0rd!": "HTTPS_PROXY password",
        "p%40ssw0rd!": "HTTPS_PROXY password",
    }


# ---- through a run's plan ------------------------------------------------------------------------------------


def suite_case(root: Path):
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p"}))
    (plugin / "skills").mkdir()
    folder = plugin / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "graders" / "ok.md").write_text("---\ntype: regex\npattern: hello\n---\n")
    (folder / "prompt.md").write_text("Say hello.\n")
    return load_case(folder, plugin / "evals", grader_types())


def test_a_plans_hidden_folders_and_the_callers_home_reach_the_rules(tmp_path):
    case = suite_case(tmp_path)
    results, home, base = tmp_path / "out" / "results", tmp_path / "caller", tmp_path / "base"
    for folder in (results, home, base):
        folder.mkdir(parents=True)
    ws = Workspace.create(base)
    plan = RunPlan(
        case=case,
        arm="with",
        index=1,
        settings=RunSettings(allow_tools=("Read", "Grep", "Glob")),
        claude=Path("/opt/claude"),
        hidden=(results,),
        environ={"PATH": "/bin", "HOME": str(home)},
    )
    argv = build_argv(plan, ws)
    disallowed = next(a for a in argv if a.startswith("--disallowed-tools=")).split("=", 1)[1].split(",")
    allowed = next(a for a in argv if a.startswith("--allowed-tools=")).split("=", 1)[1].split(",")
    for path in (results, home):
        assert f"Read(/{path})" in disallowed and f"Read(/{path}/**)" in disallowed
    assert "Read" not in allowed and "Grep" not in allowed and "Glob" not in allowed
    assert f"Read(/{base}/claude-eval-*)" not in disallowed  # that would be the run itself
    assert any(r.startswith(f"Read(/{base}/claude-eval-[") for r in disallowed)
    folders = run_execute.run_folders(plan, ws)
    assert folders.temp_dir == Path(tempfile.gettempdir()).absolute() and folders.root == ws.root


def test_stage_withholds_the_operators_credentials_but_not_the_harness_git_settings(tmp_path, monkeypatch):
    case = suite_case(tmp_path)
    monkeypatch.setattr(run_execute.permissions, "sandbox_missing", lambda: None)
    ws = Workspace.create(tmp_path)
    plan = RunPlan(
        case=case,
        arm="with",
        index=1,
        settings=RunSettings(allow_tools=("Bash",)),
        claude=Path("/opt/claude"),
        environ={"PATH": "/bin", "ANTHROPIC_FOUNDRY_API_KEY": "f" * 20, "CLOUDSDK_AUTH_ACCESS_TOKEN": "g" * 20},
    )
    stage(plan, ws)
    sandbox = json.loads((ws.config / "settings.json").read_text())["sandbox"]
    names = {e["name"] for e in sandbox["credentials"]["envVars"]}
    assert {"ANTHROPIC_FOUNDRY_API_KEY", "CLOUDSDK_AUTH_ACCESS_TOKEN"} <= names
    assert not any(n.startswith("GIT_CONFIG_") for n in names)  # git in the sandbox needs its hardening
    assert f"/{ws.root.parent}" in sandbox["filesystem"]["denyRead"]
    assert permissions.SESSION_PREFIX == "plugin-eval-session-"
