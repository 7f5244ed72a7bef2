"""Unit tests for taking credential values out of what a run keeps (pytest_plugin_eval.run.redact), and for
run_agent doing so before anything reads the run (the child is a fake here: no subprocess)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.run import artefacts
from pytest_plugin_eval.run import execute as run_execute
from pytest_plugin_eval.run.agent import ChildExit
from pytest_plugin_eval.run.artefacts import MOCK_CALLS, RunFolder
from pytest_plugin_eval.run.execute import RunPlan, RunSettings, run_agent
from pytest_plugin_eval.run.redact import MIN_SECRET_CHARS, Redactor
from pytest_plugin_eval.run.workspace import Workspace

KEY = "sk-ant-api03-CANARY-0123456789"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARY"
ENV = {"ANTHROPIC_API_KEY": KEY, "AWS_SECRET_ACCESS_KEY": AWS, "PATH": "/usr/bin", "AWS_REGION": "eu-west-1"}


def test_known_credentials_are_replaced_by_their_name():
    redactor = Redactor.of(ENV)
    assert redactor.text(f"key={KEY} and {AWS}.") == (
        "key=[redacted: ANTHROPIC_API_KEY] and [redacted: AWS_SECRET_ACCESS_KEY]."
    )
    assert redactor.text("eu-west-1 /usr/bin") == "eu-west-1 /usr/bin"  # not credentials


def test_short_values_and_the_cases_own_variables_are_left_alone():
    redactor = Redactor.of({"ANTHROPIC_API_KEY": "x" * (MIN_SECRET_CHARS - 1), "EVAL_API_TOKEN": "case-token-1234"})
    assert not redactor
    assert redactor.text("xxxxxxx case-token-1234") == "xxxxxxx case-token-1234"


def test_a_value_escaped_in_a_json_string_is_found_too():
    headers = 'X-Api-Key: "abc-CANARY-123"\nX-Org: acme-ünï'
    redactor = Redactor.of({"ANTHROPIC_CUSTOM_HEADERS": headers})
    for dumped in (json.dumps({"env": headers}), json.dumps({"env": headers}, ensure_ascii=False)):
        assert redactor.text(dumped) == '{"env": "[redacted: ANTHROPIC_CUSTOM_HEADERS]"}'


def test_a_longer_secret_is_replaced_before_one_it_contains():
    redactor = Redactor({"abcdefgh": "SHORT", "abcdefgh-ijklmnop": "LONG"})
    assert redactor.text("abcdefgh-ijklmnop abcdefgh") == "[redacted: LONG] [redacted: SHORT]"


def test_a_file_is_rewritten_and_keeps_its_mode(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text(f"the key is {KEY}\n")
    path.chmod(0o444)
    assert Redactor.of(ENV).file(path)
    assert path.read_text() == "the key is [redacted: ANTHROPIC_API_KEY]\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert not Redactor.of(ENV).file(path)  # nothing left to redact
    link = tmp_path / "link"
    link.symlink_to(path)
    assert not Redactor.of(ENV).file(link)


def test_names_holding_a_secret_are_renamed(tmp_path):
    token = "ya29.CANARY-gcloud-token"
    (tmp_path / KEY).mkdir()
    (tmp_path / KEY / f"{token[:7]}.txt").write_text("x")  # a prefix only: left alone
    (tmp_path / f"dump-{token}.txt").write_text("x")
    Redactor.of({**ENV, "CLOUDSDK_AUTH_ACCESS_TOKEN": token}).names(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "[redacted: ANTHROPIC_API_KEY]",
        f"[redacted: ANTHROPIC_API_KEY]/{token[:7]}.txt",
        "dump-[redacted: CLOUDSDK_AUTH_ACCESS_TOKEN].txt",
    ]


def test_the_tree_pass_covers_exactly_what_keep_copies(tmp_path, monkeypatch):
    monkeypatch.setattr(artefacts, "MAX_COPIED_BYTES", 100)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "changed.txt").write_text(KEY + "\n")
    (cwd / "big.bin").write_bytes(b"x" * 200)  # over the budget: never kept, never read
    (cwd / "untouched.txt").write_text("old " + AWS)
    Redactor.of(ENV).tree(cwd, ("changed.txt",))
    assert (cwd / "changed.txt").read_text() == "[redacted: ANTHROPIC_API_KEY]\n"
    assert (cwd / "untouched.txt").read_text() == "old [redacted: AWS_SECRET_ACCESS_KEY]"
    kept = [rel for rel, _ in artefacts.kept_files(cwd, ("changed.txt",))]
    assert sorted(kept) == ["changed.txt", "untouched.txt"]


def test_the_run_output_files_are_rewritten(tmp_path):
    for name in ("trace.jsonl", "stderr.txt", MOCK_CALLS):
        (tmp_path / name).write_text(f'{{"v": "{KEY}"}}\n')
    Redactor.of(ENV).run_output(tmp_path)
    for name in ("trace.jsonl", "stderr.txt", MOCK_CALLS):
        assert KEY not in (tmp_path / name).read_text()


# ---- run_agent: redacted before graders, the results folder or the report read the run -------------------------


@pytest.fixture
def case(tmp_path):
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p"}))
    folder = plugin / "evals" / "c"
    (folder / "graders").mkdir(parents=True)
    (folder / "graders" / "ok.md").write_text("---\ntype: regex\npattern: hello\n---\n")
    (folder / "prompt.md").write_text("Say hello.\n")
    return load_case(folder, plugin / "evals", grader_types())


def test_run_agent_redacts_the_trace_stderr_and_the_working_tree_before_anything_reads_them(
    case, tmp_path, monkeypatch
):
    class FakeChild:
        def __init__(self, command, trace, stderr):
            self.command, self.trace, self.stderr = command, trace, stderr

        def run(self, should_stop=None):
            # What a child that somehow saw the key would leave behind (its env holds it: the model client needs it).
            assert self.command.env["ANTHROPIC_API_KEY"] == KEY
            cwd = self.command.cwd
            (cwd / "leak.txt").write_text(f"KEY={KEY}\n")
            (cwd / f"{KEY}.log").write_text("named after it")
            lines = [
                {"type": "assistant", "message": {"content": [{"type": "text", "text": f"the key is {KEY}"}]}},
                {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "result": f"done {AWS}"},
            ]
            self.trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
            self.stderr.write_text(f"debug: using {AWS}\n")
            return ChildExit(0, False, 0.1, self.stderr.read_text())

    monkeypatch.setattr(run_execute, "Child", FakeChild)
    ws = Workspace.create(tmp_path)
    plan = RunPlan(case=case, arm="with", index=1, settings=RunSettings(), claude=Path("/opt/claude"), environ=ENV)
    run = run_agent(plan, ws)
    assert run.transcript.result["result"] == "done [redacted: AWS_SECRET_ACCESS_KEY]"
    assert run.created_files == ("[redacted: ANTHROPIC_API_KEY].log", "leak.txt")
    folder = RunFolder(tmp_path / "results" / "with-1")
    folder.keep(ws.trace, ws.stderr, ws.cwd, run.created_files, None)
    kept = [p for p in folder.path.rglob("*") if p.is_file()]
    assert kept and all(KEY.encode() not in p.read_bytes() and AWS.encode() not in p.read_bytes() for p in kept)
    assert (folder.files / "leak.txt").read_text() == "KEY=[redacted: ANTHROPIC_API_KEY]\n"
    assert "[redacted: AWS_SECRET_ACCESS_KEY]" in folder.stderr.read_text()
    assert not any(KEY in name for name in os.listdir(ws.cwd))
