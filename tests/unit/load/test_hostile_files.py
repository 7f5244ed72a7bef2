"""Hostile and broken case files: whatever a case folder holds, loading it ends in a Case or a load error naming
the file and the key — never a crash of the collection, and never an unbounded cost.

The fuzz tests take valid documents of every kind the loaders read (case.yaml, prompt.md frontmatter, grader
frontmatter, mock frontmatter, scripted.yaml), put wrong-typed values (and keys) at random places, and check that
only CaseLoadError (load_case) or SpecError (load_script) ever escapes — and that the CaseLoadError is a refusal,
not a LoaderCrash (a crash load_case reports as the case's load error). They are seeded: a failure names its seed
and the document, and reproduces.
"""

from __future__ import annotations

import copy
import json
import math
import random
import time
import traceback
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.core.yamlio import MAX_CHARS, MAX_DEPTH, MAX_NODES, YamlError, load_yaml
from pytest_plugin_eval.grade.base import GraderType
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load import case as case_module
from pytest_plugin_eval.load.case import CaseLoadError, LoaderCrash, load_case
from pytest_plugin_eval.load.script import MAX_TURNS, load_script

# ---- a suite in tmp_path ----------------------------------------------------------------------------------


def plugin(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p"}))
    (root / "evals").mkdir()
    return root, root / "evals"


def case_dir(evals: Path, name: str = "c", prompt: str = "Say hello.\n", grader: str | None = None) -> Path:
    folder = evals / name
    (folder / "graders").mkdir(parents=True)
    (folder / "fixtures").mkdir()
    (folder / "prompt.md").write_text(prompt)
    (folder / "graders" / "ok.md").write_text(grader or "---\ntype: regex\npattern: hello\n---\n")
    return folder


def problems(evals: Path, name: str = "c") -> list[tuple[str, str, str]]:
    with pytest.raises(CaseLoadError) as info:
        load_case(evals / name, evals, grader_types())
    return [(p.file.name if p.file else "", p.key, p.message) for p in info.value.problems]


# ---- the limits of one file ---------------------------------------------------------------------------------

BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)


def test_a_key_written_twice_is_an_error_naming_it():
    with pytest.raises(YamlError) as info:
        load_yaml("runs: 1\nname: x\nruns: 2\n")
    assert (info.value.key, info.value.line) == ("runs", 3)
    assert 'the key "runs" is written twice in one mapping' in str(info.value)
    with pytest.raises(YamlError) as info:
        load_yaml("execution:\n  max_turns: 1\n  max_turns: 2\n")
    assert info.value.key == "execution.max_turns"


def test_merge_keys_may_still_be_overridden():
    assert load_yaml("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n")["other"] == {"x": 3, "y": 2}


def test_an_anchor_bomb_is_refused_while_it_is_read():
    assert len(BOMB) < 400
    started = time.monotonic()
    with pytest.raises(YamlError) as info:
        load_yaml(BOMB)
    assert time.monotonic() - started < 1
    assert f"more than {MAX_NODES:,} values once its aliases are expanded" in str(info.value)
    assert info.value.key == "e"  # the first key whose value goes over


def test_text_repeated_through_aliases_counts_its_characters():
    big = "x" * 100_000
    text = f"a: &a {big}\nb: [{', '.join(['*a'] * 50)}]\n"
    with pytest.raises(YamlError) as info:
        load_yaml(text)
    assert f"more than {MAX_CHARS:,} characters" in str(info.value) and info.value.key == "b"


