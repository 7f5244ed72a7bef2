"""A session's scratch folder, and leaving nothing behind.

Every run's workspace lives under one folder of the session (and the --max-cost-usd ledger beside them), so a
fresh session never inherits another's ledger, and the end of the session removes them all — also the workspaces
of a worker that was killed. Every process a run starts carries the session's tag in its environment; what is
still running with it at the end (a sandbox helper left by a killed `claude`, say) is killed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..run.execute import SESSION_TAG


@dataclass(frozen=True)
class Scratch:
    path: Path
    tag: str
    owner: bool  # the process that made it removes it (a same-host xdist worker shares its controller's)

    @classmethod
    def create(cls) -> Scratch:
        path = Path(tempfile.mkdtemp(prefix="plugin-eval-session-"))
        (path / "workspaces").mkdir()
        return cls(path, secrets.token_hex(6), owner=True)

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
        for folder, subdirs, _ in os.walk(self.path):  # the agent may have left read-only folders behind
            for name in subdirs:
                try:
                    os.chmod(os.path.join(folder, name), 0o700)
                except OSError:
                    pass
        shutil.rmtree(self.path, ignore_errors=True)


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
