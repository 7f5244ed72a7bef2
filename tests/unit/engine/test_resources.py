"""The session's lazily made resources (pytest_plugin_eval.engine.resources): each made once whichever thread asks
first, a failed making tried again, one resource's slow making holding up only those waiting for it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.core.run_id import RunId
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.engine.resources import Lazy, Resources


def test_a_value_is_made_once_for_every_thread_that_asks():
    made = []
    gate = threading.Event()

    def make():
        gate.wait(5)
        made.append(object())
        return made[-1]

    lazy = Lazy(make)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(lazy.get())) for _ in range(8)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(5)
    assert len(made) == 1
    assert got == made * 8


def test_a_making_that_raises_makes_nothing_and_is_tried_again():
    calls = []

    def make():
        calls.append(1)
        if len(calls) == 1:
            raise LookupError("not yet")
        return "there"

    lazy = Lazy(make)
    with pytest.raises(LookupError):
        lazy.get()
    assert lazy.made is None
    assert lazy.get() == "there"
    assert lazy.made == "there"
    assert len(calls) == 2


def test_none_is_a_value_made_once():
    calls = []
    lazy = Lazy(lambda: calls.append(1))  # returns None
    assert lazy.get() is None and lazy.get() is None
    assert calls == [1]


def test_resources_have_a_lock_each():
    """Making one resource (here the scripted endpoint, stood in for) does not wait for another being made."""
    resources = Resources(EvalOptions(), {}, is_worker=False)
    started, release = threading.Event(), threading.Event()

    def slow_endpoint():
        started.set()
        release.wait(5)
        return SimpleNamespace(stop=lambda: None)

    resources.endpoint = Lazy(slow_endpoint)
    resources.claude = Lazy(lambda: "claude")
    starting = threading.Thread(target=resources.endpoint.get)
    starting.start()
    assert started.wait(5)
    try:
        assert resources.claude.get() == "claude"  # the endpoint is still being made
    finally:
        release.set()
        starting.join(5)


def test_without_a_cost_ceiling_there_is_no_ledger_and_no_scratch_folder_is_made():
    resources = Resources(EvalOptions(), {}, is_worker=False)
    assert resources.ledger.get() is None
    assert resources.scratch.made is None
    resources.close()


def test_the_scripted_judges_share_one_connection_pool_that_closing_the_session_closes():
    from pytest_plugin_eval.engine.endpoints import ModelCalls
    from pytest_plugin_eval.load.script import parse_script

    resources = Resources(EvalOptions(scripted=True), {}, is_worker=False)
    script = parse_script({"judge": {"a": ["PASS"], "b": ["FAIL"]}}, "evals/c/scripted.yaml")
    judge = ModelCalls(EvalOptions(scripted=True), resources).make_judge(script, RunId("case", "with", 1))
    a, b = judge.client_for("a"), judge.client_for("b")
    ask = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "verdict?"}]}
    assert [a.messages.create(**ask).content[0].text, b.messages.create(**ask).content[0].text] == ["PASS", "FAIL"]
    pool = resources.scripted_judge_client.get()
    assert a._client is b._client is pool._client  # no client of its own per grader and run, left to the collector
    resources.close()
    assert pool.is_closed()


def test_a_runs_scripted_routes_carry_its_arm_and_index_an_ablation_answered_as_the_with_arm():
    from pytest_plugin_eval.engine.endpoints import ModelCalls

    resources = Resources(EvalOptions(scripted=True), {}, is_worker=False)
    calls, endpoint = ModelCalls(EvalOptions(scripted=True), resources), resources.endpoint.get()
    url = calls.scripted_url(None, "hello", RunId("case", "ablate:hooks", 3), agent_model="haiku")
    assert url is not None
    route = endpoint._routes[url("/ws").rsplit("/s/", 1)[-1]]
    assert (route.arm, route.run, route.cwd, route.model) == ("with", 3, "/ws", "haiku")
    resources.close()
