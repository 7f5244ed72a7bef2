"""An eval case folder, read and validated up front.

A case is a folder holding `prompt.md` (YAML frontmatter + the prompt) and/or `case.yaml`, plus graders in
`graders/*.md` or inline in case.yaml. Everything that can be checked without running the agent is checked
here, and every problem names the file and the key, so a broken case fails before any money is spent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core.errors import InvalidSpec
from ..core.kinds import Source
from ..core.paths import inside, within_suite
from ..core.problems import Problem, Problems, SpecError
from ..core.tools import disallow_problem
from ..core.validate import (
    Check,
    boolean,
    did_you_mean,
    mapping,
    nonempty_string,
    string,
    string_list,
    type_name,
    whole_number,
)
from ..core.yamlio import FrontmatterError, YamlError, load_yaml, split_frontmatter
from . import conversation as talk
from .graders import GRADERS_DIR, GraderKind, GraderSpec, load_grader_files, load_inline_graders
from .mocks import MockSet, load_mocks
from .script import SCRIPT_FILENAME, Script, load_script
from .skills import TriggerTarget
from .suite import NOT_CASE_DIRS, RESERVED_DIR, declared_servers, layout_warnings, resolve_plugin

PROMPT_FILE = "prompt.md"
CASE_FILE = "case.yaml"
PROMPT_CAP = 1024 * 1024
PROMPT_TEMPLATE = "TODO: describe what the agent should do"
ENV_KEY_RE = re.compile(r"^EVAL_[A-Z0-9_]*$")
VERSION_RE = re.compile(r"^(\d+)(?:\.\d+)*$")
DEFAULT_RUNS = 3
DEFAULT_MAX_TURNS = 10
DEFAULT_TIMEOUT = 300


class CaseLoadError(InvalidSpec):
    """A case that cannot run. `name` and `tags` are set when its own files were readable, so that
    --case/--tag can tell whether the user asked for it."""

    def __init__(self, case_dir: Path, problems: list[Problem], name: str | None = None, tags: tuple[str, ...] = ()):
        self.case_dir = case_dir
        self.problems = problems
        self.name = name
        self.tags = tags
        super().__init__("\n".join(p.render() for p in problems))

    @property
    def identity_known(self) -> bool:
        """The case's name and tags could be read, so --case/--tag can tell whether it was asked for."""
        return self.name is not None and not any(
            p.key.split("[")[0].split(".")[-1] in ("name", "tags") for p in self.problems
        )

    @property
    def values_only(self) -> bool:
        """Every problem is a bad value in a readable case, whose name and tags are known."""
        return self.name is not None and not any(p.structural for p in self.problems)


class LoaderCrash(CaseLoadError):
    """The loader itself crashed on this case: a bug of pytest-plugin-eval, not a mistake in the files. It is
    still this case's load error (the rest of the suite runs), but a distinct type with the crash as its
    `__cause__`, so that tests can tell a crash from a refusal."""


@dataclass(frozen=True)
class Context:
    """case.yaml `context:` — staging a run: a scaffold script, a resumed history, readable fixture folders, files
    copied into the run's working directory (each a source and its path there)."""

    scaffold_script: Path | None = None
    history_file: Path | None = None
    add_dirs: tuple[Path, ...] = ()
    files: tuple[tuple[Path, str], ...] = ()


