"""Unit tests for a run's kept artefacts (pytest_plugin_eval.run.artefacts): what RunFolder.keep copies out of a
finished run's workspace — its working tree, what it changed first — and the output graders read back from it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.grade.targets import FileTarget, TargetError, text_of
from pytest_plugin_eval.run import artefacts
from pytest_plugin_eval.run.artefacts import CHANGES, CREATED_FILES, RunFolder
from pytest_plugin_eval.run.output import Changes
from pytest_plugin_eval.run.workspace import Workspace

TRACE = '{"type":"result","subtype":"success","num_turns":1,"result":"done"}\n'


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    for folder in (ws.home, ws.cwd, ws.config, ws.tmp, ws.out):
        folder.mkdir(parents=True)
    ws.trace.write_text(TRACE)
    ws.stderr.write_text("")
    return ws


def staged_and_run(ws: Workspace) -> Changes:
    """A scaffold's files, then a run that edits one, creates one and deletes one."""
    (ws.cwd / "src").mkdir()
    (ws.cwd / "src" / "app.py").write_text("print('v1')\n")
    (ws.cwd / "README.md").write_text("untouched scaffold file\n")
    (ws.cwd / "old.txt").write_text("to be deleted\n")
    before = ws.snapshot()
    (ws.cwd / "src" / "app.py").write_text("print('v2, edited by the agent')\n")
    (ws.cwd / "notes.md").write_text("created\n")
    (ws.cwd / "old.txt").unlink()
    return ws.record_changes(before)


def keep(ws: Workspace, folder: RunFolder, changes: Changes) -> None:
    folder.keep(ws.trace, ws.stderr, ws.cwd, changes.created, None)


def test_keep_copies_the_working_tree_and_records_what_changed(ws, tmp_path):
    changes = staged_and_run(ws)
    folder = RunFolder(tmp_path / "runs" / "c" / "with-1")
    keep(ws, folder, changes)
    assert json.loads((folder.path / CHANGES).read_text()) == {
        "created": ["notes.md"],
        "modified": ["src/app.py"],
        "deleted": ["old.txt"],
    }
    assert folder.changes() == changes
    assert json.loads((folder.path / CREATED_FILES).read_text()) == ["notes.md"]
    assert sorted(p.relative_to(folder.files).as_posix() for p in folder.files.rglob("*") if p.is_file()) == [
        "README.md",
        "notes.md",
        "src/app.py",
    ]


def test_output_rebuilds_what_graders_saw(ws, tmp_path):
    changes = staged_and_run(ws)
    folder = RunFolder(tmp_path / "run")
    keep(ws, folder, changes)
    kept = folder.output("with")
    assert kept.created_files == ("notes.md",)  # the `files` target: created files only
    assert kept.arm == "with" and kept.transcript.result is not None
    live = SimpleNamespace(cwd=ws.cwd)  # what graders read during the run
    for path in ("src/app.py", "README.md", "notes.md"):
        assert text_of(FileTarget(path), kept) == text_of(FileTarget(path), live)
    with pytest.raises(TargetError, match="does not exist"):
        text_of(FileTarget("old.txt"), kept)


def test_what_the_run_changed_is_kept_first_within_the_budget(ws, tmp_path, monkeypatch):
    (ws.cwd / "a-big-scaffold-file.txt").write_text("s" * 60)
    (ws.cwd / "edited.txt").write_text("x" * 30)
    before = ws.snapshot()
    (ws.cwd / "edited.txt").write_text("y" * 40)
    (ws.cwd / "created.txt").write_text("z" * 50)
    monkeypatch.setattr(artefacts, "MAX_COPIED_BYTES", 100)
    folder = RunFolder(tmp_path / "run")
    keep(ws, folder, ws.record_changes(before))
    # created (50) and modified (40) fit; the untouched 60 bytes do not fit in the 10 left.
    assert sorted(p.name for p in folder.files.iterdir()) == ["created.txt", "edited.txt"]


def test_symlinks_inside_the_tree_are_kept_as_links(ws, tmp_path):
    (ws.cwd / "docs").mkdir()
    (ws.cwd / "docs" / "real.md").write_text("real\n")
    (ws.cwd / "docs" / "alias.md").symlink_to("real.md")
    (ws.cwd / "abs-alias.md").symlink_to(ws.cwd / "docs" / "real.md")
    (ws.cwd / "outside").symlink_to(tmp_path)
    folder = RunFolder(tmp_path / "run")
    keep(ws, folder, ws.record_changes({}))
    assert (folder.files / "docs" / "alias.md").read_text() == "real\n"
    assert (folder.files / "abs-alias.md").is_symlink() and (folder.files / "abs-alias.md").read_text() == "real\n"
    assert not (folder.files / "outside").exists() and not (folder.files / "outside").is_symlink()


def test_a_retry_replaces_the_earlier_attempts_record(ws, tmp_path):
    folder = RunFolder(tmp_path / "run")
    keep(ws, folder, staged_and_run(ws))
    ws.changes_file.unlink()  # a caller whose run recorded no changes: the old record must not survive
    keep(ws, folder, Changes(created=("notes.md",)))
    assert folder.changes() is None and not (folder.path / CHANGES).exists()


def test_a_folder_kept_before_changes_json_regrades_as_before(tmp_path):
    folder = RunFolder(tmp_path / "old-run")
    folder.files.mkdir(parents=True)
    folder.trace.write_text(TRACE)
    (folder.files / "out.txt").write_text("created\n")
    (folder.path / CREATED_FILES).write_text(json.dumps(["out.txt"]))
    output = folder.output("without")
    assert folder.changes() is None
    assert (output.cwd, output.created_files, output.arm) == (folder.files, ("out.txt",), "without")
    assert text_of(FileTarget("out.txt"), output) == "created\n"


def test_copy_to_keeps_the_changes_and_the_links(ws, tmp_path):
    changes = staged_and_run(ws)
    (ws.cwd / "alias.md").symlink_to("README.md")
    folder, other = RunFolder(tmp_path / "run"), RunFolder(tmp_path / "regraded")
    keep(ws, folder, changes)
    folder.copy_to(other)
    assert other.changes() == changes
    assert (other.files / "alias.md").is_symlink()
    assert (other.files / "src" / "app.py").read_text() == "print('v2, edited by the agent')\n"
