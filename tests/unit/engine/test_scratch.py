"""A session's scratch folder: made with its owner recorded, removed at the end, and swept by a later session when
its owner died without cleaning up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pytest_plugin_eval.engine import scratch as scratch_module
from pytest_plugin_eval.engine.scratch import OWNER_FILE, PREFIX, Scratch, sweep_abandoned
from pytest_plugin_eval.run.workspace import Workspace


@pytest.fixture
def temp(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def dead_pid() -> int:
    """A process id no process has (the highest free one)."""
    pid = int(Path("/proc/sys/kernel/pid_max").read_text()) - 1
    while Path(f"/proc/{pid}").exists():
        pid -= 1
    return pid


def test_a_scratch_folder_records_its_owner_and_goes_at_close(temp):
    scratch = Scratch.create()
    assert scratch.path.parent == temp and scratch.workspaces.is_dir()
    assert (scratch.path / OWNER_FILE).read_text().split()[1] == scratch.tag
    Scratch(scratch.path, scratch.tag, owner=False).close()  # a worker's view leaves it alone
    assert scratch.path.exists()
    scratch.close()
    assert not scratch.path.exists()


def test_a_later_session_sweeps_the_folders_of_dead_owners_only(temp):
    abandoned, running, unknown = (temp / f"{PREFIX}{name}" for name in ("dead", "alive", "nofile"))
    for folder in (abandoned, running, unknown):
        (folder / "workspaces" / "claude-eval-x").mkdir(parents=True)
    (abandoned / OWNER_FILE).write_text(f"{dead_pid()} abc123\n")
    (running / OWNER_FILE).write_text(f"{os.getpid()} def456\n")
    assert sweep_abandoned() == [abandoned]
    assert not abandoned.exists() and running.exists() and unknown.exists()
    fresh = Scratch.create()  # a new session sweeps first
    assert fresh.path.exists()
    fresh.close()


def test_closing_removes_the_tmp_folders_of_its_workspaces_too(temp, short_tmp):
    scratch = Scratch.create()
    runs = [Workspace.create(scratch.workspaces) for _ in range(2)]
    assert all(ws.tmp.parent == short_tmp for ws in runs)
    (runs[0].tmp / "left-by-a-killed-run").write_text("x")
    scratch.close()
    assert not any(ws.tmp.exists() or ws.root.exists() for ws in runs)


OWNER_SCRIPT = """
import sys, time
from pytest_plugin_eval.engine.scratch import Scratch
scratch = Scratch.create()  # held while the session lives
print(scratch.path, flush=True)
time.sleep(120)
"""


def test_a_live_session_is_never_swept_even_where_its_process_id_cannot_be_seen(temp, monkeypatch):
    # A session in another PID namespace sharing /tmp (a container, a sandbox) sees no process with the owner's
    # id: it took every other session for dead and removed their workspaces mid-run (issue 34 item 24). The owner's
    # lock tells: held while the owner lives, dropped by the kernel when it dies (here: kill -9).
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        assert owner.stdout is not None
        folder = Path(owner.stdout.readline().strip())
        assert folder.parent == temp
        monkeypatch.setattr(scratch_module, "process_exists", lambda pid: False)  # as seen from another namespace
        assert sweep_abandoned() == [] and folder.exists()
    finally:
        owner.kill()
        owner.communicate()
    assert sweep_abandoned() == [folder] and not folder.exists()


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_a_session_in_another_pid_namespace_leaves_this_sessions_scratch_alone(temp):
    scratch = Scratch.create()
    sweep = "from pytest_plugin_eval.engine.scratch import sweep_abandoned; print(sweep_abandoned())"
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", sys.executable, "-c", sweep],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    if done.returncode != 0:
        pytest.skip(f"no PID namespace here: {done.stderr.strip()[-200:]}")
    assert done.stdout.strip() == "[]" and scratch.workspaces.is_dir()
    scratch.close()