@dataclass(frozen=True)
class Case:
    name: str
    dir: Path
    eval_root: Path
    plugin_root: Path | None
    source: Source  # "prose" (prompt.md), "case_yaml", or "mixed"
    prompt: str
    graders: tuple[GraderSpec, ...]
    runs: int | None = None  # as written (None: the default, 3)
    max_turns: int = DEFAULT_MAX_TURNS
    timeout_seconds: int = DEFAULT_TIMEOUT
    model: str | None = None
    models: tuple[str, ...] = ()  # models: the models of a matrix this case runs on (empty: all)
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    append_system_prompt: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    tags: tuple[str, ...] = ()
    plugins: tuple[Path, ...] = ()  # explicit plugin folders; () = the enclosing plugin
    description: str | None = None
    expected_outcome: str | None = None
    context: Context = field(default_factory=Context)
    warnings: tuple[str, ...] = ()
    mocks: MockSet = field(default_factory=MockSet)
    script: Script | None = None  # scripted.yaml, validated (None: the case has none)
    trigger: TriggerTarget | None = None  # a query of a trigger set run as a case (load/triggers.py)
    conversation: talk.Conversation = field(default_factory=talk.Conversation)  # turns, answers, a simulated user

    @property
    def runs_per_arm(self) -> int:
        return self.runs if self.runs is not None else DEFAULT_RUNS

    @property
    def rel_dir(self) -> str:
        """The case folder as the results JSON names it: relative to the suite (the eval dir's parent)."""
        return os.path.relpath(self.dir, self.eval_root.parent)

    @property
    def plugin_dirs(self) -> tuple[Path, ...]:
        """The folders loaded with --plugin-dir in the with arm."""
        if self.plugins:
            return self.plugins
        return (self.plugin_root,) if self.plugin_root is not None else ()

    @cached_property
    def mocks_all_shadow(self) -> bool:
        """Every server mocked for this case shadows a server its plugins declare, and one at least is mocked.
        Only then is no stand-in served in the without arm, so only then can a `mock_calls` grader pass with the
        plugin alone (a plugin-fired indicator); a standalone mock is served in both arms (see run.stand_ins)."""
        mocked = self.mocks.mocked()
        declared = {server for folder in self.plugin_dirs for server in declared_servers(folder)}
        return bool(mocked) and all(server in declared for server in mocked)

    @property
    def prompt_file(self) -> Path:
        """The file a pytest item is anchored on."""
        return self.dir / (PROMPT_FILE if (self.dir / PROMPT_FILE).exists() else CASE_FILE)


def is_case_dir(folder: Path) -> bool:
    return (folder / PROMPT_FILE).is_file() or (folder / CASE_FILE).is_file()


# ---- the case's own field checks (the shared ones are in core.validate) -----------------------------------


def _disallowed(value: Any, key: str) -> tuple[str, ...]:
    tools = string_list(value, key)
    for i, tool in enumerate(tools):
        problem = disallow_problem(tool)
        if problem:
            raise SpecError(f"{key}[{i}]", problem)
    return tools


def env_key_problem(name: str) -> str:
    """Why `name` cannot be set from a case, and how a plugin that needs such a value (a token) gets one: neither a
    case nor the operator's shell can hand the run anything but EVAL_* variables (and the allow-list Claude Code
    needs to reach the model, docs/isolation.md) — not to the agent, nor to the plugin's hooks and MCP servers."""
    suggested = "EVAL_" + re.sub(r"[^A-Z0-9_]", "_", name.upper()).removeprefix("EVAL_")
    return (
        "only EVAL_* variables (upper case: ^EVAL_[A-Z0-9_]*$) can be set from a case; and your shell's own "
        "variables never reach the run either (its hooks and MCP servers included), only EVAL_* ones and the "
        f"allow-list Claude Code needs — name it {suggested} (here, or exported in your shell) and have the plugin "
        f'read that (an MCP server\'s config can pass it on: "{name}": "${{{suggested}}}")'
    )