def test_deep_nesting_is_refused_without_recursion():
    for text in ("[" * 20_000 + "]" * 20_000, "a:\n" + "".join("  " * i + "- \n" for i in range(1, 200))):
        with pytest.raises(YamlError) as info:
            load_yaml(text)
        assert f"nested more than {MAX_DEPTH} levels deep" in str(info.value)
    load_yaml("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))  # up to the limit is fine


def test_an_alias_inside_its_own_anchor_is_refused():
    with pytest.raises(YamlError) as info:
        load_yaml("a: &a [1, *a]\n")
    assert "refers to a node that contains it" in str(info.value) and info.value.key == "a[1]"


def test_an_overlong_document_is_refused_before_it_is_parsed():
    with pytest.raises(YamlError, match="characters long; the limit is"):
        load_yaml("a: " + "x" * (MAX_CHARS + 1))


def test_hostile_case_files_are_load_errors(tmp_path):
    _, evals = plugin(tmp_path)
    case_dir(evals, "dup", "---\nruns: 1\nmax_turns: 3\nruns: 2\n---\nSay hello.\n")
    case_dir(evals, "bomb", "Say hello.\n")
    (evals / "bomb" / "case.yaml").write_text('schema_version: "1.0"\nname: bomb\n' + BOMB.replace("a:", "x_a:", 1))
    case_dir(evals, "deep", "---\ngrowthbook_overrides: " + "[" * 20_000 + "]" * 20_000 + "\n---\nSay hello.\n")
    case_dir(evals, "grader", grader="---\ntype: [regex]\npattern: x\n---\n")
    case_dir(evals, "dup-grader", grader="---\ntype: regex\npattern: x\npattern: y\n---\n")
    [(file, key, message)] = problems(evals, "dup")
    assert (file, key) == ("prompt.md", "runs") and 'the key "runs" is written twice' in message
    [(file, key, message)] = problems(evals, "bomb")
    assert file == "case.yaml" and "values once its aliases are expanded" in message
    [(file, key, message)] = problems(evals, "deep")
    assert (file, key) == ("prompt.md", "growthbook_overrides[0][0]…") and "levels deep" in message
    [(file, key, message)] = problems(evals, "grader")
    assert (file, key) == ("ok.md", "type") and "is not a grader type" in message
    [(file, key, message)] = problems(evals, "dup-grader")
    assert (file, key) == ("ok.md", "pattern") and "written twice" in message


def test_a_mock_file_with_a_duplicate_key_names_it(tmp_path):
    _, evals = plugin(tmp_path)
    case_dir(evals)
    mock = evals / "mocks" / "tracker" / "create_issue.md"
    mock.parent.mkdir(parents=True)
    mock.write_text("---\nerror: false\nerror: true\n---\nCreated.\n")
    [(file, key, message)] = problems(evals)
    assert (file, key) == ("create_issue.md", "frontmatter.error") and "written twice" in message


def test_repeat_cannot_expand_a_script_past_its_cap(tmp_path):
    script = tmp_path / "scripted.yaml"
    script.write_text("with:\n  - {text: hi, repeat: 10000000}\n")
    started = time.monotonic()
    with pytest.raises(SpecError) as info:
        load_script(script)
    assert time.monotonic() - started < 1
    assert info.value.key == "with[0].repeat"
    assert f"at most {MAX_TURNS:,} turns" in info.value.message and "10,000,000" in info.value.message
    script.write_text(f"with:\n  - {{text: a, repeat: {MAX_TURNS - 1}}}\n  - {{text: b, repeat: 2}}\n")
    with pytest.raises(SpecError) as info:
        load_script(script)
    assert info.value.key == "with[1].repeat"
    script.write_text(f"with:\n  - {{text: a, repeat: {MAX_TURNS}}}\n")
    assert len(load_script(script).turns("with", 1)) == MAX_TURNS


# ---- fuzzing: wrong types anywhere -------------------------------------------------------------------------

CASE_YAML = {
    "schema_version": "1.0",
    "name": "c",
    "description": "d",
    "tags": ["a", "b"],
    "runs": 2,
    "expected_outcome": "x",
    "plugins": ["."],
    "context": {"add_dirs": ["fixtures"], "history_file": None, "scaffold_script": None},
    "execution": {
        "prompt": "Say hello.",
        "model": "m",
        "max_turns": 3,
        "timeout_seconds": 10,
        "allowed_tools": ["Read"],
        "disallowed_tools": ["WebFetch"],
        "artifact_publish": False,
        "growthbook_overrides": {"a": 1},
        "append_system_prompt": "s",
        "env": {"EVAL_X": "1"},
    },
    "graders": [
        {
            "name": "r",
            "type": "regex",
            "pattern": "x",
            "target": {"source": "file", "path": "a.txt"},
            "match": "count:1",
            "flags": "i",
            "weight": 2,
            "arm": "both",
        },
        {"name": "t", "type": "tool_used", "tool": "Read", "input_match": "x", "min": 1, "max": 2},
        {"name": "o", "type": "tool_order", "before": "Read", "after": {"tool": "Write", "input_match": "y"}},
        {"name": "f", "type": "file_exists", "path": "*.md", "exists": True},
        {"name": "l", "type": "llm", "criteria": "c", "focus": "mock_calls"},
    ],
}
FRONTMATTER = {
    "runs": 1,
    "max_turns": 2,
    "timeout_seconds": 5,
    "tags": ["x"],
    "name": "n",
    "env": {"EVAL_A": "b"},
    "allowed_tools": ["Read"],
    "disallowed_tools": ["Agent"],
    "growthbook_overrides": {"k": [1, 2]},
    "schema_version": "1.0",
    "artifact_publish": True,
}
GRADERS = [
    {"type": "regex", "pattern": "a", "target": "trace", "match": "not_contains", "flags": "m", "arm": "with-only"},
    {"type": "tool_used", "tool": "Skill", "input_match": "s", "min": 0, "max": 3, "weight": 0.5},
    {"type": "tool_order", "before": {"tool": "Read", "input_match": "a"}, "after": "Write"},
    {"type": "file_exists", "path": "out/*.txt", "exists": False, "name": "n"},
    {"type": "llm", "focus": {"source": "file", "path": "a.md"}},
    {"type": "baseline", "baseline_file": "fixtures/base.jsonl"},
]
MOCKS = [
    {"type": "fixed", "expect": {"a": "string", "b": ["x", 1], "c": "/^a/i", "d": {"e": "number"}}, "error": False},
    {"type": "agent", "abort_when": "never"},
]
SERVER = {"type": "agent", "tools": ["a", "b"], "expect": {"q": "string"}}
SCRIPT = {
    "with": [
        {"tool": "Skill", "input": {"skill": "p:s", "n": [1, {"x": None}]}},
        {"text": "a", "delay": 0, "usage": {"input_tokens": 1, "output_tokens": 2}, "repeat": 2},
        {"blocks": [{"text": "a"}, {"tool": "T", "input": {}}, "b"]},
        {"error": {"status": 429, "retry_after": 1, "message": "m", "type": "t"}},
        {"text": "b", "stall": 1, "drop": True},
        "plain",
    ],
    "without": {1: ["a"], "default": ["b"]},
    "all": ["x"],
    "judge": {"g": ["PASS", {"error": {"status": 500}}], "default": "FAIL", "other": ["<empty>"]},
}

WRONG = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10**30,
    math.nan,
    math.inf,
    "",
    "x",
    "/",
    "count:99999999999999999999",
    "*",
    [],
    [None],
    [[1]],
    ["a", 1],
    [{"a": 1}],
    {},
    {"a": None},
    {1: 2},
    {"type": "regex"},
    {"source": "file"},
    {"tool": 1},
]
WRONG_KEYS = [1, None, True, 1.5, ""]


