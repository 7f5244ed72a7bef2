"""Unit tests for each case's verdict as a pytest test of its own (pytest_plugin_eval.session.verdicts): the JUnit
properties of a case, the failure text pytest prints (VerdictRepr), the reports `report_case` sends through
pytest's report hooks, and the readable JUnit names `junit` gives them — checked against a recording fake and
against pytest's own LogXML. No pytester: the config is a fake carrying only `hook` and `stash`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from _pytest._io import TerminalWriter
from _pytest.junitxml import LogXML, xml_key
from _pytest.reports import TestReport
from helpers.documents import case_of
from helpers.fakes import FakeHook, FakeLogXML

from pytest_plugin_eval.results.model import CaseResult, GraderResult, RunResult
from pytest_plugin_eval.results.verdict import CaseVerdict, case_verdict
from pytest_plugin_eval.session import verdicts
from pytest_plugin_eval.session.verdicts import VerdictRepr, junit, properties, report_case

CASE_FILE = "evals/a/prompt.md"


def case(*runs: RunResult, name: str = "a") -> CaseResult:
    return case_of(*runs, name=name)


def run(arm: str, index: int, score: float | None, **kw) -> RunResult:
    graders = [] if score is None else [GraderResult("says-hi", score == 1.0, 1, "pattern /hi/ not found")]
    return RunResult(arm, index, score=score, passed=score == 1.0, graders=graders, **kw)


def fake_config(log: list, xml=None, forward=None) -> SimpleNamespace:
    stash = pytest.Stash()
    if xml is not None:
        stash[xml_key] = xml
    return SimpleNamespace(hook=FakeHook(log, forward), stash=stash)


def reports(log: list) -> list[TestReport]:
    return [entry[2] for entry in log if entry[0] == "logreport"]


# ---- properties ----------------------------------------------------------------------------------------------


def test_properties_of_a_single_arm_case():
    c = case(run("with", 1, 1.0, cost_usd=0.1234567), run("with", 2, 0.0, cost_usd=0.2))
    assert properties(c) == [("score", 0.5), ("runs", 2), ("costUsd", 0.323457)]


def test_properties_of_a_two_arm_case():
    c = case(run("with", 1, 1.0, cost_usd=0.25), run("without", 1, 0.0, cost_usd=0.25), run("without", 2, 1.0))
    assert properties(c) == [("score", 1.0), ("scoreWithout", 0.5), ("delta", 0.5), ("runs", 3), ("costUsd", 0.5)]


def test_properties_of_an_unscored_case_keep_their_none():
    c = case(run("with", 1, None, error="529", error_kind="api"), run("without", 1, None, error="529"))
    assert properties(c) == [("score", None), ("scoreWithout", None), ("delta", None), ("runs", 2), ("costUsd", 0.0)]


# ---- VerdictRepr ---------------------------------------------------------------------------------------------

TEXT = (
    "says-hi: no hi (with-plugin run 1) — score 0.00 < threshold 1.00\n✗ says-hi in with-plugin run 1: no hi\nhint: x"
)


def test_the_first_line_is_the_crash_message():
    crash = VerdictRepr(TEXT).reprcrash
    assert crash.message == "says-hi: no hi (with-plugin run 1) — score 0.00 < threshold 1.00"
    assert (crash.path, crash.lineno) == ("", 0)
    assert VerdictRepr("one line").reprcrash.message == "one line"


def test_str_is_the_whole_text():
    assert str(VerdictRepr(TEXT)) == TEXT


def test_toterminal_writes_every_line_and_failing_graders_in_red():
    written = []
    tw = SimpleNamespace(line=lambda text, **markup: written.append((text, markup)))
    VerdictRepr(TEXT).toterminal(tw)
    assert written == [
        ("says-hi: no hi (with-plugin run 1) — score 0.00 < threshold 1.00", {"red": False}),
        ("✗ says-hi in with-plugin run 1: no hi", {"red": True}),
        ("hint: x", {"red": False}),
    ]


def test_pytest_renders_it_as_the_reports_longrepr():
    report = TestReport(f"{CASE_FILE}::a", (CASE_FILE, None, "a"), {}, "failed", VerdictRepr(TEXT), "call")
    assert report.longreprtext == TEXT
    # As it would cross to a --report-log file (or an xdist channel): its text.
    assert json.loads(json.dumps(report._to_json()))["longrepr"] == TEXT
    out = io.StringIO()
    VerdictRepr(TEXT).toterminal(TerminalWriter(out))
    assert out.getvalue() == TEXT + "\n"


# ---- report_case ---------------------------------------------------------------------------------------------


def test_a_failed_case_is_reported_as_one_test_with_three_phases():
    log: list = []
    c = case(run("with", 1, 0.0, duration_seconds=2.0), run("with", 2, 1.0, duration_seconds=3.5))
    verdict = case_verdict(c, 1.0)
    report_case(fake_config(log), CASE_FILE, "commit-craft", c, verdict)
    location = (CASE_FILE, None, "a (the case, over its runs)")
    assert [entry[:2] for entry in log] == [
        ("logstart", f"{CASE_FILE}::a"),
        ("logreport", "setup"),
        ("logreport", "call"),
        ("logreport", "teardown"),
        ("logfinish", f"{CASE_FILE}::a"),
    ]
    assert log[0][2] == location and log[-1][2] == location
    setup, call, teardown = reports(log)
    for report in (setup, call, teardown):
        assert isinstance(report, TestReport)
        assert (str(report.nodeid), report.location) == (f"{CASE_FILE}::a", location)
        assert set(report.keywords) == {"a", verdicts.CASE_KEYWORD, "plugin_eval"}
    assert [r.outcome for r in (setup, call, teardown)] == ["passed", "failed", "passed"]
    assert isinstance(call.longrepr, VerdictRepr) and str(call.longrepr) == verdict.text
    assert (setup.longrepr, teardown.longrepr) == (None, None)
    assert [r.duration for r in (setup, call, teardown)] == [0.0, 5.5, 0.0]
    assert call.user_properties == properties(c)
    assert getattr(call, verdicts.VERDICT_ATTR) == verdict.headline
    assert not hasattr(setup, verdicts.VERDICT_ATTR) and not hasattr(teardown, verdicts.VERDICT_ATTR)
    assert list(setup.user_properties) == [] and list(teardown.user_properties) == []


def test_a_passed_case_passes_every_phase():
    log: list = []
    c = case(run("with", 1, 1.0))
    report_case(fake_config(log), CASE_FILE, "p", c, case_verdict(c, 1.0))
    assert [(r.when, r.outcome, r.longrepr) for r in reports(log)] == [
        ("setup", "passed", None),
        ("call", "passed", None),
        ("teardown", "passed", None),
    ]


def test_an_unscored_case_is_skipped_with_its_reason():
    log: list = []
    c = case(run("with", 1, None, error="exit 1: API Error: 529", error_kind="api"))
    report_case(fake_config(log), CASE_FILE, "p", c, case_verdict(c, 1.0))
    setup, call, teardown = reports(log)
    assert (setup.outcome, call.outcome, teardown.outcome) == ("passed", "skipped", "passed")
    assert call.longrepr == (CASE_FILE, 0, "Skipped: not scored: exit 1: API Error: 529")
    assert getattr(call, verdicts.VERDICT_ATTR) == "not scored: exit 1: API Error: 529"


def test_report_case_without_junit_xml_touches_no_reporter():
    log: list = []
    c = case(run("with", 1, 1.0))
    report_case(fake_config(log), CASE_FILE, "p", c, case_verdict(c, 1.0))
    assert [entry[0] for entry in log] == ["logstart", "logreport", "logreport", "logreport", "logfinish"]


def test_with_junit_xml_each_phase_is_named_before_it_is_reported():
    log: list = []
    xml = FakeLogXML(log)
    c = case(run("with", 1, 0.0, cost_usd=0.5), run("without", 1, 0.0))
    report_case(fake_config(log, xml), CASE_FILE, "commit-craft", c, case_verdict(c, 1.0))
    nodeid = f"{CASE_FILE}::a"
    names = [("attribute", nodeid, "classname", "commit-craft"), ("attribute", nodeid, "name", "a")]
    props = [("property", nodeid, k, "" if v is None else v) for k, v in properties(c)]
    assert [entry if entry[0] != "logreport" else entry[:2] for entry in log[1:-1]] == [
        *names,
        ("logreport", "setup"),
        *names,
        *props,  # on the call only: the testcase gets them once
        ("logreport", "call"),
        *names,
        ("logreport", "teardown"),
    ]
    assert xml.reporters[nodeid].properties == [
        ("score", 0.0),
        ("scoreWithout", 0.0),
        ("delta", 0.0),
        ("runs", 2),
        ("costUsd", 0.5),
    ]


def test_junit_writes_none_as_an_empty_property():
    log: list = []
    xml = FakeLogXML(log)
    report = SimpleNamespace(nodeid="x::y")
    junit(fake_config(log, xml), report, "cls", "name", [("score", None), ("runs", 0)])
    assert xml.reporters["x::y"].attributes == {"classname": "cls", "name": "name"}
    assert xml.reporters["x::y"].properties == [("score", ""), ("runs", 0)]


def test_junit_without_junit_xml_does_nothing():
    report = SimpleNamespace(nodeid="x::y")
    assert junit(fake_config([]), report, "cls", "name", [("score", 1.0)]) is None


# ---- against pytest's own JUnit XML ------------------------------------------------------------------------------


def logxml_testcase(tmp_path: Path, c: CaseResult, verdict: CaseVerdict, family: str = "xunit2"):
    xml = LogXML(str(tmp_path / "junit.xml"), None, family=family)
    report_case(fake_config([], xml, forward=xml), CASE_FILE, "commit-craft", c, verdict)
    (reporter,) = xml.node_reporters_ordered
    return reporter.to_xml()


def test_logxml_keeps_the_readable_names_and_the_properties_once(tmp_path):
    c = case(run("with", 1, 0.0), run("with", 2, 1.0, cost_usd=0.125))
    verdict = case_verdict(c, 1.0)
    testcase = logxml_testcase(tmp_path, c, verdict)
    assert (testcase.get("classname"), testcase.get("name")) == ("commit-craft", "a")
    assert [(p.get("name"), p.get("value")) for p in testcase.iter("property")] == [
        ("score", "0.5"),
        ("runs", "2"),
        ("costUsd", "0.125"),
    ]
    (failure,) = testcase.iter("failure")
    assert failure.get("message") == verdict.headline
    assert failure.text == verdict.text


def test_logxml_records_a_skipped_case_with_its_reason(tmp_path):
    c = case(run("with", 1, None, error="529", error_kind="api"))
    testcase = logxml_testcase(tmp_path, c, case_verdict(c, 1.0), family="xunit1")
    (skipped,) = testcase.iter("skipped")
    assert skipped.get("message") == "not scored: 529"
    assert skipped.text == f"{CASE_FILE}:0: not scored: 529"
    assert (testcase.get("classname"), testcase.get("name"), testcase.get("file")) == ("commit-craft", "a", CASE_FILE)
    assert [(p.get("name"), p.get("value")) for p in testcase.iter("property")] == [
        ("score", ""),
        ("runs", "1"),
        ("costUsd", "0.0"),
    ]


def test_logxml_records_a_passed_case(tmp_path):
    c = case(run("with", 1, 1.0))
    testcase = logxml_testcase(tmp_path, c, case_verdict(c, 1.0))
    assert list(testcase.iter("failure")) == [] and list(testcase.iter("skipped")) == []
    assert (testcase.get("classname"), testcase.get("name")) == ("commit-craft", "a")
    assert [p.get("name") for p in testcase.iter("property")] == ["score", "runs", "costUsd"]
