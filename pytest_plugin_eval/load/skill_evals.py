"""skill-creator's output evals: `evals/evals.json` in a skill's folder, each eval run as a case of ours.

    {"skill_name": "csv-report",
     "evals": [{"id": 1, "prompt": "...", "expected_output": "...",
                "files": ["evals/files/sales.csv"], "expectations": ["The report gives the total", ...]}]}

Each eval becomes a Case (`eval_case`) named `<skill>/<id>` (a slug of its name or prompt when it has no id): the
prompt as written, its `files` (relative to the skill's folder) copied into each run's working directory at the
path written, and each expectation an `llm` grader over the run's trace whose rubric is the expectation, graded
as strictly as skill-creator's grader grades it, with `expected_output` as the reference answer. Nothing else
differs from a case folder: both arms, the same runs, statistics and report.

With --scripted, `scripted.yaml` beside evals.json maps an eval's id (or `default`) to what a case's
scripted.yaml holds; an eval it does not list answers its `expected_output` in both arms and every judge says PASS.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..core.paths import display_path, inside
from ..core.problems import Problems, SpecError
from ..core.validate import UniqueIds, did_you_mean, nonempty_string, type_name
from ..core.yamlio import YamlError, load_yaml
from .case import Case, CaseLoadError, Context
from .graders import GraderKind, GraderSpec, parse_grader
from .mocks import load_mocks
from .script import ArmScript, Script, parse_script, text_turn
from .skills import Component, components_of
from .suite import resolve_plugin

EVALS_FILE = "evals.json"
SCRIPTED_FILE = "scripted.yaml"  # beside evals.json: scripted answers by eval id
VIRTUAL_DIR = "skill-evals"  # where an eval's runs are kept in the results folder: <eval dir>/skill-evals/<skill>/<id>
TOP_KEYS = ("skill_name", "evals")
EVAL_KEYS = ("id", "name", "prompt", "expected_output", "files", "expectations", "assertions")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
GRADER_FOCUS = "trace"  # skill-creator's grader reads the transcript, not only the last message
DEFAULT_ANSWER = "Done."
EXPECTATION = "Expectation: "  # how a rubric made from an expectation begins

STRICTNESS = (
    "Grade as a strict reviewer: PASS only when the evidence clearly shows the expectation is met, and met in "
    "substance. Output that merely looks compliant — the right file name with wrong or empty content, the word "
    "without the work, a claim the evidence does not back — FAILS, and so does anything the evidence cannot "
    "confirm. The burden of proof is on the expectation; there is no partial credit."
)


@dataclass(frozen=True)
class SkillEval:
    id: str  # as the case's name gives it
    prompt: str
    expected_output: str | None
    files: tuple[str, ...]  # relative to the skill's folder, copied to the same path in the run's working directory
    expectations: tuple[str, ...]
    name: str | None = None


@dataclass(frozen=True)
class EvalsFile:
    """One skill's evals.json, validated."""

    path: Path
    skill: Component
    evals: tuple[SkillEval, ...]
    warnings: tuple[str, ...] = ()

    @property
    def skill_dir(self) -> Path:
        return self.skill.path.parent


class EvalsLoadError(CaseLoadError):
    """An evals.json that cannot run, with every problem found in it."""


def evals_files(plugin_root: Path) -> list[Path]:
    """skill-creator's output evals kept in the plugin's skill folders (`<skill>/evals/evals.json`)."""
    found = []
    for component in components_of(plugin_root):
        path = component.path.parent / "evals" / EVALS_FILE
        if component.kind == "skill" and path.is_file():
            found.append(path)
    return found