def paths(value, prefix=()):
    """Every place in a document: (path, is_key) for each value and each mapping key."""
    yield prefix, False
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key), True
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*prefix, i))


def mutate(document, rng: random.Random, times: int):
    doc = copy.deepcopy(document)
    for _ in range(times):
        places = list(paths(doc))
        path, is_key = rng.choice(places)
        if not path:
            if rng.random() < 0.1:
                doc = copy.deepcopy(rng.choice(WRONG))
            continue
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
        except (KeyError, IndexError, TypeError):
            continue
        last = path[-1]
        if is_key and isinstance(parent, dict) and last in parent:
            parent[rng.choice(WRONG_KEYS)] = parent.pop(last)
        elif isinstance(parent, dict) and rng.random() < 0.15:
            parent.pop(last, None)
        elif isinstance(parent, (dict, list)):
            try:
                parent[last] = copy.deepcopy(rng.choice(WRONG))
            except (IndexError, TypeError):
                continue
    return doc


def dump(doc) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def frontmatter(doc, body: str = "Say hello.") -> str:
    if isinstance(doc, dict) and not doc:
        return body + "\n"
    return f"---\n{dump(doc)}---\n{body}\n"


def must_load_or_refuse(evals: Path, folder: Path, what: str) -> None:
    """The case loads, or is refused with problems — never a crash, whether it escapes or comes back as the
    LoaderCrash that load_case makes of it for the session's sake."""
    try:
        load_case(folder, evals, grader_types())
    except LoaderCrash as e:  # pragma: no cover - the failure this test exists to find
        crash = e.__cause__
        trace = "".join(traceback.format_exception(type(crash), crash, crash.__traceback__)) if crash else ""
        pytest.fail(f"the loader crashed on:\n{what}\n{trace}")
    except CaseLoadError as e:
        assert e.problems, what
    except Exception as e:  # pragma: no cover - the failure this test exists to find
        pytest.fail(f"{type(e).__name__}: {e} escaped load_case for:\n{what}")


