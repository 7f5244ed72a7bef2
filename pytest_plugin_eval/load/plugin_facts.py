"""What a session evaluated, beyond the git commit: the plugin's skills as Claude Code names them, with the
`description` that makes Claude pick each, and a hash of the plugin's files.

Skills are listed the way Claude Code 2.1 lists a plugin's skills: each skills folder (`skills/`, and the
folders the manifest's `skills` key declares; with neither, the plugin folder itself) is either a skill itself (it holds SKILL.md; named by the
frontmatter's `name:`, else the folder) or holds one skill per subfolder with a SKILL.md (named by the
subfolder, whatever its frontmatter says). A name keeps letters, digits, `_` and `-` (anything else becomes
`-`), and is namespaced `plugin-name:skill-name`.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import code_units
from ..core.yamlio import FrontmatterError, YamlError, split_frontmatter
from .suite import SKILL_FILE, SKILLS_DIR, component_paths, plugin_at

_NOT_IN_A_NAME = re.compile(r"[^a-zA-Z0-9_-]")
# Folders whose files are not the plugin's content: version control, caches, installed dependencies.
_NOT_CONTENT = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".pytest_cache", ".mypy_cache"})
# The files that mark a folder as a session's results folder (results/store.py: its result, or its lock) or a
# model matrix's (results/matrix.py).
_SESSION_OUTPUT = frozenset({"aggregate-result.json", ".plugin-eval.lock", "matrix.json"})


@dataclass(frozen=True)
class SkillInfo:
    name: str  # as Claude Code names it within the plugin ("review")
    qualified_name: str  # as Claude calls it: "plugin-name:review"
    description: str | None  # the frontmatter's `description:`; None when it has none (or cannot be read)
    path: Path  # the SKILL.md
    when_to_use: str | None = None  # the frontmatter's `when_to_use:`, shown to the model after the description
    model_invocable: bool = True  # False: `disable-model-invocation: true` (only a user's /command runs it)

    @property
    def seen(self) -> str | None:
        """The description as the model sees it: Claude Code appends `when_to_use` (` - ` between them)."""
        return seen_description(self.description, self.when_to_use)


def seen_description(description: str | None, when_to_use: str | None) -> str | None:
    if not when_to_use:
        return description
    return f"{description} - {when_to_use}" if description else when_to_use


def skills_of(plugin_root: Path) -> list[SkillInfo]:
    """The plugin's skills, in the order Claude Code lists them (skills folder by folder, names in code-unit
    order), each once. A SKILL.md that cannot be read still names a skill (its description is None)."""
    root = Path(plugin_root)
    plugin = plugin_at(root).name
    folders = skill_folders(root)
    found: dict[str, SkillInfo] = {}
    for folder in dict.fromkeys(folders):
        if (folder / SKILL_FILE).is_file():
            meta = _frontmatter(folder / SKILL_FILE)
            written = meta.get("name")
            written = written.strip() if isinstance(written, str) else ""
            written = written.removeprefix(f"{plugin}:")
            entries: list[tuple[str, Path, dict | None]] = [(written or folder.name, folder / SKILL_FILE, meta)]
        elif folder.is_dir():
            subfolders = sorted(
                (d for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".")),
                key=lambda d: code_units(d.name),
            )
            entries = [(d.name, d / SKILL_FILE, None) for d in subfolders if (d / SKILL_FILE).is_file()]
        else:
            continue
        for written, path, known in entries:
            name = _NOT_IN_A_NAME.sub("-", written)
            meta = known if known is not None else _frontmatter(path)
            description, when_to_use = _text(meta.get("description")), _text(meta.get("when_to_use"))
            found.setdefault(
                name,
                SkillInfo(
                    name=name,
                    qualified_name=f"{plugin}:{name}",
                    description=description,
                    path=path,
                    when_to_use=when_to_use,
                    model_invocable=meta.get("disable-model-invocation") not in (True, "true"),
                ),
            )
    return list(found.values())


def skill_folders(root: Path) -> list[Path]:
    """The folders Claude Code takes skills from: `skills/` and the manifest's `skills` paths; when there is
    neither, the plugin folder itself (a SKILL.md at the root is then the plugin's one skill)."""
    declared = [Path(os.path.normpath(root / p)) for p in component_paths(root)["skills"]]
    if not declared and not (root / SKILLS_DIR).is_dir():
        return [root] if (root / SKILL_FILE).is_file() else []
    return [root / SKILLS_DIR, *declared]


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) else None


def descriptions_of(plugin_root: Path) -> dict[str, str | None]:
    """Qualified skill name → its description as the model sees it, for the results document."""
    return {skill.qualified_name: skill.seen for skill in skills_of(plugin_root)}


def content_hash(plugin_root: Path, exclude: tuple[Path, ...] = ()) -> str:
    """A sha256 over the plugin's files (plugin_files: sorted relative paths, each with its bytes). Stable across
    machines and checkouts: it names no absolute path, no time, no permission bit."""
    return hash_files(plugin_files(plugin_root, exclude))


def plugin_files(plugin_root: Path, exclude: tuple[Path, ...] = ()) -> list[tuple[str, Path]]:
    """The plugin's files as (relative path, path), but the folders and files in `exclude` (the eval dir: cases
    and results are not the plugin; a session's own output files), version-control or dependency folders, and any
    results folder or matrix kept inside the plugin (--output-dir baseline/)."""
    root = Path(plugin_root).absolute()
    skip = {Path(p).absolute() for p in exclude}
    files: list[tuple[str, Path]] = []
    for folder, subdirs, names in os.walk(root):
        here = Path(folder)
        if _SESSION_OUTPUT.intersection(names):
            subdirs[:] = []
            continue
        subdirs[:] = [d for d in subdirs if d not in _NOT_CONTENT and here / d not in skip]
        for name in names:
            path = here / name
            if path.is_file() and path not in skip:
                files.append((path.relative_to(root).as_posix(), path))
    return files


def hash_files(files: list[tuple[str, Path]]) -> str:
    """The sha256 of files given as (relative path, path), in the order of their relative paths."""
    digest = hashlib.sha256()
    for written, path in sorted(files, key=lambda f: code_units(f[0])):
        rel = written.encode("utf-8", errors="surrogateescape")
        try:
            data = path.read_bytes()
        except OSError:
            continue
        # Length-prefixed, so no two different trees give the same stream.
        digest.update(len(rel).to_bytes(8, "big") + rel + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def _frontmatter(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    try:
        meta, _ = split_frontmatter(text)
    except (FrontmatterError, YamlError):
        return _lenient_frontmatter(text)
    return meta if isinstance(meta, dict) else {}


_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*):[ \t]*(.*)$")


def _lenient_frontmatter(text: str) -> dict:
    """`key: value` lines of a frontmatter that is not valid YAML — as Claude Code still reads it: an unquoted
    description with `: ` in it (`(type(scope): subject)`) is a YAML error, yet Claude Code shows it to the model."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    out: dict = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        match = _KEY_LINE.match(line)
        if match:
            out[match.group(1)] = match.group(2).strip().strip("\"'")
    return out


@dataclass(frozen=True)
class PluginFacts:
    """What the runs saw of a plugin: each skill's description by its qualified name, and its content hash."""

    skill_descriptions: dict[str, str | None]
    content_hash: str


def facts_of(plugin_root: Path, exclude: tuple[Path, ...] = ()) -> PluginFacts | None:
    """None when the plugin folder is not there to read."""
    if not Path(plugin_root).is_dir():
        return None
    return PluginFacts(descriptions_of(plugin_root), content_hash(plugin_root, exclude))