def read_evals(path: Path, plugin_root: Path) -> EvalsFile:
    """Read and validate one evals.json; raises EvalsLoadError naming the file and the path inside it of every
    problem (`evals[3].expectations[1]`)."""
    path = path.absolute()
    problems = Problems()
    warnings: list[str] = []
    skill = _skill_of(path, plugin_root)
    if skill is None:
        raise EvalsLoadError(path, [_problem(path, "", "is not in a skill's folder (<skill>/evals/evals.json)")])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise EvalsLoadError(path, [_problem(path, "", f"cannot be read: {e}")], name=path.name) from None
    except ValueError as e:
        raise EvalsLoadError(path, [_problem(path, "", f"is not valid JSON: {e}")], name=path.name) from None
    if not isinstance(data, dict):
        message = f'is an object {{"skill_name": ..., "evals": [...]}} (got {type_name(data)})'
        raise EvalsLoadError(path, [_problem(path, "", message)], name=path.name)
    for key in data:
        if key not in TOP_KEYS:
            warnings.append(f"{_where(path, key)}: not a key of evals.json{did_you_mean(key, TOP_KEYS)}; ignored")
    named = data.get("skill_name")
    if named is not None and not isinstance(named, str):
        problems.add(path, "skill_name", f"must be a string (got {type_name(named)})")
    elif named is not None and not skill.answers_to(named):
        warnings.append(
            f"{_where(path, 'skill_name')}: {named!r} is not the name of the skill whose folder holds the file "
            f"({skill.name}); the evals run as {skill.name}'s"
        )
    entries = data.get("evals")
    if not isinstance(entries, list) or not entries:
        got = "an empty list" if entries == [] else type_name(entries)
        problems.add(path, "evals", f"must be a non-empty list of evals (got {got})")
        entries = []
    evals: list[SkillEval] = []
    ids = UniqueIds()
    for index, entry in enumerate(entries):
        key = f"evals[{index}]"
        before = len(problems)
        found = _eval(entry, key, path, skill.path.parent, problems, warnings)
        if found is None or len(problems) > before:
            continue
        taken = ids.problem(found.id, key)
        if taken:
            problems.add(path, f"{key}.id", taken)
            continue
        evals.append(found)
    if problems:
        raise EvalsLoadError(path, _one_for_all(problems.items, len(entries)), name=path.name)
    return EvalsFile(path, skill, tuple(_slugged(evals)), tuple(warnings))


MISSING_EXPECTATIONS = (
    'the statements a run is graded on — add "expectations": ["…", …] (skill-creator drafts them after the '
    "prompts; each becomes a judged grader)"
)


def _one_for_all(items: list, count: int) -> list:
    """The same missing `expectations` in every one of several evals (a file skill-creator wrote before its
    expectations step) is one problem, not one per eval."""
    missing = [p for p in items if p.key.endswith(".expectations") and MISSING_EXPECTATIONS in p.message]
    if count < 2 or len(missing) < count:
        return items
    shown = dataclasses.replace(
        missing[0], key="evals[*].expectations", message=f"is missing in all {count} evals: {MISSING_EXPECTATIONS}"
    )
    return [shown] + [p for p in items if p not in missing]


def _eval(entry: Any, key: str, path: Path, skill_dir: Path, problems: Problems, warnings: list[str]):
    if not isinstance(entry, dict):
        problems.add(
            path, key, f'an eval is an object {{"prompt": ..., "expectations": [...]}} (got {type_name(entry)})'
        )
        return None
    for name in entry:
        if name not in EVAL_KEYS:
            warnings.append(
                f"{_where(path, f'{key}.{name}')}: not a key of an eval{did_you_mean(name, EVAL_KEYS)}; ignored"
            )
    checks = (
        ("id", _id),
        ("name", nonempty_string),
        ("prompt", nonempty_string),
        ("expected_output", _text),
    )
    values: dict[str, Any] = {}
    for name, check in checks:
        if name in entry and entry[name] is not None:
            try:
                values[name] = check(entry[name], f"{key}.{name}")
            except SpecError as e:
                problems.add_error(e, path)
    if "prompt" not in entry:
        problems.add(path, f"{key}.prompt", "is required: the task as the user would ask it")
    files = _files(entry.get("files"), f"{key}.files", path, skill_dir, problems)
    expectations = _expectations(entry, key, path, problems)
    if "prompt" not in values or expectations is None:
        return None
    return SkillEval(
        id=values.get("id", ""),
        prompt=values["prompt"],
        expected_output=values.get("expected_output") or None,
        files=files,
        expectations=expectations,
        name=values.get("name"),
    )