ROUNDS = 60


@pytest.mark.parametrize("seed", range(4))
def test_wrong_types_anywhere_are_load_errors(tmp_path, seed):
    rng = random.Random(seed)
    _, evals = plugin(tmp_path)
    (evals / "c").mkdir()
    for n in range(ROUNDS):
        folder = evals / f"c{n}"
        (folder / "graders").mkdir(parents=True)
        (folder / "fixtures").mkdir()
        (folder / "fixtures" / "base.jsonl").write_text('{"type": "assistant"}\n')
        # One file broken at a time (the others valid, so the loaders get past them), now and then all of them.
        broken = rng.choice(
            [
                "case.yaml",
                "prompt.md",
                "graders/g.md",
                "mocks/srv/tool_a.md",
                "mocks/srv/_server.md",
                "scripted.yaml",
                "all",
            ]
        )
        times = rng.randint(1, 3)

        def maybe(rel, document, broken=broken, times=times):
            return mutate(document, rng, times) if broken in (rel, "all") else document

        texts = {
            "case.yaml": dump(maybe("case.yaml", CASE_YAML)),
            "prompt.md": frontmatter(maybe("prompt.md", FRONTMATTER)),
            "graders/g.md": frontmatter(maybe("graders/g.md", rng.choice(GRADERS)), "The rubric."),
            "mocks/srv/tool_a.md": frontmatter(maybe("mocks/srv/tool_a.md", rng.choice(MOCKS)), "Answer."),
            "mocks/srv/_server.md": frontmatter(maybe("mocks/srv/_server.md", SERVER), "A server."),
            "scripted.yaml": dump(maybe("scripted.yaml", SCRIPT)),
        }
        for rel, text in texts.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
        what = f"seed {seed}, case c{n}:\n" + "\n".join(f"--- {rel}\n{text}" for rel, text in texts.items())
        must_load_or_refuse(evals, folder, what)
        try:
            load_script(folder / "scripted.yaml")
        except SpecError:
            pass
        except Exception as e:  # pragma: no cover
            pytest.fail(f"{type(e).__name__}: {e} escaped load_script for:\n{what}")


@pytest.mark.parametrize(
    "text",
    [
        "- a\n- b\n",
        "just a string\n",
        "42\n",
        "null\n",
        "!!binary aGVsbG8=\n",
        "? [a, b]\n: c\n",
        "a: !!python/object:os.system x\n",
        "a: &x 1\nb: *y\n",
        "{a: 1, a: 2}\n",
        "\x00\x01",
        "a: b\n---\nc: d\n",
    ],
)
def test_odd_documents_in_every_file_are_load_errors(tmp_path, text):
    _, evals = plugin(tmp_path)
    for i, rel in enumerate(("case.yaml", "scripted.yaml", "prompt.md", "graders/ok.md", "mocks/s/t.md")):
        folder = case_dir(evals, f"c{i}")
        content = f"---\n{text}---\nbody\n" if rel.endswith(".md") else text
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content)
        must_load_or_refuse(evals, folder, f"{rel}:\n{text}")


