"""Unit tests for grading one run (pytest_plugin_eval.grade.engine): which graders are plugin-fired indicators,
which run in which arm, and the verdicts `grade` gives (grader errors, the cost ceiling, what is scored)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest

from pytest_plugin_eval.grade import ecmaregex, engine
from pytest_plugin_eval.grade.base import GradeContext, GraderType, Verdict
from pytest_plugin_eval.grade.engine import Graded, graders_for, indicators, is_indicator
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.graders import GraderSpec, parse_grader
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript

# ---- test grader types (passed to parse_grader, never registered) ------------------------------------------


class Boom(GraderType):
    """Raises while grading: a bug in a grader."""

    name = "boom"
    keys = ("message",)

    def parse(self, raw, body, case_dir=None):
        return {"message": raw.get("message", "kaput")}

    def grade(self, config, run, ctx=None):
        raise RuntimeError(config["message"])


class Paid(GraderType):
    """A paid grader that records what it was called with and passes."""

    name = "paid"
    paid = True
    calls: list

    def __init__(self):
        self.calls = []

    def parse(self, raw, body, case_dir=None):
        return {}

    def grade(self, config, run, ctx=None):
        self.calls.append((run, ctx))
        return Verdict(True, "judge votes: PASS", cost_usd=0.01, details={"judgeModel": "judge-model"})


class Fixed(GraderType):
    """Gives the verdict its config names."""

    name = "fixed"
    keys = ("passed", "errored")

    def parse(self, raw, body, case_dir=None):
        return {"passed": raw.get("passed", True), "errored": raw.get("errored", False)}

    def grade(self, config, run, ctx=None):
        return Verdict(config["passed"], "fixed", errored=config["errored"])


PAID = Paid()
KINDS = {**grader_types(), "boom": Boom(), "paid": PAID, "fixed": Fixed()}


def g(name: str, **raw) -> GraderSpec:
    body = raw.pop("body", "")
    return parse_grader(raw, body, name, f"evals/case/graders/{name}.md", KINDS)


SKILL = dict(type="tool_used", tool="Skill")
GLOB = dict(type="tool_used", tool="Glob")
MOCKS = dict(type="regex", pattern="charge", target="mock_calls")
TEXT = dict(type="regex", pattern="done")


def output(tmp_path: Path, text: str = "all done", arm: str = "with") -> RunOutput:
    events = [
        {"type": "system", "subtype": "init"},
        {
            "type": "assistant",
            "message": {"id": "m1", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": None,
        },
        {"type": "result", "subtype": "success", "num_turns": 1, "result": text},
    ]
    return RunOutput(Transcript("".join(json.dumps(e) + "\n" for e in events)), cwd=tmp_path, arm=arm)


@pytest.fixture(autouse=True)
def _fresh_paid():
    PAID.calls.clear()


# ---- indicators ----------------------------------------------------------------------------------------------


def test_is_indicator():
    assert is_indicator(g("skill", **SKILL)) is True
    assert is_indicator(g("mocks", **MOCKS)) is True
    assert is_indicator(g("llm-mocks", type="llm", focus="mock_calls", body="Charged once.")) is True
    assert is_indicator(g("text", **TEXT, arm="with-only")) is True
    assert is_indicator(g("skill", **SKILL, arm="both")) is False
    assert is_indicator(g("mocks", **MOCKS, arm="both")) is False
    assert is_indicator(g("glob", **GLOB)) is False
    assert is_indicator(g("text", **TEXT)) is False
    assert is_indicator(g("file", type="file_exists", path="x")) is False
    assert is_indicator(g("llm", type="llm", body="Says hello.")) is False


def test_indicators_two_arm():
    graders = (
        g("skill", **SKILL),
        g("mocks", **MOCKS),
        g("text", **TEXT),
        g("forced", **SKILL, arm="both"),
        g("only", **GLOB, arm="with-only"),
    )
    assert indicators(graders, two_arm=True) == frozenset({"skill", "mocks", "only"})


def test_indicators_single_arm_has_none():
    graders = (g("skill", **SKILL), g("text", **TEXT))
    assert indicators(graders, two_arm=False) == frozenset()


def test_indicators_all_excluded_fallback():
    graders = (g("skill", **SKILL), g("mocks", **MOCKS))
    # Every grader would be an indicator: they all count instead.
    assert indicators(graders, two_arm=True) == frozenset()
    assert indicators((g("skill", **SKILL),), two_arm=True) == frozenset()
    assert indicators((), two_arm=True) == frozenset()


def test_graders_for():
    skill, text, mocks = g("skill", **SKILL), g("text", **TEXT), g("mocks", **MOCKS)
    graders = (skill, text, mocks)
    assert graders_for(graders, "with", two_arm=True) == [(skill, True), (text, False), (mocks, True)]
    assert graders_for(graders, "without", two_arm=True) == [(text, False)]
    assert graders_for(graders, "with", two_arm=False) == [(skill, False), (text, False), (mocks, False)]
    # Fallback: all indicators → all evaluated and scored in both arms.
    only = (skill, mocks)
    assert graders_for(only, "without", two_arm=True) == [(skill, False), (mocks, False)]
    assert graders_for(only, "with", two_arm=True) == [(skill, False), (mocks, False)]


def test_mock_calls_graders_count_in_both_arms_unless_every_mock_shadows_a_plugin_server():
    # A standalone stand-in (or none at all) is served in the without arm too: its calls can happen there.
    mocks, llm = g("mocks", **MOCKS), g("llm-mocks", type="llm", focus="mock_calls", body="Charged once.")
    assert is_indicator(mocks, mock_calls_with_only=False) is False
    assert is_indicator(llm, mock_calls_with_only=False) is False
    assert is_indicator(g("m", **MOCKS, arm="with-only"), mock_calls_with_only=False) is True
    assert is_indicator(g("skill", **SKILL), mock_calls_with_only=False) is True  # Skill is unaffected
    text = g("text", **TEXT)
    graders = (mocks, text)
    assert graders_for(graders, "without", True, mock_calls_with_only=False) == [(mocks, False), (text, False)]
    assert graders_for(graders, "with", True, mock_calls_with_only=False) == [(mocks, False), (text, False)]
    assert graders_for(graders, "without", True, mock_calls_with_only=True) == [(text, False)]


class CallsReader(GraderType):
    """A hook's grader type reading mock calls under its own key: it says so with reads_mock_calls."""

    name = "calls_reader"

    def parse(self, raw, body, case_dir=None):
        return {}

    def with_only_by_default(self, config):
        return True

    def reads_mock_calls(self, config):
        return True

    def grade(self, config, run, ctx=None):
        return Verdict(True, "ok")