def _id(value: Any, key: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and ID_PATTERN.match(value):
        return value
    raise SpecError(key, f"must be a whole number or a name of letters, digits, '-', '_', '.' (got {value!r})")


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise SpecError(key, f"must be a string (got {type_name(value)})")
    return value.strip()


def _files(value: Any, key: str, path: Path, skill_dir: Path, problems: Problems) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.add(path, key, f"must be a list of paths relative to the skill's folder (got {type_name(value)})")
        return ()
    out = []
    for index, rel in enumerate(value):
        where = f"{key}[{index}]"
        if not isinstance(rel, str) or not rel.strip():
            problems.add(path, where, f"must be a path relative to the skill's folder (got {type_name(rel)})")
            continue
        if PurePosixPath(rel).is_absolute() or ".." in PurePosixPath(rel).parts:
            problems.add(path, where, f'"{rel}" leaves the skill\'s folder (absolute or `..`); name a file inside it')
            continue
        source = skill_dir / rel
        if not source.exists():
            problems.add(path, where, f'"{rel}" does not exist in the skill\'s folder ({skill_dir.name}/)')
        elif not inside(source, skill_dir):
            problems.add(path, where, f'"{rel}" is a symlink out of the skill\'s folder')
        elif not source.is_file():
            problems.add(path, where, f'"{rel}" is not a file (list the files of a folder one by one)')
        else:
            out.append(os.path.normpath(rel))
    return tuple(out)


def _expectations(entry: dict, key: str, path: Path, problems: Problems) -> tuple[str, ...] | None:
    """`expectations` (schemas.md) or `assertions` (SKILL.md): strings, or objects with a `text`."""
    present = [name for name in ("expectations", "assertions") if name in entry]
    if len(present) == 2:
        problems.add(path, f"{key}.assertions", "give expectations or assertions, not both (they are the same list)")
        return None
    if not present:
        problems.add(path, f"{key}.expectations", f"is required: {MISSING_EXPECTATIONS}")
        return None
    field = f"{key}.{present[0]}"
    value = entry[present[0]]
    if not isinstance(value, list) or not value:
        got = "an empty list" if value == [] else type_name(value)
        problems.add(path, field, f"must be a non-empty list of statements a run is graded on (got {got})")
        return None
    out = []
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str) or not text.strip():
            problems.add(path, where, f'must be a statement, or an object with a "text" (got {type_name(item)})')
            continue
        out.append(text.strip())
    return tuple(out) if len(out) == len(value) else None


def _slugged(evals: list[SkillEval]) -> list[SkillEval]:
    """An eval without an id is named by a slug of its name (else its prompt), numbered when taken."""
    taken = {e.id for e in evals if e.id}
    out = []
    for e in evals:
        if not e.id:
            base = slug(e.name or e.prompt)
            eval_id, n = base, 2
            while eval_id in taken:
                eval_id, n = f"{base}-{n}", n + 1
            taken.add(eval_id)
            e = SkillEval(eval_id, e.prompt, e.expected_output, e.files, e.expectations, e.name)
        out.append(e)
    return out


def slug(text: str, words: int = 6) -> str:
    parts = re.findall(r"[a-z0-9]+", text.lower())[:words]
    return "-".join(parts)[:48].strip("-") or "eval"


def _skill_of(path: Path, plugin_root: Path) -> Component | None:
    for component in components_of(plugin_root):
        if component.kind == "skill" and path.parent == component.path.parent / "evals":
            return component
    return None


def _problem(path: Path, key: str, message: str):
    return SpecError(key, message, structural=True, file=path).problem


def _where(path: Path, key: str) -> str:
    """`skills/s/evals/evals.json: evals[0].category`, as the file's problems are shown."""
    return f"{display_path(path)}: {key}" if key else display_path(path)


# ---- the graders ---------------------------------------------------------------------------------------


def criteria(expectation: str, expected_output: str | None) -> str:
    """An expectation as an llm grader's rubric: the statement, how strictly it is graded, the reference answer."""
    text = f"{EXPECTATION}{expectation}\n\n{STRICTNESS}"
    if expected_output:
        text += (
            "\n\nReference answer (what the author expects a good run to produce; the run need not match it word "
            f"for word):\n<reference>\n{expected_output}\n</reference>"
        )
    return text


def expectation_of(rubric: str) -> str | None:
    """The expectation an llm grader made from evals.json judges (its rubric's first line), else None."""
    first = rubric.split("\n", 1)[0]
    return first.removeprefix(EXPECTATION) if first.startswith(EXPECTATION) else None


def grader_names(expectations: tuple[str, ...]) -> list[str]:
    """A grader per expectation, named by a slug of it (numbered when two read alike)."""
    names: list[str] = []
    for text in expectations:
        base = slug(text)
        name, n = base, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.append(name)
    return names


def graders_of(item: SkillEval, path: Path, key: str, kinds: Mapping[str, GraderKind]) -> tuple[GraderSpec, ...]:
    specs = []
    for index, (name, text) in enumerate(zip(grader_names(item.expectations), item.expectations, strict=True)):
        body = criteria(text, item.expected_output)
        specs.append(
            parse_grader(
                {"type": "llm", "focus": GRADER_FOCUS}, body, name, f"{path}:{key}.expectations[{index}]", kinds
            )
        )
    return tuple(specs)


