"""A run's judges at the same time (grade/parallel.py, grade/engine.py): verdicts in grader order whatever order the
judges end in, a stop while several are in flight, the time limit of one of several, the cost ceiling."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from pytest_plugin_eval.grade import engine
from pytest_plugin_eval.grade.base import GraderType, Verdict
from pytest_plugin_eval.grade.parallel import Beside
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.graders import GraderSpec, parse_grader
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript


class Held(GraderType):
    """A paid grader that says it began, then answers once the test lets it (or never: `hang`)."""

    name = "held"
    paid = True
    keys = ("hang",)

    def __init__(self) -> None:
        self.began: list[str] = []
        self.ended: list[str] = []
        self.release: dict[str, threading.Event] = {}
        self.lock = threading.Lock()

    def reset(self) -> None:
        for event in self.release.values():
            event.set()  # no thread of a test outlives it waiting
        self.began, self.ended, self.release = [], [], {}

    def gate(self, name: str) -> threading.Event:
        with self.lock:
            return self.release.setdefault(name, threading.Event())

    def parse(self, raw, body, case_dir=None):
        return {"hang": bool(raw.get("hang"))}

    def grade(self, config, run, ctx=None):
        name = ctx.grader
        with self.lock:
            self.began.append(name)
        self.gate(name).wait(60 if config["hang"] else 10)
        with self.lock:
            self.ended.append(name)
        return Verdict(True, f"judge votes: PASS ({name})", cost_usd=0.01)


HELD = Held()
KINDS = {**grader_types(), "held": HELD}


@pytest.fixture(autouse=True)
def _fresh():
    HELD.reset()
    yield
    HELD.reset()


def g(name: str, **raw) -> GraderSpec:
    return parse_grader({"type": "held", **raw}, "", name, f"evals/case/graders/{name}.md", KINDS)


def text_grader(name: str = "text") -> GraderSpec:
    return parse_grader({"type": "regex", "pattern": "done"}, "", name, f"evals/case/graders/{name}.md", KINDS)


def output(tmp_path: Path) -> RunOutput:
    events = [
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "all done"}]}},
        {"type": "result", "subtype": "success", "num_turns": 1, "result": "all done"},
    ]
    return RunOutput(Transcript("".join(json.dumps(e) + "\n" for e in events)), cwd=tmp_path, arm="with")


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def grade_beside(*args, **kwargs) -> tuple[threading.Thread, dict]:
    """engine.grade in a thread of its own, so the test can watch the judges while they are in flight."""
    box: dict = {}

    def target() -> None:
        try:
            box["out"] = engine.grade(*args, **kwargs)
        except BaseException as e:
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box


def test_a_runs_judges_are_in_flight_together_and_their_verdicts_come_in_grader_order(tmp_path):
    graders = [(g("a"), False), (text_grader(), False), (g("b"), False), (g("c"), True)]
    thread, box = grade_beside(graders, output(tmp_path), judge="j", gate=threading.BoundedSemaphore(8))
    assert wait_until(lambda: sorted(HELD.began) == ["a", "b", "c"])  # all three begun, none ended
    assert HELD.ended == []
    for name in ("c", "b", "a"):  # they end in the reverse order
        HELD.gate(name).set()
        assert wait_until(lambda name=name: name in HELD.ended)
    thread.join(10)
    assert HELD.ended == ["c", "b", "a"]
    out = box["out"]
    assert [(x.spec.name, x.indicator) for x in out] == [("a", False), ("text", False), ("b", False), ("c", True)]
    assert [x.verdict.explanation for x in out] == [
        "judge votes: PASS (a)",
        out[1].verdict.explanation,
        "judge votes: PASS (b)",
        "judge votes: PASS (c)",
    ]
    assert out[1].verdict.passed  # the free grader, graded beside them


def test_no_more_judges_begin_at_once_than_the_gate_lets(tmp_path):
    gate = threading.BoundedSemaphore(2)
    graders = [(g(name), False) for name in ("a", "b", "c")]
    thread, box = grade_beside(graders, output(tmp_path), judge="j", gate=gate)
    assert wait_until(lambda: len(HELD.began) == 2)
    first_two = list(HELD.began)
    time.sleep(0.3)  # room for a third to begin, which it must not
    assert HELD.began == first_two
    HELD.gate(first_two[0]).set()
    assert wait_until(lambda: len(HELD.began) == 3)  # it begins once one of them has ended
    for name in ("a", "b", "c"):
        HELD.gate(name).set()
    thread.join(10)
    assert [x.verdict.passed for x in box["out"]] == [True, True, True]


def test_the_session_stopping_stops_judges_in_flight_at_once_and_begins_no_other(tmp_path):
    stop = threading.Event()
    gate = threading.BoundedSemaphore(2)
    graders = [(g(name, hang=True), False) for name in ("a", "b", "c")]
    thread, box = grade_beside(graders, output(tmp_path), judge="j", stop=stop, gate=gate)
    assert wait_until(lambda: len(HELD.began) == 2)
    stop.set()
    thread.join(10)
    assert not thread.is_alive()
    assert isinstance(box.get("error"), engine.GradingStopped)
    assert gate.acquire(timeout=5) and gate.acquire(timeout=5)  # both slots freed
    time.sleep(0.3)
    assert len(HELD.began) == 2  # the third, waiting for the gate, never began


def test_one_judge_that_hangs_is_errored_at_its_time_limit_while_the_others_answer(tmp_path):
    # Fault injection: one judge never answers; the others answer as soon as they are asked.
    hung, quick, text = g("hung", hang=True), g("quick"), text_grader()
    HELD.gate("quick").set()
    limits = {"hung": 0.5, "quick": 30.0, "text": 30.0}
    out = engine.grade(
        [(hung, False), (quick, False), (text, False)],
        output(tmp_path),
        judge="j",
        limit=lambda spec: limits[spec.name],
        gate=threading.BoundedSemaphore(8),
    )
    assert out[0].verdict == Verdict(False, "grader timed out after 0.5 s", errored=True)
    assert out[0].scored is False
    assert out[1].verdict == Verdict(True, "judge votes: PASS (quick)", cost_usd=0.01)
    assert out[2].verdict.passed
    assert HELD.ended == ["quick"]


def test_a_judge_skipped_for_the_cost_ceiling_was_never_begun_nor_paid_for(tmp_path):
    # The ceiling is reached while one judge is in flight: the judge waiting for room is skipped, not paid for.
    spent = {"usd": 0.0}

    class Spends(Held):
        def grade(self, config, run, ctx=None):
            spent["usd"] += 1.0  # what the first judge to begin costs, known as it begins
            return super().grade(config, run, ctx)

    spends = Spends()
    kinds = {**KINDS, "held": spends}
    graders = [
        (parse_grader({"type": "held"}, "", name, f"evals/case/graders/{name}.md", kinds), False) for name in "ab"
    ]
    gate = threading.BoundedSemaphore(1)
    thread, box = grade_beside(
        graders, output(tmp_path), judge="j", judge_allowed=lambda: spent["usd"] < 1.0, gate=gate
    )
    try:
        assert wait_until(lambda: len(spends.began) == 1)
        [first] = spends.began
        spends.gate(first).set()
        thread.join(10)
        began = list(spends.began)
    finally:
        spends.reset()
    out = {x.spec.name: x for x in box["out"]}
    assert [x.spec.name for x in box["out"]] == ["a", "b"]
    assert out[first].verdict.passed and out[first].verdict.cost_usd == 0.01
    [other] = [n for n in "ab" if n != first]
    assert out[other].verdict == Verdict(False, "skipped: cost ceiling", skipped=True)
    assert out[other].verdict.cost_usd == 0.0 and began == [first]


def test_a_ceiling_already_reached_skips_every_judge_and_grades_the_free_graders(tmp_path):
    out = engine.grade(
        [(g("a"), False), (text_grader(), False), (g("b"), False)],
        output(tmp_path),
        judge="j",
        judge_allowed=lambda: False,
    )
    assert [x.verdict.skipped for x in out] == [True, False, True]
    assert out[1].verdict.passed and HELD.began == []


def test_turn_every_judges_each_turn_in_its_own_grader_beside_the_others(tmp_path):
    events = []
    for n in (1, 2):
        events += [
            {"type": "user", "isReplay": True, "message": {"role": "user", "content": f"ask {n}"}},
            {"type": "assistant", "message": {"id": f"m{n}", "content": [{"type": "text", "text": f"done {n}"}]}},
        ]
    events.append({"type": "result", "subtype": "success", "num_turns": 2, "result": "done 2"})
    run = RunOutput(Transcript("".join(json.dumps(e) + "\n" for e in events)), cwd=tmp_path, arm="with")
    HELD.gate("every").set()
    HELD.gate("single").set()
    out = engine.grade(
        [(g("every", turn="every"), False), (g("single"), False)],
        run,
        judge="j",
        gate=threading.BoundedSemaphore(8),
    )
    assert [x.spec.name for x in out] == ["every", "single"]
    assert out[0].verdict.passed and out[0].verdict.explanation.startswith("every turn (2) passed")
    assert HELD.began.count("every") == 2 and out[0].verdict.cost_usd == pytest.approx(0.02)
    assert out[1].verdict.passed


def test_beside_hands_back_what_the_job_raised():
    pending = Beside(lambda: 1 / 0, "test-beside", None, threading.BoundedSemaphore(1))
    assert pending.wait() is True
    with pytest.raises(ZeroDivisionError):
        pending.value()


def test_beside_begins_nothing_once_the_session_is_stopping():
    stop, began = threading.Event(), []
    stop.set()
    pending = Beside(lambda: began.append(1), "test-beside", stop, threading.BoundedSemaphore(1))
    assert pending.wait() is False
    time.sleep(0.1)
    assert began == []