# ---- what YAML limits do not cover ---------------------------------------------------------------------------


def test_json_nested_too_deeply_is_a_load_error_not_a_recursion_error(tmp_path):
    _, evals = plugin(tmp_path)
    deep = "[" * 100_000 + "]" * 100_000
    case_dir(evals, "tools")
    tools = evals / "tools" / "mocks" / "srv" / "_tools.json"
    tools.parent.mkdir(parents=True)
    (tools.parent / "t.md").write_text("Answer.\n")
    tools.write_text(deep)
    [(file, key, message)] = problems(evals, "tools")
    assert file == "_tools.json" and message.startswith("not valid JSON")
    case_dir(evals, "baseline", grader="---\ntype: baseline\nbaseline_file: base.jsonl\n---\nAs well.\n")
    (evals / "baseline" / "base.jsonl").write_text(deep + "\n")
    [(file, key, message)] = problems(evals, "baseline")
    assert (file, key) == ("ok.md", "baseline_file") and '"base.jsonl" line 1 is not JSON' in message


class Fragile(GraderType):
    """A grader type from a hook that trips over a value it did not expect."""

    name = "fragile"
    keys = ("limit",)

    def parse(self, raw, body, case_dir=None):
        return {frozenset(): raw["limit"]}[raw["limit"]]  # TypeError: unhashable type: 'list'


def test_a_hook_grader_type_that_raises_at_load_is_a_load_error(tmp_path):
    _, evals = plugin(tmp_path)
    case_dir(evals, grader="---\ntype: fragile\nlimit: [1]\n---\n")
    with pytest.raises(CaseLoadError) as info:
        load_case(evals / "c", evals, {**grader_types(), "fragile": Fragile()})
    [problem] = info.value.problems
    assert problem.file.name == "ok.md"
    assert problem.message == "the fragile grader type could not read this grader: TypeError: unhashable type: 'list'"


def test_any_other_crash_of_a_loader_is_still_this_cases_load_error(tmp_path, monkeypatch):
    _, evals = plugin(tmp_path)
    case_dir(evals)

    def broken(*args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(case_module, "load_mocks", broken)
    with pytest.raises(LoaderCrash) as info:
        load_case(evals / "c", evals, grader_types())
    assert isinstance(info.value.__cause__, RecursionError)
    [problem] = info.value.problems
    assert (problem.file, problem.key) == (evals / "c", "")
    assert problem.message == "could not be read: RecursionError: maximum recursion depth exceeded"
    assert problem.structural


def test_a_built_in_grader_type_that_crashes_is_a_loader_crash_not_the_graders_fault(tmp_path, monkeypatch):
    _, evals = plugin(tmp_path)
    case_dir(evals)
    regex = grader_types()["regex"]

    def broken(*args):
        raise TypeError("a bug")

    monkeypatch.setattr(type(regex), "parse", broken)
    with pytest.raises(LoaderCrash) as info:
        load_case(evals / "c", evals, grader_types())
    assert info.value.problems[0].message == "could not be read: TypeError: a bug"


def test_the_fuzz_check_fails_on_a_crash_the_loader_turned_into_a_load_error(tmp_path, monkeypatch):
    _, evals = plugin(tmp_path)
    folder = case_dir(evals)
    must_load_or_refuse(evals, folder, "a valid case")
    monkeypatch.setattr(case_module, "load_mocks", lambda *args: 1 / 0)
    with pytest.raises(pytest.fail.Exception, match="(?s)the loader crashed on:\na valid case\n.*ZeroDivisionError"):
        must_load_or_refuse(evals, folder, "a valid case")