# ---- the cases -----------------------------------------------------------------------------------------


def eval_cases(file: EvalsFile, eval_root: Path, kinds: Mapping[str, GraderKind], scripted: bool = False) -> list[Case]:
    """Every eval of the file as the case it runs as. Raises EvalsLoadError (the sibling scripted.yaml's
    problems, with --scripted)."""
    eval_root = eval_root.absolute()
    plugin_root = resolve_plugin(file.path.parent, eval_root)
    try:
        mocks = load_mocks(eval_root, eval_root)  # the suite's own mocks serve these runs too
    except SpecError as e:
        raise EvalsLoadError(file.path, [e.problem], name=file.path.name) from None
    scripts = _scripts(file) if scripted else {}
    cases = []
    for index, item in enumerate(file.evals):
        graders = graders_of(item, file.path, f"evals[{index}]", kinds)
        script = scripts.get(item.id) or scripts.get("default")
        fallback = default_script(file, item)
        if script is None or not script.arms:  # a script of judge replies only: the agent answers as by default
            script = Script(fallback.path, fallback.arms, script.judge if script else {})
        cases.append(
            Case(
                name=f"{file.skill.name}/{item.id}",
                dir=eval_root / VIRTUAL_DIR / file.skill.name / item.id,
                eval_root=eval_root,
                plugin_root=plugin_root,
                source="skill_creator",
                prompt=item.prompt,
                graders=graders,
                description=item.name,
                expected_outcome=item.expected_output,
                context=Context(files=tuple((file.skill_dir / rel, rel) for rel in item.files)),
                warnings=file.warnings,
                mocks=mocks,
                script=script if scripted else None,
            )
        )
    return cases


def default_script(file: EvalsFile, item: SkillEval) -> Script:
    """What an eval scripted.yaml does not list answers: its expected_output in both arms (every judge: PASS)."""
    arm = ArmScript(default=(text_turn(item.expected_output or DEFAULT_ANSWER),))
    return Script(path=str(file.path), arms={"with": arm, "without": arm})


def _scripts(file: EvalsFile) -> dict[str, Script]:
    """The sibling scripted.yaml: eval id (or `default`) → a case's scripted.yaml document."""
    path = file.path.parent / SCRIPTED_FILE
    if not path.is_file():
        return {}
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise EvalsLoadError(file.path, [_problem(path, "", f"cannot be read: {e}")], name=path.name) from None
    except YamlError as e:
        raise EvalsLoadError(file.path, [_problem(path, e.key, f"invalid YAML: {e}")], name=path.name) from None
    if not isinstance(data, dict):
        message = f"maps each eval's id (or `default`) to its scripted answers (got {type_name(data)})"
        raise EvalsLoadError(file.path, [_problem(path, "", message)], name=path.name)
    problems = Problems()
    ids = {e.id: e for e in file.evals}
    out: dict[str, Script] = {}
    for raw_key, value in data.items():
        key = str(raw_key)
        if key != "default" and key not in ids:
            listing = ", ".join(ids)
            problems.add(path, key, f"names no eval of {file.path.name} (its ids: {listing}){did_you_mean(key, ids)}")
            continue
        try:
            script = parse_script(value, path)
        except SpecError as e:
            problems.add(path, f"{key}.{e.key}" if e.key else key, e.message)
            continue
        graders = grader_names(ids[key].expectations) if key in ids else None
        for judged in script.judge:
            if graders is not None and judged not in ("default", *graders):
                problems.add(
                    path,
                    f"{key}.judge.{judged}",
                    f"names no expectation of eval {key} (its graders: {', '.join(graders)}) — or use `default`",
                )
        out[key] = script
    if problems:
        raise EvalsLoadError(file.path, problems.items, name=path.name)
    return out


def eval_script(plugin_root: Path, skill: str, eval_id: str) -> Script | None:
    """The scripted answers of one eval (`<skill>/<id>`, its id or `default` in the scripted.yaml beside the
    skill's evals.json), for a command that reads a stored session (compare --pairwise --scripted); None when the
    skill, its evals.json or its script is gone. Raises EvalsLoadError for a script that does not load."""
    for path in evals_files(plugin_root):
        file = read_evals(path, plugin_root)
        if file.skill.name == skill:
            scripts = _scripts(file)
            return scripts.get(eval_id) or scripts.get("default")
    return None