def test_a_custom_type_that_reads_mock_calls_follows_the_same_rule():
    spec = parse_grader({"type": "calls_reader"}, "", "r", "evals/case/graders/r.md", {"calls_reader": CallsReader()})
    assert is_indicator(spec, mock_calls_with_only=True) is True
    assert is_indicator(spec, mock_calls_with_only=False) is False
    assert is_indicator(g("boom", type="boom")) is False  # a type that reads no target


def test_graders_for_keeps_case_order():
    graders = (g("b", **TEXT), g("a", **SKILL), g("c", **GLOB))
    assert [s.name for s, _ in graders_for(graders, "without", True)] == ["b", "c"]
    assert [s.name for s, _ in graders_for(graders, "with", True)] == ["b", "a", "c"]


# ---- grade ---------------------------------------------------------------------------------------------------


def test_grade_gives_each_grader_its_verdict_in_order(tmp_path):
    text, missing = g("text", **TEXT), g("missing", type="regex", pattern="nowhere")
    out = engine.grade([(text, False), (missing, False)], output(tmp_path))
    assert [x.spec for x in out] == [text, missing]
    assert [x.verdict.passed for x in out] == [True, False]
    assert all(isinstance(x, Graded) and not x.indicator and x.scored for x in out)


def test_grade_keeps_the_indicator_flag(tmp_path):
    text, skill = g("text", **TEXT), g("skill", **SKILL)
    out = engine.grade(graders_for([text, skill], "with", two_arm=True), output(tmp_path))
    assert [(x.spec.name, x.indicator, x.scored) for x in out] == [("text", False, True), ("skill", True, False)]
    assert out[1].verdict.passed is False  # reported (Skill was not called), but not scored


def test_grader_that_raises_is_a_failed_verdict(tmp_path):
    boom, text = g("boom", type="boom", message="no such file"), g("text", **TEXT)
    out = engine.grade([(boom, False), (text, False)], output(tmp_path))
    verdict = out[0].verdict
    assert verdict == Verdict(False, "grader error: RuntimeError: no such file")
    assert verdict.explanation.startswith("grader error: ")
    # A grader bug fails the grader (it is scored) without losing the run's other verdicts.
    assert out[0].scored is True and not verdict.errored and not verdict.skipped
    assert out[1].verdict.passed is True


