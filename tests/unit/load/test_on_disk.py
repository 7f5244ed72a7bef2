"""The one walk of a suite outside a session (load/on_disk.read_suite): case folders, evals.json files and trigger
files, each loaded or its error kept with where it was read."""

from __future__ import annotations

from helpers.plugin import Suite

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.on_disk import read_suite


def test_the_walk_finds_cases_their_errors_and_trigger_files(tmp_path):
    suite = Suite(tmp_path)
    good = suite.case("good")
    bad = suite.case("bad", case_yaml="runs: many\n")
    (suite.evals / "triggers.yaml").write_text("skills:\n  s:\n    should_fire: [do it]\n    should_not_fire: [no]\n")
    (suite.evals / "broken.triggers.yaml").write_text("skills:\n  nope:\n    should_fire: [x]\n")
    found = read_suite(suite.plugin, suite.evals, grader_types())
    assert [(case.name, where) for case, where in found.cases] == [("good", good)]
    assert [where for where, _ in found.case_errors] == [bad]
    assert [(path.name, [s.name for s in sets]) for path, sets in found.trigger_files] == [("triggers.yaml", ["s"])]
    assert [path.name for path, _ in found.trigger_errors] == ["broken.triggers.yaml"]
    assert [s.name for s in found.trigger_sets] == ["s"]


def test_without_grader_types_only_the_trigger_files_are_read(tmp_path):
    suite = Suite(tmp_path)
    suite.case("good")
    (suite.evals / "triggers.yaml").write_text("skills:\n  s:\n    should_fire: [do it]\n")
    found = read_suite(suite.plugin, suite.evals, None)
    assert (found.cases, found.case_errors, [s.name for s in found.trigger_sets]) == ([], [], ["s"])
