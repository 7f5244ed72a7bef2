"""Confinement under attack, end to end through the real Claude Code against the scripted endpoint: the scripted
agent, granted file tools or a shell, tries to read the caller's home, another run's workspace and stored results,
and to see the model credentials; what it tried must come back as a denial, and no secret may reach anything the
session keeps (the results folder, the JSON, the report)."""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers.e2e import ANY, ASK_COLOUR, COLOUR_ANSWERED, COLOUR_ANSWERS, Suite, bash, needs_sandbox, tool_results

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run.agent import find_claude
from pytest_plugin_eval.run.execute import RunPlan, RunSettings, run_agent
from pytest_plugin_eval.run.workspace import Workspace


def canary(label: str) -> str:
    return f"CANARY-{label}-{secrets.token_hex(6)}"


def stored_text(suite: Suite, run) -> str:
    """Everything the session kept: the results folder (traces, files, report), and the JSON document."""
    parts = [json.dumps(run.doc)]
    for path in sorted((suite.root / "evals" / "results").rglob("*")):
        if path.is_file():
            parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


def denied(result: str) -> bool:
    return "denied" in result


def caller_home(tmp_path_factory, monkeypatch, *, inside: Path | None = None) -> tuple[Path, list[str]]:
    """A fake caller's home (HOME for the session) holding an SSH key, AWS credentials and gcloud files."""
    home = inside or tmp_path_factory.mktemp("caller-home")
    values = [canary("SSH"), canary("AWS"), canary("GCLOUD")]
    files = {".ssh/id_rsa": values[0], ".aws/credentials": values[1], ".config/gcloud/credentials.db": values[2]}
    for rel, value in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"secret = {value}\n")
    monkeypatch.setenv("HOME", str(home))
    return home, values


