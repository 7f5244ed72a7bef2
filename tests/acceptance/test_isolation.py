"""Isolation and the whole case format, end to end: the scripted agent tries to read secrets, write outside its
workspace and read the eval suite; scaffold scripts, resumed histories, fixture folders and tool grants."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest
from helpers.e2e import (
    ANY,
    ASK_COLOUR,
    COLOUR_ANSWERED,
    COLOUR_ANSWERS,
    GREETING_GRADERS,
    bash,
    needs_sandbox,
    tool_results,
)

from pytest_plugin_eval.run.workspace import Workspace


@needs_sandbox
@pytest.mark.parametrize("answers", [False, True], ids=["one-prompt", "answers"])
def test_bash_writes_its_workspace_only_and_sees_no_secrets(suite, monkeypatch, tmp_path_factory, answers):
    operator_home = tmp_path_factory.mktemp("operator-home")
    (operator_home / "secret.txt").write_text("OPERATOR-SECRET")
    monkeypatch.setenv("HOME", str(operator_home))
    monkeypatch.setenv("SECRET_TOKEN", "leak-123")
    monkeypatch.setenv("EVAL_FROM_SHELL", "shell")
    monkeypatch.setenv("EVAL_BOTH", "shell")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(operator_home / ".aws" / "config"))
    evals = suite.root / "evals"
    script = {
        "all": [
            bash("echo made > ./inside.txt && echo WROTE-CWD; echo x > $TMPDIR/t && echo WROTE-TMP"),
            bash(
                'python3 -c \'open("/tmp/outside-probe.txt","w")\' 2>&1 | tail -1; '
                f'python3 -c \'open("{suite.root}/outside-probe.txt","w")\' 2>&1 | tail -1'
            ),
            bash(f"python3 -c 'print(open(\"{operator_home}/secret.txt\").read())' 2>&1 | tail -1"),
            bash(f"python3 -c 'import os; print(sorted(os.listdir(\"{evals}\")))' 2>&1 | tail -1"),
            bash("env | sort"),
            bash(
                "python3 -c 'import urllib.request as u; u.urlopen(\"http://example.com\", timeout=5)' 2>&1 | tail -1"
            ),
            {"tool": "Read", "input": {"file_path": str(evals / "probe" / "graders" / "any.md")}},
            "done",
        ]
    }
    frontmatter: dict = {"runs": 1, "max_turns": 20, "env": {"EVAL_BOTH": "case"}}
    if answers:  # a run that answers questions is held alike
        frontmatter["answers"] = COLOUR_ANSWERS
        script["all"].insert(0, ASK_COLOUR)
    suite.case("probe", frontmatter=frontmatter, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--allow-tools", "Bash")
    [only] = run.case("probe")["arms"]["with"]
    results = tool_results(only)
    if answers:
        assert results.pop(0).startswith(COLOUR_ANSWERED)
    assert "WROTE-CWD" in results[0] and "WROTE-TMP" in results[0]
    # The plugin is read-only; the system temp folder is hidden (a write there lands in a throwaway copy).
    assert "Read-only file system" in results[1]
    assert not os.path.exists("/tmp/outside-probe.txt") and not (suite.root / "outside-probe.txt").exists()
    assert "OPERATOR-SECRET" not in results[2] and "No such file" in results[2]
    assert results[3].strip() == "[]"  # the suite is invisible from the sandbox
    env = results[4]
    assert "leak-123" not in env and "ANTHROPIC_API_KEY" not in env
    assert "EVAL_FROM_SHELL=shell" in env and "EVAL_BOTH=case" in env
    assert f"AWS_CONFIG_FILE={operator_home}" not in env
    assert "example.com" in results[5] or "403" in results[5] or "Forbidden" in results[5]
    assert "denied" in results[6]
    files = suite.root / "evals" / "results"
    assert list(files.glob("*/runs/probe/with-1/files/inside.txt"))  # created by Bash, kept


@pytest.fixture
def long_tmpdir(monkeypatch):
    """A 60-character TMPDIR for the session, as CI runners, tox and containers set them."""
    base = Path(tempfile.mkdtemp(prefix="long-", dir="/tmp"))
    folder = base / ("t" * (60 - len(str(base)) - 1))
    folder.mkdir()
    assert len(str(folder)) == 60
    monkeypatch.setenv("TMPDIR", str(folder))
    yield folder
    shutil.rmtree(base, ignore_errors=True)


@needs_sandbox
def test_bash_works_under_a_long_tmpdir(suite, long_tmpdir):
    script = {
        "all": [bash("echo SHELL-WORKS > ./shell.txt && cat shell.txt && echo x > $TMPDIR/t && echo TMP-OK"), "done"]
    }
    suite.case("shell", frontmatter={"runs": 1}, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--allow-tools", "Bash")
    [only] = run.case("shell")["arms"]["with"]
    [result] = tool_results(only)
    assert "SHELL-WORKS" in result and "TMP-OK" in result, result
    assert only["error"] is None and run.rc == 0
    assert list(long_tmpdir.iterdir()) == []  # the session's scratch folder is gone


@needs_sandbox
def test_a_sandbox_that_fails_to_start_is_a_fault_of_the_machine_not_the_plugins_score(
    suite, monkeypatch, tmp_path_factory
):
    # A socat that cannot open a socket: Claude Code's bridges never come up, and every shell command is refused.
    bin_dir = tmp_path_factory.mktemp("broken-bin")
    (bin_dir / "socat").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "socat").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    suite.case("shell", frontmatter={"runs": 1}, graders=ANY, script={"all": [bash("echo hi"), "done"]})
    run = suite.run("--ablation", "none", "--allow-tools", "Bash")
    [only] = run.case("shell")["arms"]["with"]
    assert only["errorKind"] == "sandbox" and only["score"] is None and only["graders"] == []
    assert only["error"].startswith("harness fault: Claude Code's sandbox failed to start (")
    assert "socat -V" in only["error"]  # the fix
    assert run.doc["partial"] is True and run.doc["partialReason"] == "sandbox_failed" and run.rc == 2
    assert "the shell's sandbox failed to start" in run.out


def test_a_shell_grant_without_a_sandbox_refuses_to_start(suite, monkeypatch, tmp_path_factory):
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("git", "setpriv"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))
    suite.case("shell", frontmatter={"runs": 1}, graders=ANY, script={"all": ["hi"]})
    run = suite.run("--ablation", "none", "--allow-tools", "Bash")
    [only] = run.case("shell")["arms"]["with"]
    assert only["errorKind"] == "start" and "cannot confine it" in only["error"]
    assert "bubblewrap" in only["error"] and "socat" in only["error"]
    assert run.rc == 1


def test_the_agent_cannot_read_the_eval_suite(suite):
    evals = suite.root / "evals"
    script = {
        "all": [
            {"tool": "Read", "input": {"file_path": str(evals / "peek" / "graders" / "any.md")}},
            {"tool": "Glob", "input": {"pattern": "**/*", "path": str(evals)}},
            {"tool": "Read", "input": {"file_path": str(suite.root / "skills" / "greet" / "SKILL.md")}},
            "done",
        ]
    }
    suite.case("peek", frontmatter={"runs": 1, "allowed_tools": ["Read", "Glob"]}, graders=ANY, script=script)
    run = suite.run("--ablation", "none")
    results = tool_results(run.case("peek")["arms"]["with"][0])
    assert "denied" in results[0] and "denied" in results[1]
    assert "Greets the user warmly" in results[2]  # the plugin itself is readable with a Read grant


def test_case_files_that_are_symlinks_out_of_the_suite_are_refused(suite, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "prompt.md").write_text("Say hello.\n")
    (outside / "g.md").write_text("---\ntype: regex\npattern: x\n---\n")
    linked = suite.case("linked-prompt", graders=ANY, script={"all": ["hi"]})
    (linked / "prompt.md").unlink()
    (linked / "prompt.md").symlink_to(outside / "prompt.md")
    grader = suite.case("linked-grader", graders=ANY, script={"all": ["hi"]})
    (grader / "graders" / "g.md").symlink_to(outside / "g.md")
    run = suite.run("--ablation", "none")
    errors = {e["case"]: e["message"] for e in run.doc["loadErrors"]}
    assert "symlink out of the suite" in errors["linked-prompt"]
    assert "symlink out of the suite" in errors["linked-grader"]


def scaffolded(suite, script_text: str):
    folder = suite.root / "evals" / "staged"
    (folder / "graders").mkdir(parents=True)
    (folder / "setup.sh").write_text(script_text)
    (folder / "setup.sh").chmod(0o755)
    (folder / "case.yaml").write_text(
        textwrap.dedent("""
        schema_version: "1.0"
        name: staged
        runs: 1
        context: {scaffold_script: setup.sh}
        execution:
          prompt: "Look at the workspace."
          allowed_tools: [Read, Write]
        graders:
          - {name: staged-file-not-created, type: file_exists, path: staged.txt, exists: false}
          - {name: new-file, type: file_exists, path: new.txt}
          - {name: sees-staged, type: regex, target: {source: file, path: staged.txt}, pattern: STAGED}
    """)
    )
    (folder / "scripted.yaml").write_text(
        "all:\n  - {tool: Write, input: {file_path: '{cwd}/new.txt', content: 'x'}}\n  - done\n"
    )
    return folder


def test_a_scaffold_stages_the_workspace_with_scaffold_only(suite):
    scaffolded(suite, '#!/bin/sh\necho STAGED > staged.txt\necho "env:$EVAL_X:$HOME" >&2\n')
    staged = suite.run("--ablation", "none", "--scaffold", "--allow-tools", "Write")
    [only] = staged.case("staged")["arms"]["with"]
    assert only["score"] == 1.0, only["graders"]  # pre-existing files are not "created"
    assert any("--scaffold runs each case's scaffold_script as you" in n for n in staged.doc["notices"])
    unstaged = suite.run("--ablation", "none", "--allow-tools", "Write")
    graders = {g["name"]: g for g in unstaged.case("staged")["arms"]["with"][0]["graders"]}
    assert not graders["sees-staged"]["passed"]
    assert any("not run without --scaffold" in n for n in unstaged.doc["notices"])


def test_a_file_the_agent_edited_regrades_to_the_same_verdict(suite):
    # The scaffold stages two files; the agent rewrites one (Read, then Write) and leaves the other alone.
    folder = suite.root / "evals" / "edits"
    (folder / "graders").mkdir(parents=True)
    (folder / "setup.sh").write_text("#!/bin/sh\necho 'version = 1' > config.ini\necho 'scaffold readme' > README\n")
    (folder / "setup.sh").chmod(0o755)
    (folder / "case.yaml").write_text(
        textwrap.dedent("""
        schema_version: "1.0"
        name: edits
        runs: 1
        context: {scaffold_script: setup.sh}
        execution:
          prompt: "Bump the version in config.ini."
          allowed_tools: [Read, Write]
        graders:
          - {name: bumped, type: regex, target: {source: file, path: config.ini}, pattern: "^version = 2$", flags: m}
          - {name: readme-untouched, type: regex, target: {source: file, path: README}, pattern: scaffold readme}
          - {name: nothing-created, type: regex, target: files, pattern: ".", match: not_contains}
    """)
    )
    (folder / "scripted.yaml").write_text(
        "all:\n"
        "  - {tool: Read, input: {file_path: '{cwd}/config.ini'}}\n"
        "  - {tool: Write, input: {file_path: '{cwd}/config.ini', content: \"version = 2\\n\"}}\n"
        "  - Bumped.\n"
    )
    first = suite.run("--ablation", "none", "--scaffold", "--allow-tools", "Write")
    [ran] = first.case("edits")["arms"]["with"]
    assert ran["score"] == 1.0, ran["graders"]
    stored = Path(ran["tracePath"]).parents[3]
    kept = Path(ran["tracePath"]).parent
    assert json.loads((kept / "changes.json").read_text()) == {"created": [], "modified": ["config.ini"], "deleted": []}
    again = suite.run("--ablation", "none", "--regrade", str(stored))
    [regraded] = again.case("edits")["arms"]["with"]
    assert again.doc["suite"]["regradedFrom"] == str(stored)
    assert [(g["name"], g["passed"], g["explanation"]) for g in regraded["graders"]] == [
        (g["name"], g["passed"], g["explanation"]) for g in ran["graders"]
    ]
    assert regraded["score"] == ran["score"] == 1.0


def test_a_failing_scaffold_is_a_run_error_without_a_model_call(suite):
    scaffolded(suite, "#!/bin/sh\necho broken-setup >&2\nexit 3\n")
    run = suite.run("--ablation", "none", "--scaffold")
    [only] = run.case("staged")["arms"]["with"]
    assert only["error"] == "scaffold failed (exit 3): broken-setup\n" and only["errorKind"] == "scaffold"
    assert only["score"] == 0.0 and only["graders"] == []
    assert run.rc == 1


def test_a_history_case_resumes_the_transcript_and_runs_single_arm(suite):
    # Record a short session, then resume it as the case's history.
    first = suite.case(
        "first",
        frontmatter={"runs": 1},
        graders=ANY,
        prompt="Remember the word PINEAPPLE.",
        script={"all": ["Noted: PINEAPPLE."]},
    )
    suite.run("--ablation", "none", "--keep-temp")
    session_file = next((suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    workspace = json.loads(session_file.read_text())["cases"][0]["arms"]["with"][0]["workspace"]
    transcripts = list((Path(workspace) / "config" / "projects").glob("*/*.jsonl"))
    assert transcripts, "Claude Code keeps the session under CLAUDE_CONFIG_DIR/projects"
    shutil.rmtree(first)
    folder = suite.root / "evals" / "history"
    (folder / "graders").mkdir(parents=True)
    shutil.copyfile(transcripts[0], folder / "hist.jsonl")
    recorded = transcripts[0].read_bytes()
    Workspace(Path(workspace)).remove()  # kept for this test alone: leave nothing in the system temp folder
    (folder / "case.yaml").write_text(
        textwrap.dedent("""
        schema_version: "1.0"
        name: history
        runs: 1
        context: {history_file: hist.jsonl}
        execution: {prompt: "Which word did I ask you to remember?"}
        graders:
          - {name: word, type: regex, pattern: PINEAPPLE, target: trace}
    """)
    )
    (folder / "scripted.yaml").write_text("all: ['It was PINEAPPLE.']\n")
    run = suite.run()
    case = run.case("history")
    assert list(case["arms"]) == ["with"] and case["arms"]["with"][0]["score"] == 1.0
    assert case["singleArmReason"].startswith("a resumed history_file")
    assert any("runs single-arm" in n for n in run.doc["notices"])
    assert (folder / "hist.jsonl").read_bytes() == recorded  # the case's file is untouched


def test_fixture_folders_are_readable_and_the_rest_of_the_suite_is_not(suite):
    folder = suite.root / "evals" / "fixtures"
    (folder / "graders").mkdir(parents=True)
    (folder / "data").mkdir()
    (folder / "data" / "input.txt").write_text("FIXTURE-DATA-42")
    (folder / "case.yaml").write_text(
        textwrap.dedent("""
        schema_version: "1.0"
        name: fixtures
        runs: 1
        context: {add_dirs: [data]}
        execution: {prompt: "Read the fixture."}
        graders:
          - {name: read-it, type: regex, target: trace, pattern: FIXTURE-DATA-42}
    """)
    )
    script = {
        "all": [
            {"tool": "Read", "input": {"file_path": str(folder / "data" / "input.txt")}},
            {"tool": "Read", "input": {"file_path": str(folder / "case.yaml")}},
            "done",
        ]
    }
    (folder / "scripted.yaml").write_text(json.dumps(script))
    run = suite.run("--ablation", "none")
    [only] = run.case("fixtures")["arms"]["with"]
    results = tool_results(only)
    assert "FIXTURE-DATA-42" in results[0] and "denied" in results[1]
    assert only["score"] == 1.0


def test_a_gated_tool_the_operator_did_not_grant_is_a_visible_warning(suite):
    suite.case(
        "wants-write",
        frontmatter={"runs": 1, "allowed_tools": ["Read", "Write"]},
        graders={"greeting": GREETING_GRADERS["greeting"]},
        script={"all": ["Hello from the plugin."]},
    )
    run = suite.run("--ablation", "none")
    assert any("allowed_tools asks for Write, which only the operator can grant" in n for n in run.doc["notices"])
    granted = suite.run("--ablation", "none", "--allow-tools", "Write")
    assert not any("only the operator can grant" in n for n in granted.doc.get("notices", []))
