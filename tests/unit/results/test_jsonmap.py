"""Unit tests for the JSON mapping the results model is declared with (pytest_plugin_eval.results.jsonmap): a new
document type needs only its fields' metadata — key order, omission, defaults for absent keys, nested documents
and unknown keys follow."""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import pytest

from pytest_plugin_eval.results.jsonmap import EXTRA, Document, SameAs, key, present, spliced


@dataclass
class Probe(Document):
    query: str = field(metadata=key("query"))
    label: str = field(metadata=key("label", missing=SameAs("query")))
    _: KW_ONLY
    fired: bool = field(default=False, metadata=key("fired"))
    rate: float | None = field(default=None, metadata=key("rate", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)
    tags: tuple[str, ...] = field(default=(), metadata=key("tags", omit="falsy"))


@dataclass
class Batch(Document):
    name: str = field(metadata=key("name"))
    _: KW_ONLY
    paired: bool = field(default=False, metadata=present("delta"))
    delta: float | None = field(default=None, metadata=key("delta", when="paired"))
    by_k: dict[int, float] | None = field(default=None, metadata=key("byK", omit="none"))
    probes: list[Probe] = field(default_factory=list, metadata=key("probes", omit="falsy"))
    seconds: float = field(default=0.0, metadata=key("seconds", write=lambda s: round(s, 1)))
    local: list[str] = field(default_factory=list)  # no metadata: not in the document


def test_keys_come_in_field_order_and_unknown_keys_where_the_extra_field_stands():
    probe = Probe("hi", "greeting", fired=True, rate=0.5, extra={"later": 1}, tags=("a",))
    assert json.dumps(probe.to_json()) == json.dumps(
        {"query": "hi", "label": "greeting", "fired": True, "rate": 0.5, "later": 1, "tags": ["a"]}
    )


def test_omitted_values_and_absent_keys():
    assert Probe("hi", "hi").to_json() == {"query": "hi", "label": "hi", "fired": False}
    read = Probe.from_json({"query": "hi", "fired": 1})
    assert read == Probe("hi", "hi", fired=True)  # label: the same as query; fired: a bool
    with pytest.raises(KeyError, match="query"):
        Probe.from_json({"label": "x"})


def test_unknown_keys_are_kept_and_written_back():
    doc = {"query": "q", "label": "l", "fired": False, "new": [1], "tags": ["t"]}
    probe = Probe.from_json(doc)
    assert probe.extra == {"new": [1]} and probe.tags == ("t",)
    assert json.dumps(probe.to_json()) == json.dumps(doc)


def test_nested_documents_presence_and_conditional_keys():
    batch = Batch("b", paired=True, delta=0.25, by_k={1: 0.5}, probes=[Probe("q", "l")], seconds=1.04, local=["x"])
    out = batch.to_json()
    assert out == {
        "name": "b",
        "delta": 0.25,
        "byK": {"1": 0.5},
        "probes": [{"query": "q", "label": "l", "fired": False}],
        "seconds": 1.0,
    }
    again = Batch.from_json(json.loads(json.dumps(out)))
    assert again == Batch("b", paired=True, delta=0.25, by_k={1: 0.5}, probes=[Probe("q", "l")], seconds=1.0)
    single = Batch("b", delta=0.25)
    assert "delta" not in single.to_json() and not Batch.from_json(single.to_json()).paired


def test_absent_or_null_collections_read_as_empty():
    assert Batch.from_json({"name": "b", "probes": None}).probes == []
    assert Batch.from_json({"name": "b", "byK": None}).by_k is None


# ---- problems: the check before reading -------------------------------------------------------------------------


def test_problems_name_the_path_of_each_bad_value():
    from pytest_plugin_eval.results.jsonmap import problems
    from pytest_plugin_eval.results.model import SuiteResult

    data = {
        "suite": {"plugins": "one"},
        "cases": [
            {"name": "a", "arms": {"with": [{"index": 1, "score": "high"}], "sideways": []}},
            {"arms": {}},
            "case",
        ],
        "aggregates": {"casesTotal": "two"},
    }
    assert problems(SuiteResult, data) == [
        "suite.plugins: must be a list (got a string)",
        "cases[0].arms.with[0].score: must be a number (got a string)",
        "cases[0].arms: 'sideways' is not one of with, without, against, ablate:<component>",
        "cases[1].name: missing",
        "cases[2]: must be an object (got a string)",
        "aggregates.casesTotal: must be a number (got a string)",
    ]


def test_problems_are_as_lenient_as_the_reader():
    from pytest_plugin_eval.results.jsonmap import problems
    from pytest_plugin_eval.results.model import SuiteResult

    # absent optional keys, nulls where allowed, a missing run index (its position), odd scalars shown as text
    data = {"startedAt": 5, "cases": [{"name": "a", "arms": {"with": [{"score": None}]}, "effectiveModel": 7}]}
    assert problems(SuiteResult, data) == []
    assert SuiteResult.from_json(data).cases[0].arms["with"][0].index == 1


@dataclass(frozen=True)
class Vote(Document):
    side: str = field(metadata=key("side"))


@dataclass(frozen=True)
class Tallied(Document):
    name: str = field(metadata=key("name"))
    _counts: None = field(
        default=None,
        init=False,
        compare=False,
        metadata=spliced(lambda t: {"asked": len(t.votes), "forNew": sum(v.side == "new" for v in t.votes)}),
    )
    votes: tuple[Vote, ...] = field(default=(), metadata=key("votes"))


def test_a_spliced_field_writes_its_keys_in_place_and_they_are_never_read():
    made = Tallied("a", (Vote("new"), Vote("old")))
    written = made.to_json()
    assert list(written.items()) == [
        ("name", "a"),
        ("asked", 2),
        ("forNew", 1),
        ("votes", [{"side": "new"}, {"side": "old"}]),
    ]
    read = Tallied.from_json(written | {"asked": 99})
    assert read == made and read.to_json() == written  # the counts come from the votes, not from the document


def test_a_tuple_of_documents_reads_back_as_documents():
    assert Tallied.from_json({"name": "b", "votes": [{"side": "old"}]}).votes == (Vote("old"),)
    assert Tallied.from_json({"name": "b"}).votes == ()


@dataclass
class MaybeBatch(Document):
    probes: list[Probe] | None = field(default=None, metadata=key("probes", omit="none"))


def test_an_optional_list_of_documents_reads_as_documents():
    """calibrate --json's controls (a list that is absent without --controls) read back as dicts, not answers."""
    read = MaybeBatch.from_json({"probes": [{"query": "a"}]})
    assert (
        read.probes is not None
        and isinstance(read.probes[0], Probe)
        and read.to_json() == {"probes": [{"query": "a", "label": "a", "fired": False}]}
    )
    assert MaybeBatch.from_json({}).probes is None and MaybeBatch.from_json({"probes": None}).probes is None