def test_the_callers_home_is_unreadable_with_read_grep_glob_granted(suite, monkeypatch, tmp_path_factory):
    home, values = caller_home(tmp_path_factory, monkeypatch)
    script = {
        "all": [
            {"tool": "Read", "input": {"file_path": str(home / ".ssh" / "id_rsa")}},
            {"tool": "Read", "input": {"file_path": f"/{home}/./.aws/../.aws/credentials"}},  # spelled otherwise
            {
                "tool": "Grep",
                "input": {"pattern": "CANARY-[A-Z]+-[0-9a-f]+", "path": str(home), "output_mode": "content"},
            },
            {
                "tool": "Grep",
                "input": {"pattern": "CANARY-[A-Z]+-[0-9a-f]+", "path": str(home.parent), "output_mode": "content"},
            },
            {"tool": "Glob", "input": {"pattern": "**/id_rsa", "path": str(home.parent)}},
            {"tool": "Glob", "input": {"pattern": f"{home}/**/*"}},
            {
                "tool": "Grep",
                "input": {"pattern": "secret", "path": "/", "output_mode": "content", "glob": "credentials*"},
            },
            {"tool": "Read", "input": {"file_path": str(suite.root / "skills" / "greet" / "SKILL.md")}},
            "done",
        ]
    }
    suite.case("peek-home", frontmatter={"runs": 1, "max_turns": 20}, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--allow-tools", "Read", "Grep", "Glob")
    results = tool_results(run.case("peek-home")["arms"]["with"][0])
    assert len(results) == 8
    assert all(denied(r) for r in results[:7]), results
    assert "Greets the user warmly" in results[7]  # the plugin stays readable
    kept = stored_text(suite, run)
    assert not [v for v in values if v in kept]


def test_a_plugin_in_the_callers_home_stays_readable_and_the_rest_of_the_home_does_not(
    pytester, monkeypatch, tmp_path_factory
):
    home = tmp_path_factory.mktemp("home-with-plugin")
    _, values = caller_home(tmp_path_factory, monkeypatch, inside=home)
    suite = Suite(pytester, root=home / "code" / "greeter")
    (home / "code" / "other-project").mkdir()
    (home / "code" / "other-project" / "notes.txt").write_text(f"notes {values[0]}\n")
    script = {
        "all": [
            {"tool": "Read", "input": {"file_path": str(suite.root / "skills" / "greet" / "SKILL.md")}},
            {"tool": "Read", "input": {"file_path": str(home / "code" / "other-project" / "notes.txt")}},
            {"tool": "Read", "input": {"file_path": str(home / ".ssh" / "id_rsa")}},
            {"tool": "Grep", "input": {"pattern": "CANARY", "path": str(home / "code"), "output_mode": "content"}},
            "done",
        ]
    }
    suite.case("peek", frontmatter={"runs": 1, "allowed_tools": ["Read", "Grep"]}, graders=ANY, script=script)
    run = suite.run("--ablation", "none", path=str(suite.root / "evals"))
    results = tool_results(run.case("peek")["arms"]["with"][0])
    assert "Greets the user warmly" in results[0]
    assert all(denied(r) for r in results[1:]), results
    assert not [v for v in values if v in stored_text(suite, run)]


@pytest.mark.parametrize("grant", ["Read(/etc/**)", "Grep(~/.ssh/**)", "Edit(../../x)"])
def test_a_file_grant_reaching_outside_the_workspace_is_an_option_error(suite, grant):
    suite.case("c", frontmatter={"runs": 1}, graders=ANY, script={"all": ["hi"]})
    run = suite.run("--ablation", "none", "--allow-tools", grant)
    assert run.rc != 0
    assert "reaches outside the run's workspace" in run.out + run.err
    assert not (suite.root / "evals" / "results").exists()  # nothing ran


@needs_sandbox
def test_a_run_cannot_see_another_runs_workspace(suite):
    secret = canary("SIBLING")
    # A workspace left in the system temp folder, as eval_agent's are: its exact path is known.
    planted = Path(tempfile.mkdtemp(prefix="claude-eval-"))
    (planted / "home" / "cwd").mkdir(parents=True)
    (planted / "home" / "cwd" / "notes.txt").write_text(secret)
    parent = "{cwd}/../../.."  # the folder every workspace of the session lives in
    try:
        suite.case(
            "writer",
            frontmatter={"runs": 1},
            graders=ANY,
            script={
                "all": [
                    {"tool": "Write", "input": {"file_path": "{cwd}/sibling-secret.txt", "content": secret}},
                    {"text": "written", "delay": 8},  # the workspace stays while the reader looks for it
                ]
            },
        )
        probes = [
            {
                "tool": "Grep",
                "input": {"pattern": "CANARY-SIBLING", "path": parent, "output_mode": "content"},
                "delay": 3,
            },
            {"tool": "Glob", "input": {"pattern": "*/home/cwd/*.txt", "path": parent}},
            {"tool": "Read", "input": {"file_path": str(planted / "home" / "cwd" / "notes.txt")}},
            {"tool": "Grep", "input": {"pattern": "CANARY", "path": str(planted), "output_mode": "content"}},
            bash(
                f"python3 -c \"import glob; print(sorted(glob.glob('{parent}/*')))\"; "
                f"cat {parent}/*/home/cwd/sibling-secret.txt {planted}/home/cwd/notes.txt 2>&1 | head -3"
            ),
            "done",
        ]
        suite.case("reader", frontmatter={"runs": 1}, graders=ANY, script={"all": probes})
        run = suite.run("--ablation", "none", "-j", "2", "--allow-tools", "Read", "Grep", "Glob", "Bash", "Write")
        [reader] = run.case("reader")["arms"]["with"]
        results = tool_results(reader)
        assert all(denied(r) for r in results[:4]), results
        assert secret not in results[4]
        assert run.case("writer")["arms"]["with"][0]["score"] == 1.0  # the writer did write it
        kept = [p for p in Path(reader["tracePath"]).parent.rglob("*") if p.is_file()]
        assert not [p for p in kept if secret in p.read_text(errors="replace")]
        assert secret not in json.dumps(reader)
    finally:
        shutil.rmtree(planted, ignore_errors=True)


def test_the_read_tool_cannot_open_a_sibling_workspace_by_its_exact_path(tmp_path):
    """Two workspaces side by side, as a session makes them: the second's agent reads the first's file by path."""
    secret = canary("EXACT")
    base = tmp_path / "workspaces"
    base.mkdir()
    first, second = Workspace.create(base), Workspace.create(base)
    (first.cwd / "work.txt").write_text(secret)
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    folder = plugin / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "graders" / "ok.md").write_text("---\ntype: regex\npattern: .\n---\n")
    (folder / "prompt.md").write_text("---\nallowed_tools: [Read, Grep, Glob]\n---\nGo.\n")
    case = load_case(folder, plugin / "evals", grader_types())
    turns = [
        {"tool": "Read", "input": {"file_path": str(first.cwd / "work.txt")}},
        {"tool": "Grep", "input": {"pattern": "CANARY", "path": str(first.root), "output_mode": "content"}},
        {"tool": "Glob", "input": {"pattern": "**/*.txt", "path": str(first.root)}},
        {"tool": "Read", "input": {"file_path": str(second.cwd / ".." / ".gitconfig")}},  # its own home: readable
        "done",
    ]
    endpoint = ScriptedEndpoint().start()
    try:
        script = parse_script({"all": turns}, "test")
        plan = RunPlan(
            case=case,
            arm="with",
            index=1,
            settings=RunSettings(allow_tools=("Read", "Grep", "Glob")),
            claude=find_claude(None),
            base_url=lambda cwd: endpoint.agent_url(script, arm="with", run=1, cwd=str(cwd), prompt="Go."),
        )
        run = run_agent(plan, second)
    finally:
        endpoint.stop()
        first.remove()
    results = tool_results({"tracePath": str(second.trace)})
    second.remove()
    assert run.error is None, run.error
    assert all(denied(r) for r in results[:3]), results
    assert "Plugin Eval" in results[3]
    assert not any(secret in r for r in results)