def test_paid_graders_are_skipped_once_the_judge_is_not_allowed(tmp_path):
    paid, llm, text = g("paid", type="paid"), g("llm", type="llm", body="Says hello."), g("text", **TEXT)
    out = engine.grade(
        [(paid, False), (text, False), (llm, False)], output(tmp_path), judge=object(), judge_allowed=lambda: False
    )
    skipped = [out[0].verdict, out[2].verdict]
    assert skipped == [Verdict(False, "skipped: cost ceiling", skipped=True)] * 2
    assert all(v.skipped and not v.errored and v.cost_usd == 0.0 for v in skipped)
    assert PAID.calls == []  # never called
    assert out[1].verdict.passed is True  # free graders still run
    assert [x.scored for x in out] == [False, True, False]


def test_judge_allowed_is_asked_for_each_paid_grader_only(tmp_path):
    asked = []

    def judge_allowed() -> bool:
        asked.append(True)
        return True

    first, second, text = g("first", type="paid"), g("second", type="paid"), g("text", **TEXT)
    out = engine.grade(
        [(text, False), (first, False), (text, False), (second, False)],
        output(tmp_path),
        judge="the-judge",
        judge_allowed=judge_allowed,
    )
    assert len(asked) == 2  # never for the free graders
    assert [x.verdict.passed for x in out] == [True, True, True, True]
    assert out[1].verdict.explanation == "judge votes: PASS" and out[1].verdict.cost_usd == 0.01


def test_paid_graders_get_the_run_their_name_and_the_judge(tmp_path):
    paid = g("rubric", type="paid")
    run = output(tmp_path)
    judge = object()
    (graded,) = engine.grade([(paid, False)], run, judge=judge)
    assert graded.verdict.passed and graded.verdict.details == {"judgeModel": "judge-model"}
    assert PAID.calls == [(run, GradeContext("rubric", judge))]


def test_judged_grader_without_a_judge_is_errored_and_not_scored(tmp_path):
    (graded,) = engine.grade([(g("llm", type="llm", body="Says hello."), False)], output(tmp_path))
    assert graded.verdict.errored is True and graded.verdict.passed is False
    assert graded.verdict.explanation.startswith("judge unavailable")
    assert graded.scored is False


@pytest.mark.parametrize(
    "indicator, errored, skipped, scored",
    [
        (False, False, False, True),
        (True, False, False, False),
        (False, True, False, False),
        (False, False, True, False),
        (True, True, True, False),
    ],
)
def test_graded_scored(indicator, errored, skipped, scored):
    spec = g("text", **TEXT)
    graded = Graded(spec, Verdict(False, "x", errored=errored, skipped=skipped), indicator)
    assert graded.scored is scored
    # Whether it passed does not matter.
    assert Graded(spec, Verdict(True, "x", errored=errored, skipped=skipped), indicator).scored is scored


def test_graded_scored_from_a_fixed_verdict(tmp_path):
    ok, err = g("ok", type="fixed", passed=False), g("err", type="fixed", passed=True, errored=True)
    out = engine.grade([(ok, False), (err, False)], output(tmp_path))
    assert [(x.verdict.passed, x.scored) for x in out] == [(False, True), (True, False)]


def test_grade_nothing():
    assert engine.grade([], output=None) == []


# ---- time limits and stopping --------------------------------------------------------------------------------


class Spin(GraderType):
    """Loops forever in Python code (a grader bug), or sleeps in C for `sleep` seconds."""

    name = "spin"
    keys = ("sleep",)

    def parse(self, raw, body, case_dir=None):
        return raw.get("sleep")

    def grade(self, config, run, ctx=None):
        if config is not None:
            time.sleep(config)
            return Verdict(True, "woke up")
        while True:
            pass


KINDS["spin"] = Spin()
CATASTROPHIC = dict(type="regex", pattern="^(a+)+$")
BACKTRACKS = "a" * 41 + "b"


def grader_threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"plugin-eval-grader:{name}"]


