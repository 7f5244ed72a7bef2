"""Trigger sets: for a skill (or command) of the plugin, the queries that should make Claude consult it and the
near-misses that should not.

Two formats. Ours, `triggers.yaml` or `<name>.triggers.yaml` anywhere in the eval dir:

    runs: 5                 # runs per query (default 5)
    skills:
      commit-message:       # a skill or command of the plugin, bare or as plugin:name
        should_fire:
          - Write the commit message for my getUser → fetchUser rename
          - {query: "fixed the parser's null check, commit msg pls", id: terse}
        should_not_fire:
          - Review this diff for bugs

and skill-creator's JSON as its users keep it — `[{"query": ..., "should_trigger": true}]` in
`trigger-eval.json` / `trigger-evals.json`, in the eval dir or in a skill's folder (or its `evals/`). Every query
of a set becomes a case of its own (`query_case`), run with the plugin only, stopped once the outcome is known.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.kinds import TriggerFormat
from ..core.problems import Problem, Problems, SpecError
from ..core.validate import (
    UniqueIds,
    did_you_mean,
    known_keys,
    nonempty_string,
    positive_number,
    string,
    string_list,
    subkey,
    type_name,
    whole_number,
)
from ..core.yamlio import YamlError, load_yaml
from .case import Case, CaseLoadError
from .description_words import DescriptionRule, is_rule, parse_rule
from .mocks import MockSet, load_mocks
from .plugin_facts import skills_of
from .script import ArmScript, Script, TextBlock, ToolBlock, Turn, parse_turns
from .skills import Component, TriggerTarget, components_of
from .suite import enclosing_plugin, resolve_plugin
from .trigger_files import skill_folder_of

DEFAULT_RUNS = 5  # fewer can never decide at 95%: 4 of 4 is the least that clears 0.5 (Wilson)
DEFAULT_MAX_TURNS = 5
DEFAULT_TIMEOUT = 120
DEFAULT_THRESHOLD = 0.5
TOP_KEYS = ("runs", "model", "models", "max_turns", "timeout_seconds", "threshold", "skills")
SKILL_KEYS = ("should_fire", "should_not_fire")
QUERY_KEYS = ("query", "id", "scripted")
JSON_KEYS = ("query", "should_trigger", "skill", "scripted")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PLACEHOLDER = "TODO:"  # what `plugin-eval init --triggers` writes in place of the queries only the author knows
SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z0-9_.:-]+(\s|$)")  # `/plugin:skill …`, not a path such as /tmp/x.log


@dataclass(frozen=True)
class TriggerQuery:
    id: str
    query: str
    should_fire: bool
    # What the scripted model answers: turns or a word (fire, none, a component's name) — for every run, or a
    # mapping from run number (and `default`) to those; None: as the label says.
    turns: Any = None


@dataclass(frozen=True)
class TriggerSet:
    """The queries of one skill, from one file."""

    file: Path
    eval_root: Path
    plugin_root: Path
    skill: Component
    queries: tuple[TriggerQuery, ...]
    components: tuple[Component, ...]  # every skill and command of the plugin: they compete for each query
    format: TriggerFormat = "yaml"
    runs: int = DEFAULT_RUNS
    model: str | None = None
    models: tuple[str, ...] = ()  # the models of a matrix this set runs on (empty: all)
    max_turns: int = DEFAULT_MAX_TURNS
    timeout_seconds: int = DEFAULT_TIMEOUT
    threshold: float = DEFAULT_THRESHOLD
    mocks: MockSet = field(default_factory=MockSet)
    findings: tuple[str, ...] = ()  # what loading said of it (a slash-command query left out)

    @property
    def name(self) -> str:
        return self.skill.name

    @property
    def rel_file(self) -> str:
        """The set's file as the results JSON names it: relative to the suite (the eval dir's parent)."""
        return os.path.relpath(self.file, self.eval_root.parent)


class TriggerLoadError(CaseLoadError):
    """A trigger file that cannot run, with every problem found in it."""


def load_trigger_file(path: Path, eval_root: Path, skill: str | None = None) -> list[TriggerSet]:
    """The trigger sets of one file; `skill` (the command line's) names the skill of a JSON file's entries that
    name none. Raises TriggerLoadError with every problem found."""
    path, eval_root = path.absolute(), eval_root.absolute()
    plugin_root = resolve_plugin(path.parent, eval_root)
    components = tuple(components_of(plugin_root))
    problems = Problems()
    try:
        data = _read(path)
        if path.suffix == ".json":
            sets = _from_skill_creator(data, path, components, skill, problems)
        else:
            sets = _from_yaml(data, path, components, problems)
    except SpecError as e:
        problems.add_error(e, path)
        sets = []
    for draft in sets:
        for query in draft.queries:
            runs = query.turns if isinstance(query.turns, dict) else {"default": query.turns}
            words = [w for a in runs.values() for w in (a.names if isinstance(a, DescriptionRule) else (a,))]
            for word in words:
                if (
                    isinstance(word, str)
                    and word not in SCRIPTED_WORDS
                    and not any(c.answers_to(word) for c in components)
                ):
                    names = [c.name for c in components]
                    problems.add(
                        path,
                        "scripted",
                        f"{word!r} (for {query.query[:40]!r}) is neither fire, none, nor a skill or command "
                        f"of the plugin{did_you_mean(word, [*SCRIPTED_WORDS, *names])}",
                    )
    findings = {id(draft): _without_slash_queries(draft, path, eval_root) for draft in sets}
    for draft in sets:
        if findings[id(draft)] and not draft.queries:
            problems.add(path, draft.skill.name, "has no query left to run: every one starts with a slash command")
    if problems:
        raise TriggerLoadError(path, _once_each(problems.items), name=path.name)
    try:
        mocks = load_mocks(eval_root, eval_root)  # the suite's own mocks serve trigger runs too
    except SpecError as e:
        raise TriggerLoadError(path, [e.problem], name=path.name) from None
    return [_finish(s, path, eval_root, plugin_root, components, mocks, findings[id(s)]) for s in sets]


def _once_each(problems: list[Problem]) -> list[Problem]:
    """One problem said of many entries (every entry of a 60-query file naming no skill) is said once, naming
    how many entries and which first."""
    groups: dict[tuple, list[Problem]] = {}
    for problem in problems:
        groups.setdefault((problem.file, problem.message), []).append(problem)
    out = []
    for same in groups.values():
        if len(same) > 2:
            keys = f"{same[0].key}, {same[1].key} … ({len(same)} entries)"
            out.append(Problem(same[0].file, keys, same[0].message, same[0].structural))
        else:
            out += same
    return out


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError("", f"cannot be read: {getattr(e, 'strerror', None) or e}", structural=True) from None
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as e:
            raise SpecError("", f"is not valid JSON: {e}", structural=True) from None
    try:
        return load_yaml(text)
    except YamlError as e:
        raise SpecError(e.key, f"invalid YAML: {e}", structural=True) from None


@dataclass
class _Draft:
    skill: Component
    queries: list[TriggerQuery]
    settings: dict
    format: TriggerFormat


def _finish(draft: _Draft, path, eval_root, plugin_root, components, mocks, findings=()) -> TriggerSet:
    return TriggerSet(
        findings=tuple(findings),
        file=path,
        eval_root=eval_root,
        plugin_root=plugin_root,
        skill=draft.skill,
        queries=tuple(_unique_ids(draft.queries)),
        components=components,
        format=draft.format,
        mocks=mocks,
        **draft.settings,
    )


_SETTINGS = {
    "runs": whole_number(1, 100),
    "model": nonempty_string,
    "models": string_list,
    "max_turns": whole_number(1, 50),
    "timeout_seconds": whole_number(1, 3600),
    "threshold": positive_number,
}


def _from_yaml(data: Any, path: Path, components: tuple[Component, ...], problems: Problems) -> list[_Draft]:
    if not isinstance(data, dict):
        raise SpecError("", f"a trigger file is a mapping with a `skills:` key (got {type_name(data)})", True)
    known_keys(data, TOP_KEYS, "", "a trigger file")
    settings = problems.check(path, _SETTINGS, {k: v for k, v in data.items() if k in _SETTINGS})
    if "threshold" in settings and not 0 < settings["threshold"] < 1:
        problems.add(path, "threshold", f"must be between 0 and 1 (got {settings['threshold']!r})")
        settings.pop("threshold")
    skills = data.get("skills")
    if not isinstance(skills, dict) or not skills:
        raise SpecError(
            "skills",
            "must map each skill (or command) of the plugin to its should_fire and should_not_fire queries",
            True,
        )
    drafts = []
    for name, body in skills.items():
        key = subkey("skills", name)
        component = _component(str(name), components, key, problems, path)
        queries = _yaml_queries(body, key, path, problems)
        if component is not None and queries is not None:
            drafts.append(_Draft(component, queries, settings, "yaml"))
    return drafts


def _yaml_queries(body: Any, key: str, path: Path, problems: Problems) -> list[TriggerQuery] | None:
    if not isinstance(body, dict):
        problems.add(
            path, key, f"must be a mapping with should_fire and/or should_not_fire lists (got {type_name(body)})"
        )
        return None
    try:
        known_keys(body, SKILL_KEYS, key, "a skill's trigger set")
    except SpecError as e:
        problems.add_error(e, path)
        return None
    queries, before = [], len(problems)
    ids = UniqueIds()
    for label, should in (("should_fire", True), ("should_not_fire", False)):
        items = body.get(label) or []
        if not isinstance(items, list):
            problems.add(path, f"{key}.{label}", f"must be a list of queries (got {type_name(items)})")
            continue
        for index, item in enumerate(items):
            where = f"{key}.{label}[{index}]"
            try:
                query = _yaml_query(item, where, should)
            except SpecError as e:
                problems.add_error(e, path)
                continue
            taken = ids.problem(query.id, where)
            if taken:
                problems.add(path, f"{where}.id", taken)
                continue
            queries.append(query)
    if not queries and len(problems) == before:
        problems.add(path, key, "has no queries: add should_fire and should_not_fire lists")
    return queries


def _yaml_query(item: Any, key: str, should_fire: bool) -> TriggerQuery:
    if isinstance(item, str):
        item = {"query": item}
    if not isinstance(item, dict):
        raise SpecError(key, f"a query is a string or a mapping with a `query:` key (got {type_name(item)})")
    known_keys(item, QUERY_KEYS, key, "a query")
    if "query" not in item:
        raise SpecError(key, "a query needs a `query:` key (the request as a user would type it)")
    query = _query_text(item["query"], f"{key}.query")
    query_id = item.get("id")
    if query_id is not None and (not isinstance(query_id, str) or not ID_PATTERN.match(query_id)):
        raise SpecError(f"{key}.id", "must be letters, digits, '-', '_' or '.', starting with a letter or digit")
    turns = _scripted(item["scripted"], f"{key}.scripted") if "scripted" in item else None
    return TriggerQuery(id=query_id or "", query=query, should_fire=should_fire, turns=turns)


def _from_skill_creator(
    data: Any, path: Path, components: tuple[Component, ...], skill: str | None, problems: Problems
) -> list[_Draft]:
    if not isinstance(data, list) or not data:
        raise SpecError(
            "",
            'skill-creator\'s trigger file is a JSON list of {"query": ..., "should_trigger": '
            f"true|false}} entries (got {type_name(data) if data != [] else 'an empty list'})",
            True,
        )
    folder_skill = _skill_of_folder(path, components)
    by_skill: dict[str, _Draft] = {}
    for index, entry in enumerate(data):
        key = f"[{index}]"
        if not isinstance(entry, dict):
            problems.add(
                path, key, f'an entry is an object {{"query": ..., "should_trigger": ...}} (got {type_name(entry)})'
            )
            continue
        try:
            known_keys(entry, JSON_KEYS, key, "a trigger entry")
            if "query" not in entry or "should_trigger" not in entry:
                missing = "query" if "query" not in entry else "should_trigger"
                raise SpecError(f"{key}.{missing}", "is required")
            query = _query_text(entry["query"], f"{key}.query")
            if not isinstance(entry["should_trigger"], bool):
                raise SpecError(
                    f"{key}.should_trigger", f"must be true or false (got {type_name(entry['should_trigger'])})"
                )
            turns = _scripted(entry["scripted"], f"{key}.scripted") if "scripted" in entry else None
        except SpecError as e:
            problems.add_error(e, path)
            continue
        named = entry.get("skill", skill)
        if named is not None:
            component = _component(str(named), components, f"{key}.skill" if "skill" in entry else key, problems, path)
        else:
            component = folder_skill or _only_skill(components, key, path, problems)
        if component is None:
            continue
        draft = by_skill.setdefault(component.qualified_name, _Draft(component, [], {}, "skill-creator"))
        draft.queries.append(TriggerQuery(id="", query=query, should_fire=entry["should_trigger"], turns=turns))
    return list(by_skill.values())


def _skill_of_folder(path: Path, components: tuple[Component, ...]) -> Component | None:
    """The skill whose folder holds `path` (directly or in its `evals/`)."""
    folder = skill_folder_of(path)
    return next((c for c in components if c.kind == "skill" and c.path.parent == folder), None)


def _only_skill(components: tuple[Component, ...], key: str, path: Path, problems: Problems) -> Component | None:
    skills = [c for c in components if c.kind == "skill"]
    if len(skills) == 1:
        return skills[0]
    if not skills:
        problems.add(path, key, "the plugin has no skill for these queries to fire (no skills/<name>/SKILL.md)")
        return None
    names = ", ".join(c.name for c in skills)
    problems.add(
        path,
        key,
        f'names no skill, and the plugin has several ({names}): add "skill": "<name>" to each entry, keep the '
        "file in the skill's folder, or pass --trigger-skill NAME",
    )
    return None


def _component(name: str, components: tuple[Component, ...], key: str, problems: Problems, path: Path):
    found = next((c for c in components if c.answers_to(name)), None)
    user_only = [] if found is not None else _user_only_skills(path, name)
    if user_only:
        problems.add(
            path,
            key,
            f"{name!r} is a skill only a user can invoke (disable-model-invocation: true in {user_only[0]}): the model "
            "is never offered it, so no query can fire it — leave it out of the trigger sets",
        )
    elif found is None:
        names = [c.name for c in components]
        listing = ", ".join(names) or "none"
        problems.add(
            path, key, f"{name!r} is no skill or command of the plugin{did_you_mean(name, names)} (it has: {listing})"
        )
    return found


def _user_only_skills(trigger_file: Path, name: str) -> list[str]:
    """The SKILL.md (relative to the plugin) of a `disable-model-invocation: true` skill named `name`."""
    plugin_root = enclosing_plugin(trigger_file.parent)
    if plugin_root is None:
        return []
    return [
        os.path.relpath(s.path, plugin_root)
        for s in skills_of(plugin_root)
        if not s.model_invocable and name.strip().lstrip("/") in (s.name, s.qualified_name)
    ]


def _query_text(value: Any, key: str) -> str:
    text = nonempty_string(value, key)
    if text.strip().startswith(PLACEHOLDER):
        raise SpecError(key, "is a placeholder: write the request as a user would make it (it never runs as it is)")
    return text


SLASH_FINDING = (
    "starts with a slash command: Claude Code expands it before the model sees it, so no skill is ever chosen and "
    "the query measures nothing — it is not run (write the request as a user would say it)"
)


def _without_slash_queries(draft: _Draft, path: Path, eval_root: Path) -> list[str]:
    """Take out of `draft` the queries that start with a slash command; what is said of each (the set's other
    queries still run: one such query never costs the rest of the file)."""
    kept = [q for q in draft.queries if not SLASH_COMMAND.match(q.query)]
    where = os.path.relpath(path, eval_root.parent)
    said = [
        f"⚠ {where}: {draft.skill.name}: query {q.query[:60]!r} {SLASH_FINDING}"
        for q in draft.queries
        if SLASH_COMMAND.match(q.query)
    ]
    draft.queries = kept
    return said


SCRIPTED_WORDS = ("fire", "none")


def _scripted(value: Any, key: str) -> Any:
    """`fire` (the set's skill), `none` (an answer in words), another component's name (resolved when the set's
    skill is known), a list of turns as in scripted.yaml, or a rule on the skill's description
    (load/description_words.py); or a mapping from run number (or `default`) to one of those."""
    if is_rule(value):
        return parse_rule(value, key)
    if isinstance(value, dict):
        out: dict = {}
        for run, answer in value.items():
            if run != "default" and not (isinstance(run, int) and not isinstance(run, bool) and run >= 1):
                raise SpecError(subkey(key, run), "a run key is a run number (1 for the first run) or `default`")
            out[run] = _scripted(answer, subkey(key, run))
        return out
    if isinstance(value, list):
        return parse_turns(value, key)
    return string(value, key)  # resolved against the plugin by scripted_arm


def scripted_by_description(trigger_set: TriggerSet) -> bool:
    """Whether some query's scripted answer follows the skill's description (`description_has:`), so that a scripted
    session shows a change of description."""
    for query in trigger_set.queries:
        answers = query.turns.values() if isinstance(query.turns, dict) else (query.turns,)
        if any(isinstance(answer, DescriptionRule) for answer in answers):
            return True
    return False


def scripted_arm(trigger_set: TriggerSet, query: TriggerQuery) -> ArmScript:
    """What the scripted model answers for `query`, run by run: its own answers, else what its label asks for."""
    answers = query.turns if isinstance(query.turns, dict) else {"default": query.turns}
    runs = {int(run): _answer(trigger_set, query, a) for run, a in answers.items() if run != "default"}
    return ArmScript(runs=runs, default=_answer(trigger_set, query, answers.get("default")))


def _answer(trigger_set: TriggerSet, query: TriggerQuery, answer: Any) -> tuple[Turn, ...]:
    if isinstance(answer, tuple):
        return answer
    if isinstance(answer, DescriptionRule):
        whose = next((c for c in trigger_set.components if answer.of and c.answers_to(answer.of)), trigger_set.skill)
        answer = answer.answer(whose.seen)  # as the model sees it, when_to_use included
    word = answer if isinstance(answer, str) else ("fire" if query.should_fire else "none")
    if word == "none":
        return (Turn(blocks=(TextBlock("Here is an answer, without any skill."),)),)
    target = (
        trigger_set.skill if word == "fire" else next((c for c in trigger_set.components if c.answers_to(word)), None)
    )
    assert target is not None, word  # checked when the file was loaded
    return (Turn(blocks=(ToolBlock("Skill", {"skill": target.qualified_name}),)), Turn(blocks=(TextBlock("Done."),)))


def _unique_ids(queries: list[TriggerQuery]) -> list[TriggerQuery]:
    """Every query gets an id (-k selects by it): its own, else a slug of its first words, numbered when taken."""
    out, taken = [], {q.id for q in queries if q.id}
    for query in queries:
        query_id = query.id
        if not query_id:
            base = slug(query.query)
            query_id, n = base, 2
            while query_id in taken:
                query_id, n = f"{base}-{n}", n + 1
            taken.add(query_id)
        out.append(TriggerQuery(query_id, query.query, query.should_fire, query.turns))
    return out


def slug(text: str, words: int = 6) -> str:
    parts = re.findall(r"[a-z0-9]+", text.lower())[:words]
    return "-".join(parts)[:48].strip("-") or "query"


def query_case(trigger_set: TriggerSet, query: TriggerQuery, scripted: bool = False) -> Case:
    """A query as the case it is run as: its text the prompt, no graders, the plugin in the with arm only, the set's
    limits; `trigger` tells the run what to watch for. Its folder is virtual: where its runs are kept."""
    folder = trigger_set.eval_root / "triggers" / trigger_set.skill.name / query.id
    script = None
    if scripted:
        script = Script(path=str(trigger_set.file), arms={"with": scripted_arm(trigger_set, query)})
    return Case(
        name=f"{trigger_set.skill.name}/{query.id}",
        dir=folder,
        eval_root=trigger_set.eval_root,
        plugin_root=trigger_set.plugin_root,
        source="trigger",
        prompt=query.query,
        graders=(),
        runs=trigger_set.runs,
        max_turns=trigger_set.max_turns,
        timeout_seconds=trigger_set.timeout_seconds,
        model=trigger_set.model,
        models=trigger_set.models,
        mocks=trigger_set.mocks,
        script=script,
        trigger=TriggerTarget(
            skill=trigger_set.skill,
            should_fire=query.should_fire,
            components=trigger_set.components,
            query_id=query.id,
            set_file=trigger_set.file,
            threshold=trigger_set.threshold,
        ),
    )