def test_stored_results_are_out_of_reach_of_a_later_run(suite, tmp_path_factory):
    secret = canary("STORED")
    out = tmp_path_factory.mktemp("results-elsewhere")
    suite.case(
        "first",
        frontmatter={"runs": 1},
        graders=ANY,
        script={"all": [{"tool": "Write", "input": {"file_path": "{cwd}/kept.txt", "content": secret}}, "done"]},
    )
    earlier = suite.run("--ablation", "none", "--allow-tools", "Write", "--output-dir", str(out))
    trace = Path(earlier.case("first")["arms"]["with"][0]["tracePath"])
    assert trace.is_relative_to(out) and secret in trace.read_text()
    shutil.rmtree(suite.root / "evals" / "first")
    probes = [
        {"tool": "Read", "input": {"file_path": str(trace)}},
        {"tool": "Grep", "input": {"pattern": "CANARY-STORED", "path": str(out), "output_mode": "content"}},
        {"tool": "Glob", "input": {"pattern": "**/kept.txt", "path": str(out)}},
        bash(f"python3 -c \"import glob; print(glob.glob('{out}/**/kept.txt', recursive=True))\""),
        "done",
    ]
    suite.case("later", frontmatter={"runs": 1}, graders=ANY, script={"all": probes})
    grants = (
        ["Read", "Grep", "Glob", "Bash"]
        if shutil.which("bwrap") and shutil.which("socat")
        else ["Read", "Grep", "Glob"]
    )
    later = suite.run("--ablation", "none", "--allow-tools", *grants, "--output-dir", str(out))
    [run] = later.case("later")["arms"]["with"]
    results = tool_results(run)
    assert all(denied(r) for r in results[:3]), results
    if "Bash" in grants:
        assert results[3].strip() == "[]"
    assert secret not in json.dumps(run)


@needs_sandbox
@pytest.mark.parametrize("answers", [False, True], ids=["one-prompt", "answers"])
def test_credentials_are_withheld_from_the_shell_and_redacted_from_everything_kept(suite, monkeypatch, answers):
    creds = {
        "ANTHROPIC_FOUNDRY_API_KEY": canary("FOUNDRY"),
        "CLOUDSDK_AUTH_ACCESS_TOKEN": canary("GCLOUD"),
        "AWS_SECRET_ACCESS_KEY": canary("AWS"),
    }
    unrelated = canary("NOTPASSED")
    for name, value in creds.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_SOMETHING_ELSE", unrelated)  # a provider prefix no longer passes it
    foundry = creds["ANTHROPIC_FOUNDRY_API_KEY"]
    script = {
        "all": [
            bash("env | sort"),
            bash(
                "python3 -c \"import glob\nfor p in glob.glob('/pr'+'oc/*/environ'):\n  try: d = open(p, 'rb').read()\n"
                "  except OSError: continue\n  print(p, b'CANARY' in d)\""
            ),
            bash(f"head -2 {suite.root}/skills/greet/SKILL.md"),  # HOME is the plugin here: still readable
            # A model that knew a key anyway would leave it in the trace and the files: it is redacted from them.
            {"tool": "Write", "input": {"file_path": "{cwd}/leak.txt", "content": f"key={foundry}"}},
            {"text": f"The Foundry key is {foundry}."},
        ]
    }
    frontmatter: dict = {"runs": 1, "max_turns": 10}
    if answers:  # a conversation: its trace also holds the replayed user messages and the control requests
        frontmatter["answers"] = COLOUR_ANSWERS
        script["all"].insert(0, ASK_COLOUR)
    suite.case("creds", frontmatter=frontmatter, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--allow-tools", "Bash", "Write")
    [only] = run.case("creds")["arms"]["with"]
    results = tool_results(only)
    if answers:
        assert results.pop(0).startswith(COLOUR_ANSWERED)
    for name, value in creds.items():
        assert value not in results[0] and f"{name}=" not in results[0], name
    assert unrelated not in results[0] and "AWS_SOMETHING_ELSE" not in results[0]
    assert "True" not in results[1]
    assert "name: greet" in results[2]
    kept = stored_text(suite, run)
    assert not [v for v in (*creds.values(), unrelated) if v in kept]
    trace = Path(only["tracePath"]).read_text()
    assert "[redacted: ANTHROPIC_FOUNDRY_API_KEY]" in trace
    files = Path(only["tracePath"]).parent / "files"
    assert (files / "leak.txt").read_text() == "key=[redacted: ANTHROPIC_FOUNDRY_API_KEY]"
