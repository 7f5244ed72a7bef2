"""A session's scratch folder, and leaving nothing behind.

Every run's workspace lives under one folder of the session (and the --max-cost-usd ledger beside them), so a
fresh session never inherits another's ledger, and the end of the session removes them all, with the TMPDIRs in
/tmp they link to — also the workspaces of a worker that was killed. Every process a run starts carries the session's tag in its environment; what is
still running with it at the end (a sandbox helper left by a killed `claude`, say) is killed. A session killed
outright (kill -9) cannot clean up after itself: the next session does, for every scratch folder whose owner
process is gone.
"""

from __future__ import annotations

import os
import secrets
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

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

    @classmethod
    def create(cls) -> Scratch:
        sweep_abandoned()
        path = Path(tempfile.mkdtemp(prefix=PREFIX))
        (path / "workspaces").mkdir()
        scratch = cls(path, secrets.token_hex(6), owner=True)
        (path / OWNER_FILE).write_text(f"{os.getpid()} {scratch.tag}\n")
        return scratch

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


def sweep_abandoned() -> list[Path]:
    """Remove the scratch folders of sessions that died without cleaning up (their owner process is gone), and
    kill what their runs left running. Returns the folders removed."""
    swept = []
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            pid, tag = (folder / OWNER_FILE).read_text().split()
            os.kill(int(pid), 0)  # raises when no such process
            continue  # its session is still running
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue  # not ours to judge: unreadable, another user's, or older than the owner file
        Scratch(folder, tag, owner=True).close()
        swept.append(folder)
    return swept


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
