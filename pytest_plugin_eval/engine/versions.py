"""The plugin as the arms beyond with and without see it: `against`, another version (--against REF: a git
revision of the plugin's repository, or a folder holding that version), and `ablate:<component>`, the plugin
minus one component (--ablate, load/ablation.py). Each is a copy made once per session, on first need, in the
session's scratch folder (shared by the workers of this host: a copy is made aside and renamed into place, so
two processes never see half of one), and removed with it. A copy leaves out the eval dir and version control:
the agent sees the plugin's files, not the suite."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from ..core.errors import UsageError
from ..core.kinds import Arm, ablated_component
from ..load.ablation import Removal, UnknownComponent, removal_of, server_files
from ..load.suite import MANIFEST

LEFT_OUT = (".git",)  # never copied


class VersionError(UsageError):
    """--against or --ablate names what cannot be made: the message says what and the fix."""


def revision_or_folder(plugin: Path, ref: str) -> tuple[str, Path | str]:
    """What --against REF names: ("folder", its path) when REF is a folder holding a plugin, else ("git", the
    commit REF resolves to in the plugin's repository). VersionError when it is neither."""
    folder = Path(ref).expanduser()
    if folder.is_dir():
        if not (folder / MANIFEST).is_file() and not any(folder.glob("skills/*/SKILL.md")):
            raise VersionError(
                f"--against {ref}: the folder holds no plugin (no {MANIFEST.as_posix()} and no skills/*/SKILL.md); "
                f"give the folder of the other version, or a git revision"
            )
        return "folder", folder.absolute()
    top = _git(plugin, "rev-parse", "--show-toplevel")
    if top is None:
        raise VersionError(
            f"--against {ref}: not a folder, and the plugin at {plugin} is not in a git repository to take the "
            f"revision from; give the folder of the other version"
        )
    commit = _git(plugin, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit is None:
        raise VersionError(
            f"--against {ref}: not a folder, nor a revision of the git repository at {top} "
            f"(a commit, tag or branch: `git log --oneline` lists them)"
        )
    return "git", commit


def _git(where: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def copy_plugin(source: Path, dest: Path, leave_out: tuple[Path, ...] = ()) -> None:
    """The plugin at `source` copied to `dest`, without version control and the folders `leave_out` (relative)."""
    skipped = {(source / rel).absolute() for rel in leave_out}

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n in LEFT_OUT or (Path(folder).absolute() / n) in skipped]

    shutil.copytree(source, dest, ignore=ignore, symlinks=True)


def archive_plugin(plugin: Path, commit: str, dest: Path, leave_out: tuple[Path, ...] = ()) -> None:
    """The plugin's folder as it was at `commit` (git archive), written to `dest`."""
    prefix = _git(plugin, "rev-parse", "--show-prefix") or ""
    top = _git(plugin, "rev-parse", "--show-toplevel")
    assert top is not None
    done = subprocess.run(
        ["git", "-C", top, "archive", "--format=tar", commit, "--", prefix or "."], capture_output=True, timeout=300
    )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise VersionError(f"--against: git archive of {commit[:12]} -- {prefix or '.'} failed: {said}")
    with tempfile.TemporaryDirectory(dir=dest.parent) as unpacked:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+
                archive.extractall(unpacked, filter="data")
            else:  # no absolute paths, no `..`, no links: what git archive of a plugin holds
                safe = [m for m in archive.getmembers() if (m.isfile() or m.isdir()) and _inside(m.name)]
                archive.extractall(unpacked, members=safe)
        found = Path(unpacked) / prefix
        if not found.is_dir():
            raise VersionError(f"--against: {prefix or 'the plugin'} does not exist at {commit[:12]}")
        copy_plugin(found, dest, leave_out)


def _inside(name: str) -> bool:
    path = Path(name)
    return not path.is_absolute() and ".." not in path.parts


def ablate(copy: Path, removals: list[Removal]) -> None:
    """Leave the components of `removals` out of the plugin copy at `copy`."""
    for removal in removals:
        for rel in removal.paths:
            target = copy / rel
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
        manifest = copy / MANIFEST
        if removal.manifest_keys and manifest.is_file():
            data = json.loads(manifest.read_text(encoding="utf-8"))
            for key in removal.manifest_keys:
                data.pop(key, None)
            manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        for rel in server_files(copy) if removal.servers else ():
            _drop_servers(copy / rel, removal.servers, inline=rel == MANIFEST)


def _drop_servers(path: Path, servers: tuple[str, ...], inline: bool) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return  # Claude Code cannot read it either
    table = data.get("mcpServers") if isinstance(data, dict) and (inline or "mcpServers" in data) else data
    if isinstance(table, dict):
        for server in servers:
            table.pop(server, None)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


class PluginVersions:
    """The copies of one session, made on first need (from any thread) in `root()`'s `versions/` folder."""

    def __init__(self, against: str | None, root: Callable[[], Path]):
        self.against = against
        self.root = root
        self._lock = threading.Lock()
        self._made: dict[tuple[Path, str], Path] = {}

    def check(self, plugin: Path, components: tuple[str, ...]) -> None:
        """Say before anything runs what cannot be made (VersionError): the --against REF and the components."""
        if self.against is not None:
            revision_or_folder(plugin, self.against)
        for component in components:
            try:
                removal_of(plugin, component)
            except UnknownComponent as e:
                raise VersionError(str(e)) from None

    def plugin_dirs(self, plugin_dirs: tuple[Path, ...], arm: Arm, eval_root: Path) -> tuple[Path, ...]:
        """The plugin folders a run of `arm` loads: the first (the plugin evaluated) as that arm has it."""
        if arm in ("with", "without") or not plugin_dirs:
            return plugin_dirs
        return (self.folder(plugin_dirs[0], arm, eval_root), *plugin_dirs[1:])

    def folder(self, plugin: Path, arm: Arm, eval_root: Path) -> Path:
        with self._lock:
            key = (plugin, arm)
            if key not in self._made:
                self._made[key] = self._make(plugin, arm, eval_root)
            return self._made[key]

    def _make(self, plugin: Path, arm: Arm, eval_root: Path) -> Path:
        plugin = plugin.absolute()
        tag = hashlib.sha256(str(plugin).encode()).hexdigest()[:12]
        dest = self.root() / "versions" / tag / arm.replace(":", "-")
        if dest.is_dir():  # another process of this session made it
            return dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        leave_out = (eval_root.absolute().relative_to(plugin),) if eval_root.absolute().is_relative_to(plugin) else ()
        aside = Path(tempfile.mkdtemp(prefix=".making-", dir=dest.parent)) / "plugin"
        if arm == "against":
            assert self.against is not None, "an against arm without --against"
            kind, where = revision_or_folder(plugin, self.against)
            if kind == "folder":
                copy_plugin(Path(where), aside, leave_out)
            else:
                archive_plugin(plugin, str(where), aside, leave_out)
        else:
            component = ablated_component(arm)
            assert component is not None, arm
            copy_plugin(plugin, aside, leave_out)
            ablate(aside, removal_of(plugin, component))
        try:
            os.rename(aside, dest)
        except OSError:  # made meanwhile by another process
            pass
        shutil.rmtree(aside.parent, ignore_errors=True)
        return dest