def wait_until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_grader_that_loops_forever_is_errored_after_its_limit_and_its_thread_stopped(tmp_path):
    spin, text = g("spin", type="spin"), g("text", **TEXT)
    started = time.monotonic()
    out = engine.grade([(spin, False), (text, False)], output(tmp_path), limit=lambda spec: 0.3)
    assert time.monotonic() - started < 2
    assert out[0].verdict == Verdict(False, "grader timed out after 0.3 s", errored=True)
    assert out[0].scored is False  # left out of the score, like a judge that cannot answer
    assert out[1].verdict.passed is True  # the run's other graders still run
    assert wait_until(lambda: not grader_threads("spin"))  # GraderTimeout stopped the loop


def test_a_grader_blocked_in_c_is_abandoned_as_a_daemon_thread(tmp_path):
    (graded,) = engine.grade([(g("nap", type="spin", sleep=1.0), False)], output(tmp_path), limit=lambda spec: 0.2)
    assert graded.verdict.errored and graded.verdict.explanation == "grader timed out after 0.2 s"
    [thread] = grader_threads("nap")
    assert thread.daemon  # it never keeps the session from exiting
    assert wait_until(lambda: not thread.is_alive())  # and it ends when its call returns


def test_the_default_limits():
    assert engine.time_limit(g("text", **TEXT)) == engine.FREE_GRADER_SECONDS == 60
    assert engine.time_limit(g("llm", type="llm", body="x")) == engine.PAID_GRADER_SECONDS == 600


def test_the_session_stopping_stops_grading_at_once(tmp_path):
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    with pytest.raises(engine.GradingStopped):
        engine.grade([(g("spin", type="spin"), False)], output(tmp_path), stop=stop)
    assert time.monotonic() - started < 1.5
    assert wait_until(lambda: not grader_threads("spin"))
    with pytest.raises(engine.GradingStopped):  # stopped before: nothing is graded
        engine.grade([(g("text", **TEXT), False)], output(tmp_path), stop=stop)


def test_a_catastrophic_regex_is_errored_by_its_cpu_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(ecmaregex, "TIME_LIMIT_SECONDS", 0.3)
    monkeypatch.setattr(ecmaregex, "_idle", [])  # engines made afresh, with the limit
    started = time.monotonic()
    regex, used = g("regex", **CATASTROPHIC), g("used", type="tool_used", tool="Read", input_match="(a+)+$")
    events = [
        {"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": BACKTRACKS}]}},
        {
            "type": "assistant",
            "message": {"id": "m", "content": [{"type": "tool_use", "name": "Read", "input": {"x": BACKTRACKS}}]},
        },
    ]
    run = RunOutput(Transcript("".join(json.dumps(e) + "\n" for e in events)), cwd=tmp_path)
    out = engine.grade([(regex, False), (used, False)], run)
    assert time.monotonic() - started < 10
    assert [x.verdict.errored for x in out] == [True, True]
    assert out[0].verdict.explanation == (
        "/^(a+)+$/ over last_message (42 characters) stopped after 0.3 s of CPU time (the limit) — the pattern most "
        "likely backtracks catastrophically over this text (nested quantifiers such as (a+)+)"
    )
    assert out[1].verdict.explanation.startswith("regular expression stopped after 0.3 s of CPU time")


def test_a_signal_is_handled_in_the_main_thread_while_a_regex_runs(tmp_path, monkeypatch):
    # What Ctrl-C and SIGTERM need: the main thread only waits for the grader, so its signal handler runs at once.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")
    monkeypatch.setattr(ecmaregex, "TIME_LIMIT_SECONDS", 2.0)
    monkeypatch.setattr(ecmaregex, "_idle", [])

    class Signalled(Exception):
        pass

    def handler(signum, frame):
        raise Signalled

    previous = signal.signal(signal.SIGALRM, handler)
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Signalled):
            engine.grade([(g("regex", **CATASTROPHIC), False)], output(tmp_path, BACKTRACKS))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 1.5


def test_a_grader_that_returns_no_verdict_is_a_grader_error(tmp_path):
    class Sloppy(GraderType):
        name = "sloppy"

        def parse(self, raw, body, case_dir=None):
            return None

        def grade(self, config, run, ctx=None):
            return True

    spec = parse_grader({"type": "sloppy"}, "", "sloppy", "x", {"sloppy": Sloppy()})
    (graded,) = engine.grade([(spec, False)], output(tmp_path))
    assert graded.verdict == Verdict(False, "grader error: grade() returned bool, not a Verdict")
