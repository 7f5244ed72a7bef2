"""Grader definitions: `graders/*.md` (frontmatter + body), `graders/*.py`, and inline `graders:` in case.yaml.

The loader checks what every grader shares (type, name, weight, arm) and hands the rest to the grader's type,
which validates its own keys. The types are passed in (`kinds`: the built-in ones and those added through the
`pytest_plugin_eval_grader_types` hook), so loading depends on no particular set of types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..core.paths import code_units, display_path, within_suite
from ..core.problems import Problems, SpecError
from ..core.validate import known_keys, nonempty_string, one_of, positive_number, string, type_name
from ..core.yamlio import FrontmatterError, YamlError, split_frontmatter
from .pyfile import module_settings

GRADERS_DIR = "graders"
GRADER_SUFFIXES = (".md", ".py")
COMMON_KEYS = ("type", "name", "weight", "arm", "turn")
# In case.yaml a judge's rubric is a key (`criteria:`); in graders/*.md it is the file's body.
INLINE_BODY_KEY = "criteria"
ARM_POLICIES = ("with-only", "both")  # a grader's `arm:`: which arms it counts in
_arm_policy = one_of(*ARM_POLICIES)
GRADER_TEMPLATE = "TODO: describe what a successful response looks like"
# The order messages list the built-in types in.
BUILT_IN = "pytest_plugin_eval."  # the package the built-in grader types live in
BUILTIN_ORDER = ("regex", "tool_order", "tool_used", "file_exists", "llm", "baseline", "python", "budget")


class GraderKind(Protocol):
    """What the loader needs of a grader type (grade.base.GraderType is the full contract)."""

    @property
    def name(self) -> str: ...

    @property
    def keys(self) -> tuple[str, ...]: ...

    @property
    def paid(self) -> bool: ...

    @property
    def uses_body(self) -> bool: ...

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> Any: ...

    def config_json(self, config: Any) -> dict: ...

    def with_only_by_default(self, config: Any) -> bool: ...


@dataclass(frozen=True)
class GraderSpec:
    """A validated grader definition, as loaded from graders/<name>.md or an inline case.yaml entry."""

    name: str
    type: str
    weight: float
    arm: str | None
    config: Any  # the type's own validated config (plain data)
    source: str  # where it was defined, for messages
    kind: Any  # the grader type (a GraderKind; grade.base.GraderType for the built-in ones)
    body: str | None = None  # the Markdown body (rubric) of llm/baseline graders
    turn: int | str | None = None  # a conversation's turn it grades: N (1-based), "every", None: the whole run

    def config_json(self) -> dict:
        out = dict(self.kind.config_json(self.config))
        if self.arm is not None:
            out["arm"] = self.arm
        if self.turn is not None:
            out["turn"] = self.turn
        return out


def type_names(kinds: Mapping[str, GraderKind]) -> list[str]:
    """Grader types as messages list them: the built-in ones first, then any a plugin or conftest added."""
    return [n for n in BUILTIN_ORDER if n in kinds] + sorted(n for n in kinds if n not in BUILTIN_ORDER)


def parse_grader(
    raw: dict,
    body: str,
    name: str,
    source: str,
    kinds: Mapping[str, GraderKind],
    case_dir: Path | None = None,
    *,
    inline: bool = False,
) -> GraderSpec:
    """Validate one grader definition (frontmatter, or an `inline` case.yaml mapping whose `criteria:` the
    caller has taken out as `body`). Raises SpecError."""
    names = type_names(kinds)
    kind_name = raw.get("type")
    if kind_name is None:
        raise SpecError("type", f"is required ({' | '.join(names)})", structural=True)
    if not isinstance(kind_name, str) or kind_name not in kinds:
        raise SpecError("type", f"{kind_name!r} is not a grader type (expected one of: {', '.join(names)})")
    kind = kinds[kind_name]
    body_key = (INLINE_BODY_KEY,) if inline and kind.uses_body else ()
    if kind.uses_body and not inline and INLINE_BODY_KEY in raw:
        raise SpecError(
            INLINE_BODY_KEY,
            f"is not a frontmatter key of {kind_name} graders: the rubric is the file's body, below the "
            f"frontmatter (`{INLINE_BODY_KEY}:` is how a grader written in case.yaml gives it)",
        )
    known_keys(raw, COMMON_KEYS + kind.keys + body_key, "", f"{kind_name} graders")
    weight = positive_number(raw.get("weight", 1), "weight")
    arm = raw.get("arm")
    if arm is not None:
        _arm_policy(arm, "arm")
    turn = _turn(raw["turn"], "turn") if raw.get("turn") is not None else None
    if kind.uses_body and GRADER_TEMPLATE in body:
        raise SpecError(
            "",
            f'grader "{name}" is still the blank `init` template — replace the '
            f'"{GRADER_TEMPLATE}" line with concrete pass criteria',
        )
    try:
        config = kind.parse(raw, body, case_dir)
    except SpecError:
        raise
    except Exception as e:
        if type(kind).__module__.startswith(BUILT_IN):  # our own type's crash is a bug, not the grader's fault
            raise
        # A grader type from a hook that trips over a value it did not expect: the hook author's to fix.
        raise SpecError(
            "", f"the {kind_name} grader type could not read this grader: {type(e).__name__}: {e}"
        ) from None
    return GraderSpec(
        name=name,
        type=kind_name,
        weight=weight,
        arm=arm,
        config=config,
        source=source,
        kind=kind,
        body=body.strip() if kind.uses_body else None,
        turn=turn,
    )


def _turn(value: Any, key: str) -> int | str:
    """`turn:` — the conversation's turn a grader reads: a whole number from 1 (the reply to the prompt), or
    `every` (it must pass on each turn)."""
    if value == "every":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(key, f"must be a turn number from 1, or `every` (got {value!r})")
    return value


# A grader with where its name is written (for duplicate-name errors).
Located = tuple[GraderSpec, tuple[Path, str]]


def load_grader_files(
    case_dir: Path,
    kinds: Mapping[str, GraderKind],
    problems: Problems,
    warnings: list[str],
    eval_root: Path | None = None,
) -> list[Located]:
    """graders/*.md and graders/*.py in code-unit order."""
    folder = case_dir / GRADERS_DIR
    if not folder.exists():
        return []
    if not folder.is_dir():
        problems.add(folder, "", "is not a folder — graders go in graders/<name>.md", structural=True)
        return []
    eval_root = eval_root or case_dir
    specs = []
    files = sorted(
        (p for p in folder.iterdir() if p.name.endswith(GRADER_SUFFIXES) and p.is_file()),
        key=lambda p: code_units(p.name),
    )
    for path in files:
        if not within_suite(path, eval_root):  # the file or its graders/ folder links out of the suite
            problems.add(
                path,
                "",
                "is reached through a symlink out of the suite; grader files must live inside it",
                structural=True,
            )
            continue
        try:
            read = _read_python_grader(path) if path.suffix == ".py" else _read_markdown_grader(path, warnings)
            if read is None:
                continue
            meta, body = read
            name = nonempty_string(meta.pop("name", path.stem) if path.suffix == ".md" else path.stem, "name")
            specs.append((parse_grader(meta, body, name, str(path), kinds, case_dir), (path, "name")))
        except SpecError as e:
            problems.add_error(e, path)
    return specs


def _read_markdown_grader(path: Path, warnings: list[str]) -> tuple[dict, str] | None:
    try:
        meta, body = split_frontmatter(path.read_text(encoding="utf-8"))
    except YamlError as e:
        raise SpecError(e.key, f"invalid frontmatter: {e}", structural=True) from None
    except FrontmatterError as e:
        raise SpecError("", f"invalid frontmatter: {e}", structural=True) from None
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError("", f"cannot be read: {e}", structural=True) from None
    if meta is None:
        warnings.append(
            f"{display_path(path)} has no frontmatter (a `---` block with `type:`), so it is not a "
            f"grader and is ignored"
        )
        return None
    return meta, body


def _read_python_grader(path: Path) -> tuple[dict, str]:
    """A .py grader as the keys of a `type: python` grader (its `weight`/`arm` module constants included)."""
    return {"type": "python", "file": f"{GRADERS_DIR}/{path.name}", **module_settings(path)}, ""


def load_inline_graders(
    case_file: Path, raw: Any, kinds: Mapping[str, GraderKind], problems: Problems
) -> list[Located]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.add(case_file, "graders", f"must be a list of grader mappings (got {type_name(raw)})")
        return []
    specs = []
    for i, item in enumerate(raw):
        key = f"graders[{i}]"
        if not isinstance(item, dict):
            problems.add(case_file, key, f"must be a mapping with name and type (got {type_name(item)})")
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            problems.add(case_file, f"{key}.name", "is required for a grader written in case.yaml")
            continue
        fields = {k: v for k, v in item.items() if k != "name"}
        type_ = fields.get("type")
        kind = kinds.get(type_) if isinstance(type_, str) else None
        body = ""
        if kind is not None and kind.uses_body:
            # Inline judges give their rubric as `criteria:` (the body of a graders/*.md file).
            try:
                body = string(fields.pop(INLINE_BODY_KEY, ""), f"{key}.{INLINE_BODY_KEY}")
            except SpecError as e:
                problems.add_error(e, case_file)
                continue
        try:
            specs.append(
                (
                    parse_grader(fields, body, name, f"{case_file}:{key}", kinds, case_file.parent, inline=True),
                    (case_file, f"{key}.name"),
                )
            )
        except SpecError as e:
            error = e
            if e.key == INLINE_BODY_KEY and e.message.endswith(" as the file's body"):
                # The type words its rubric error for a Markdown file; here the rubric is a key.
                message = e.message.removesuffix(" as the file's body") + f" as `{INLINE_BODY_KEY}:`"
                error = SpecError(e.key, message, e.structural, e.file)
            problems.add_error(error, case_file, key)
    return specs
