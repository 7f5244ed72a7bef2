"""The cases the session's pre-run findings are asked of: from run items' node ids (the controller's, under xdist
its workers'), and from a results document's cases — a case folder's and a skill-creator eval's alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

from helpers.documents import case_of
from helpers.plugin import Suite

from pytest_plugin_eval.engine.linted_cases import cases_of_nodeids, cases_of_results
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import load_case
from pytest_plugin_eval.load.suite import eval_root_of
from pytest_plugin_eval.results.model import RunResult

EVALS = {
    "skill_name": "s",
    "evals": [
        {"id": 1, "prompt": "Use the s skill.", "expectations": ["It is done"]},
        {"id": 2, "prompt": "Do the task.", "expectations": ["It is done"]},
    ],
}


class Session:
    """What linted_cases reads of a session: its options, rootdir, eval dirs, loader and grader types."""

    def __init__(self, rootpath: Path):
        self.options = EvalOptions()
        self.config = SimpleNamespace(rootpath=rootpath)
        self.loaded: list[Path] = []

    def eval_root(self, path: Path) -> Path | None:
        return eval_root_of(path)

    def load(self, folder: Path, root: Path):
        self.loaded.append(folder)
        return load_case(folder, root, grader_types())

    def grader_types(self):
        return grader_types()


def suite(tmp_path: Path) -> Suite:
    s = Suite(tmp_path)
    s.case("folder-case")
    (s.plugin / "skills" / "s" / "evals").mkdir()
    (s.plugin / "skills" / "s" / "evals" / "evals.json").write_text(json.dumps(EVALS))
    return s


def test_node_ids_give_each_case_once_a_folders_and_an_evals_jsons(tmp_path):
    s = suite(tmp_path)
    session = Session(tmp_path)
    ids = [
        *(f"plugin/evals/folder-case/prompt.md::folder-case[{p}]" for p in ("with-plugin-1", "no-plugin-1")),
        *(f"plugin/skills/s/evals/evals.json::s/1[{p}]" for p in ("with-plugin-1", "with-plugin-2")),
        "plugin/evals/triggers.yaml::s/some-query",  # no run item: not a case
    ]
    cases = cases_of_nodeids(session, ids)
    assert [(c.name, c.source) for c in cases] == [("folder-case", "prose"), ("s/1", "skill_creator")]
    assert cases[1].prompt == "Use the s skill." and cases[1].eval_root == s.evals
    assert session.loaded == [s.evals / "folder-case"]  # loaded once for its two items


def test_a_case_that_does_not_load_gives_none(tmp_path):
    s = suite(tmp_path)
    (s.evals / "folder-case" / "graders" / "ok.md").write_text("---\ntype: nonsense\n---\n")
    (s.plugin / "skills" / "s" / "evals" / "evals.json").write_text("{not json")
    ids = [
        "plugin/evals/folder-case/prompt.md::folder-case[with-plugin-1]",
        "plugin/skills/s/evals/evals.json::s/1[with-plugin-1]",
    ]
    assert cases_of_nodeids(Session(tmp_path), ids) == []


def test_a_results_documents_cases_are_loaded_back_the_evals_json_ones_from_their_file(tmp_path):
    s = suite(tmp_path)
    run = RunResult("with", 1, score=1.0, passed=True)
    results = [
        case_of(run, name="folder-case"),
        dataclasses.replace(case_of(run, name="s/2", dir="evals/skill-evals/s/2"), source="skill_creator"),
        case_of(run, name="gone", dir="evals/gone"),  # deleted since: nothing to lint
    ]
    cases = cases_of_results(Session(tmp_path), s.plugin, results)
    assert [(c.name, c.prompt) for c in cases] == [("folder-case", "Say hello."), ("s/2", "Do the task.")]
