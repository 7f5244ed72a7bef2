"""A session's scratch folder, and leaving nothing behind.

Every run's workspace lives under one folder of the session (and the --max-cost-usd ledger beside them), so a
fresh session never inherits another's ledger, and the end of the session removes them all, with the TMPDIRs in
/tmp they link to — also the workspaces of a worker that was killed. Every process a run starts carries the session's tag in its environment; what is
still running with it at the end (a sandbox helper left by a killed `claude`, say) is killed. A session killed
outright (kill -9) cannot clean up after itself: the next session does, for every scratch folder whose owner
process is gone.

Whether the owner is gone is told by a lock, not by its process id: the owner holds an exclusive lock on its
owner file for as long as it lives, and the kernel drops it when the process dies, however it dies. A process id
says nothing to a session in another PID namespace sharing /tmp (a container, a sandbox, CI jobs side by side):
to it every other session looked dead, and it removed their workspaces in the middle of their runs (the run's
stderr.txt vanished under it — issue 34 item 24). A folder is swept only when its lock is free and its process id
is gone too (a session of a version before the lock holds none).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..run.execute import SESSION_TAG
from ..run.permissions import SESSION_PREFIX as PREFIX
from ..run.permissions import WORKSPACE_PREFIX
from ..run.workspace import Workspace, remove_tree

OWNER_FILE = "owner"  # "<pid> <tag>" of the session process that made the folder


@dataclass(frozen=True)
class Scratch:
    path: Path
    tag: str
    owner: bool  # the process that made it removes it (a same-host xdist worker shares its controller's)
    lock: IO[str] | None = field(default=None, compare=False, repr=False)  # the owner's, held until close

    @classmethod
    def create(cls) -> Scratch:
        sweep_abandoned()
        path = Path(tempfile.mkdtemp(prefix=PREFIX))
        tag = secrets.token_hex(6)
        # Locked before it has its name: a sweeping session never sees an owner file whose lock is not held yet.
        staged = path / f"{OWNER_FILE}.new"
        lock = open(staged, "w")  # noqa: SIM115  (held for the session)
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write(f"{os.getpid()} {tag}\n")
        lock.flush()
        os.rename(staged, path / OWNER_FILE)
        (path / "workspaces").mkdir()
        return cls(path, tag, owner=True, lock=lock)

    @property
    def workspaces(self) -> Path:
        return self.path / "workspaces"

    @property
    def ledger(self) -> Path:
        return self.path / "ledger.sqlite"

    def close(self) -> None:
        if not self.owner:
            return
        kill_tagged(self.tag)
        for folder in self.workspaces.glob(f"{WORKSPACE_PREFIX}*"):  # each with its TMPDIR in /tmp
            Workspace(folder).remove()
        remove_tree(self.path)
        if self.lock is not None:
            self.lock.close()


def sweep_abandoned() -> list[Path]:
    """Remove the scratch folders of sessions that died without cleaning up (their owner process is gone), and
    kill what their runs left running. Returns the folders removed."""
    swept = []
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = open(folder / OWNER_FILE)  # noqa: SIM115  (closed below, or by the Scratch that closes)
        except OSError:
            continue  # not ours to judge: unreadable, another user's, or not made yet
        try:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live owner, wherever it runs
            pid, tag = owner.read().split()
            if process_exists(int(pid)):
                raise BlockingIOError  # a session of a version that took no lock, still running
        except (OSError, ValueError):
            owner.close()
            continue
        Scratch(folder, tag, owner=True, lock=owner).close()
        swept.append(folder)
    return swept


def process_exists(pid: int) -> bool:
    """Whether a process `pid` runs, as this process sees it (another PID namespace's are not seen)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: it exists
    return True


def kill_tagged(tag: str) -> list[int]:
    """Kill every process whose environment carries the session's tag (Linux: read from /proc). Returns their
    pids."""
    marker = f"{SESSION_TAG}={tag}".encode() + b"\0"
    killed: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return killed
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ + b"\0":
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
            except OSError:
                continue
    return killed