def _env(value: Any, key: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise SpecError(key, f"must be a mapping of EVAL_* names to strings (got {type_name(value)})")
    for name, item in value.items():
        if not isinstance(name, str) or not ENV_KEY_RE.match(name):
            raise SpecError(f"{key}.{name}", env_key_problem(str(name)))
        if not isinstance(item, str):
            raise SpecError(f"{key}.{name}", f'must be a string (got {type_name(item)}) — quote it: "{item}"')
    return tuple((str(k), v) for k, v in value.items())


def _schema_version(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise SpecError(key, f'must be a quoted version string such as "1.0" (got {type_name(value)})')
    m = VERSION_RE.match(value.strip())
    if not m:
        raise SpecError(key, f'"{value}" is not a version string such as "1.0"')
    if int(m.group(1)) > 1:
        raise SpecError(key, f'"{value}" needs a newer case format than this tool reads (up to 1.x)')
    return value


# Keys shared by prompt.md frontmatter and case.yaml (top level or under execution:).
TOP_FIELDS: dict[str, Check] = {
    "schema_version": _schema_version,
    "name": nonempty_string,
    "description": string,
    "tags": string_list,
    "plugins": string_list,
    "runs": whole_number(1, 50),
    "expected_outcome": string,
    "models": string_list,  # a model matrix runs the case on these of its models only (docs/matrix.md)
}
EXECUTION_FIELDS: dict[str, Check] = {
    "model": string,
    "max_turns": whole_number(1, 200),
    "timeout_seconds": whole_number(1, 3600),
    "allowed_tools": string_list,
    "disallowed_tools": _disallowed,
    "artifact_publish": boolean,
    "growthbook_overrides": mapping,
    "append_system_prompt": string,
    "env": _env,
    **talk.FIELDS,  # turns, answers, user: a case that talks back (load/conversation.py)
}
FRONTMATTER_KEYS = tuple(TOP_FIELDS) + tuple(EXECUTION_FIELDS)
# A bad name or tags leave --case/--tag unable to tell whether the case was asked for.
IDENTITY_KEYS = ("name", "tags")
CONTEXT_KEYS = ("scaffold_script", "history_file", "add_dirs", "files")


# ---- the case ---------------------------------------------------------------------------------------------


def _read_prompt_md(path: Path, errors: Problems) -> tuple[dict, str] | None:
    try:
        size = path.stat().st_size
        if size > PROMPT_CAP:
            errors.add(path, "", f"is {size} bytes; the cap is {PROMPT_CAP} (1 MiB)", structural=True)
            return None
        meta, body = split_frontmatter(path.read_text(encoding="utf-8"))
    except FrontmatterError as e:
        errors.add(path, "", str(e), structural=True)
        return None
    except YamlError as e:
        errors.add(path, e.key, f"invalid YAML frontmatter: {e}", structural=True)
        return None
    except (OSError, UnicodeDecodeError) as e:
        errors.add(path, "", f"cannot be read: {e}", structural=True)
        return None
    meta = meta or {}
    for key in meta:
        if key not in FRONTMATTER_KEYS:
            errors.add(
                path,
                str(key),
                f"is not a frontmatter key{did_you_mean(key, FRONTMATTER_KEYS)} (expected one of: "
                f"{', '.join(FRONTMATTER_KEYS)})",
                structural=True,
            )
    return meta, body.strip()


MISPLACED = {
    **{k: "execution" for k in EXECUTION_FIELDS},
    **{k: "top" for k in TOP_FIELDS},
    **{k: "context" for k in CONTEXT_KEYS},
    "prompt": "execution",
}


def _misplaced_hint(key: str, where: str) -> str:
    home = MISPLACED.get(key)
    if home is None or home == where:
        return ""
    return " — it belongs at the top level" if home == "top" else f" — it belongs under `{home}:`"


def _read_case_yaml(path: Path, errors: Problems) -> dict | None:
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except YamlError as e:
        errors.add(path, e.key, f"invalid YAML: {e}", structural=True)
        return None
    except (OSError, UnicodeDecodeError) as e:
        errors.add(path, "", f"cannot be read: {e}", structural=True)
        return None
    if not isinstance(data, dict):
        errors.add(path, "", f"must be a YAML mapping (got {type_name(data)})", structural=True)
        return None
    allowed_top = tuple(TOP_FIELDS) + ("context", "execution", "graders")
    for key in data:
        if key not in allowed_top:
            errors.add(
                path,
                str(key),
                f"is not a case.yaml key{_misplaced_hint(key, 'top') or did_you_mean(key, allowed_top)} "
                f"(top-level keys: {', '.join(allowed_top)})",
                structural=True,
            )
    for section, keys in (("execution", tuple(EXECUTION_FIELDS) + ("prompt",)), ("context", CONTEXT_KEYS)):
        value = data.get(section)
        if value is None:
            continue
        if not isinstance(value, dict):
            errors.add(path, section, f"must be a mapping (got {type_name(value)})", structural=True)
            data[section] = {}
            continue
        for key in value:
            if key not in keys:
                errors.add(
                    path,
                    f"{section}.{key}",
                    f"is not a key of `{section}:`{_misplaced_hint(key, section) or did_you_mean(key, keys)} "
                    f"(expected: {', '.join(keys)})",
                    structural=True,
                )
    if "schema_version" not in data:
        errors.add(path, "schema_version", 'is required in case.yaml (e.g. schema_version: "1.0")', structural=True)
    if "name" not in data:
        errors.add(path, "name", "is required in case.yaml", structural=True)
    return data


def _prompt(body: str, execution: dict, prompt_md: Path | None, case_yaml: Path, errors: Problems) -> str:
    """The prompt: a non-empty prompt.md body, else case.yaml's execution.prompt."""
    value = execution.get("prompt")
    if body:
        prompt, file, key = body, prompt_md, "prompt"
    elif value is not None and not isinstance(value, str):
        errors.add(case_yaml, "execution.prompt", f"must be a string (got {type_name(value)})")
        return ""
    elif value or prompt_md is None:
        prompt, file, key = (value or "").strip(), case_yaml, "execution.prompt"
    else:
        prompt, file, key = "", prompt_md, "prompt"
    if not prompt:
        errors.add(
            file,
            key,
            "is empty — write the user prompt to test as the prompt.md body (or execution.prompt in case.yaml)",
        )
    elif PROMPT_TEMPLATE in prompt:
        errors.add(
            file,
            key,
            f'is still the blank `init` template — replace the "{PROMPT_TEMPLATE}" line with the user prompt to test',
        )
    return prompt


def _case_path(case_dir: Path, value: Any, key: str, file: Path, errors: Problems, *, folder: bool) -> Path | None:
    """A context path: relative to the case folder, inside it, and existing."""
    if not isinstance(value, str) or not value:
        errors.add(file, key, f"must be a path relative to the case folder (got {type_name(value)})")
        return None
    if os.path.isabs(value) or ".." in Path(value).parts:
        errors.add(file, key, f'"{value}" leaves the case folder (absolute or `..`) — it must name something inside it')
        return None
    path = case_dir / value
    if not path.exists():
        errors.add(file, key, f'"{value}" does not exist in the case folder')
        return None
    if not inside(path, case_dir):
        errors.add(file, key, f'"{value}" is a symlink out of the case folder')
        return None
    if folder and not path.is_dir():
        errors.add(file, key, f'"{value}" is not a folder')
        return None
    if not folder and not path.is_file():
        errors.add(file, key, f'"{value}" is not a file')
        return None
    return path


def _context(case_dir: Path, raw: dict, file: Path, errors: Problems) -> Context:
    scaffold = history = None
    if raw.get("scaffold_script") is not None:
        scaffold = _case_path(case_dir, raw["scaffold_script"], "context.scaffold_script", file, errors, folder=False)
    if raw.get("history_file") is not None:
        history = _case_path(case_dir, raw["history_file"], "context.history_file", file, errors, folder=False)
    dirs = _case_paths(case_dir, raw, "add_dirs", file, errors, folder=True)
    files = _case_paths(case_dir, raw, "files", file, errors, folder=False)
    return Context(scaffold, history, tuple(path for path, _ in dirs), tuple(files))


def _case_paths(
    case_dir: Path, raw: dict, key: str, file: Path, errors: Problems, *, folder: bool
) -> list[tuple[Path, str]]:
    """`context.<key>`: a list of paths inside the case folder, each (resolved path, as written, normalised);
    every entry that is not one is a problem named by its index."""
    listed = raw.get(key)
    if listed is None:
        return []
    if not isinstance(listed, list):
        errors.add(
            file, f"context.{key}", f"must be a list of {'folders' if folder else 'files'} (got {type_name(listed)})"
        )
        return []
    found = []
    for i, value in enumerate(listed):
        path = _case_path(case_dir, value, f"context.{key}[{i}]", file, errors, folder=folder)
        if path:
            found.append((path, os.path.normpath(value)))
    return found


def _plugins(
    case_dir: Path, entries: tuple[str, ...], containment: Path, file: Path, errors: Problems
) -> tuple[Path, ...]:
    out = []
    for i, entry in enumerate(entries):
        path = (case_dir / entry).resolve()
        if not path.is_dir():
            errors.add(
                file, f"plugins[{i}]", f'"{entry}" does not exist (plugins are folders relative to the case folder)'
            )
        elif not inside(path, containment):
            errors.add(
                file,
                f"plugins[{i}]",
                f'"{entry}" resolves to {path}, outside {containment}; only plugins '
                f"inside the plugin under test can be loaded from a case",
            )
        else:
            out.append(path)
    return tuple(out)


def load_case(case_dir: Path, eval_root: Path, kinds: Mapping[str, GraderKind]) -> Case:
    """Read and validate the case in `case_dir`, whose graders are of the types in `kinds`. Raises CaseLoadError
    listing every problem found — and nothing else: whatever the files hold, a case that cannot be read is a load
    error of its own, never a crash of the collection."""
    try:
        return _load_case(case_dir, eval_root, kinds)
    except CaseLoadError:
        raise
    except Exception as e:  # a loader that tripped over a value nobody foresaw: still this case's problem only
        problem = f"could not be read: {type(e).__name__}: {e}"
        raise LoaderCrash(case_dir.absolute(), [Problem(case_dir.absolute(), "", problem, structural=True)]) from e


def _load_case(case_dir: Path, eval_root: Path, kinds: Mapping[str, GraderKind]) -> Case:
    case_dir, eval_root = case_dir.absolute(), eval_root.absolute()
    errors = Problems()
    warnings: list[str] = []
    prompt_md, case_yaml = case_dir / PROMPT_FILE, case_dir / CASE_FILE
    if RESERVED_DIR in case_dir.relative_to(eval_root).parts:
        raise CaseLoadError(
            case_dir,
            [
                Problem(
                    case_dir,
                    "",
                    f"{RESERVED_DIR}/ is reserved for mock responders — a case "
                    f"there is never run; move it out of {RESERVED_DIR}/",
                )
            ],
        )
    has_md, has_yaml = prompt_md.is_file(), case_yaml.is_file()
    for path in (prompt_md, case_yaml):
        # The file, or a folder above it (the case folder itself), may be the link: the agent must not be able to
        # read the suite through it, so wherever it points must be inside the eval dir.
        if (path.exists() or path.is_symlink()) and not within_suite(path, eval_root):
            errors.add(
                path,
                "",
                "is reached through a symlink out of the suite; case files must live inside it",
                structural=True,
            )
            raise CaseLoadError(case_dir, errors.items)

    yaml_data = _read_case_yaml(case_yaml, errors) if has_yaml else {}
    md = _read_prompt_md(prompt_md, errors) if has_md else None
    if yaml_data is None or (has_md and md is None):
        raise CaseLoadError(case_dir, errors.items)
    meta, body = md if md else ({}, "")
    yaml_file = case_yaml if has_yaml else prompt_md
    execution = yaml_data.get("execution") or {}

    # case.yaml values first, prompt.md frontmatter on top (it wins key by key).
    yaml_top = errors.check(
        case_yaml, TOP_FIELDS, {k: v for k, v in yaml_data.items() if k in TOP_FIELDS}, structural_keys=IDENTITY_KEYS
    )
    yaml_exec = errors.check(case_yaml, EXECUTION_FIELDS, execution, "execution.", structural_keys=IDENTITY_KEYS)
    md_settings = errors.check(prompt_md, {**TOP_FIELDS, **EXECUTION_FIELDS}, meta, structural_keys=IDENTITY_KEYS)
    settings = {**yaml_top, **yaml_exec, **md_settings}
    # disallowed_tools lists add up instead.
    disallowed = tuple(dict.fromkeys(yaml_exec.get("disallowed_tools", ()) + md_settings.get("disallowed_tools", ())))

    prompt = _prompt(body, execution, prompt_md if has_md else None, case_yaml, errors)

    before = len(errors)
    graders = load_inline_graders(case_yaml, yaml_data.get("graders"), kinds, errors) if has_yaml else []
    graders += load_grader_files(case_dir, kinds, errors, warnings, eval_root)
    grader_problems = len(errors) > before
    seen: set[str] = set()
    for spec, (file, key) in graders:
        if spec.name in seen:
            errors.add(file, key, f'another grader is already named "{spec.name}"; grader names must be unique')
        seen.add(spec.name)
    if not graders and not grader_problems:
        errors.add(
            case_dir,
            GRADERS_DIR,
            "the case has no graders — add graders/<name>.md files (each with a "
            "`type:` frontmatter), or a graders: list in case.yaml",
        )

    context = _context(case_dir, yaml_data.get("context") or {}, yaml_file, errors) if has_yaml else Context()
    if context.history_file is not None and not prompt:
        errors.add(case_yaml, "context.history_file", "needs a prompt: the resumed session needs a next turn")

    try:
        mocks = load_mocks(case_dir, eval_root)
    except SpecError as e:
        errors.add_error(e)
        mocks = MockSet()

    script = None
    if (case_dir / SCRIPT_FILENAME).exists():
        try:
            script = load_script(case_dir / SCRIPT_FILENAME)
        except SpecError as e:  # named by file and key, like any other problem of the case
            errors.add_error(e)
    if script is not None:
        judged = sorted(spec.name for spec, _ in graders if spec.type in ("llm", "baseline"))
        for key in (*script.judge, *script.judge_by_arm):
            if key not in ("default", "mock", "user") and key not in judged:
                errors.add(
                    case_dir / SCRIPT_FILENAME,
                    f"judge.{key}",
                    f"names no judged grader of this case (its llm and baseline graders: {', '.join(judged) or 'none'})"
                    " — use one of their names, `default` for all of them, `mock` for agent mocks, or `user` for the"
                    " simulated user",
                )

    plugin_root = resolve_plugin(case_dir, eval_root)
    plugins = _plugins(
        case_dir, settings.get("plugins", ()), plugin_root, prompt_md if "plugins" in meta else yaml_file, errors
    )
    warnings += layout_warnings(plugin_root, eval_root)
    for spec, _ in graders:
        warnings += [
            f'grader "{spec.name}": {w}' for w in getattr(spec.kind, "load_warnings", lambda _c: [])(spec.config)
        ]

    if errors.items:
        raise CaseLoadError(
            case_dir, errors.items, name=settings.get("name", case_dir.name), tags=tuple(settings.get("tags", ()))
        )
    return Case(
        name=settings.get("name", case_dir.name),
        dir=case_dir,
        eval_root=eval_root,
        plugin_root=plugin_root,
        source="mixed" if has_md and has_yaml else ("case_yaml" if has_yaml else "prose"),
        prompt=prompt,
        graders=tuple(spec for spec, _ in graders),
        runs=settings.get("runs"),
        max_turns=settings.get("max_turns", DEFAULT_MAX_TURNS),
        timeout_seconds=settings.get("timeout_seconds", DEFAULT_TIMEOUT),
        model=settings.get("model"),
        models=tuple(settings.get("models", ())),
        allowed_tools=tuple(settings.get("allowed_tools", ())),
        disallowed_tools=disallowed,
        append_system_prompt=settings.get("append_system_prompt"),
        env=tuple(settings.get("env", ())),
        tags=tuple(settings.get("tags", ())),
        plugins=plugins,
        description=settings.get("description"),
        expected_outcome=settings.get("expected_outcome"),
        context=context,
        warnings=tuple(warnings),
        mocks=mocks,
        script=script,
        conversation=talk.of_settings(settings),
    )


def find_case_dirs(eval_root: Path) -> list[Path]:
    """Every case folder under an eval dir, in path order (results/, node_modules/ and .claude/ skipped)."""
    out = []
    for folder, subdirs, _ in os.walk(eval_root):
        subdirs[:] = sorted(d for d in subdirs if d not in NOT_CASE_DIRS)
        if is_case_dir(Path(folder)):
            out.append(Path(folder))
    return out
