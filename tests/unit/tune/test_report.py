"""The report of `plugin-eval tune` (tune/report.py, tune/result.py): scores with intervals, the grid,
each candidate's diff against the original, the cost."""

from __future__ import annotations

import json

from pytest_plugin_eval.tune.report import html_page, terminal
from pytest_plugin_eval.tune.result import Candidate, Cost, Original, SiblingCheck, TuneResult, scored
from pytest_plugin_eval.tune.rules import paired

LABELS = {"f0": True, "f1": True, "m0": False, "m1": False}
PARTS = {"f0": "train", "m0": "train", "f1": "validation", "m1": "validation"}


def result() -> TuneResult:
    queries = {q: {"query": f"text of {q}", "shouldFire": LABELS[q], "part": PARTS[q]} for q in LABELS}
    r = TuneResult(
        "g:greet",
        "greet",
        "evals/triggers.yaml",
        0,
        queries=queries,
        original=Original("Greets the user warmly."),
        cost=Cost(2.5, 40, 1.0),
    )
    r.original.train = scored({"f0": 0.0, "m0": 1.0}, LABELS, ["f0", "m0"])
    r.original.validation = scored({"f1": 0.2, "m1": 0.6}, LABELS, ["f1", "m1"])
    c = Candidate(1, "Writes salutations warmly.", rejected=["the reply holds no <description>…</description>"])
    c.train = scored({"f0": 1.0, "m0": 0.0}, LABELS, ["f0", "m0"])
    c.validation = scored({"f1": 1.0}, LABELS, ["f1", "m1"])  # m1 decided nothing
    c.vs_original = paired(c.validation.rates, r.original.validation.rates, LABELS)
    r.candidates, r.winner, r.outcome, r.stop = [c], 0, "improved", "train is perfect after round 1"
    r.siblings = [SiblingCheck("g:bye", 2, [])]
    r.cost.spent_usd, r.cost.agent_runs, r.cost.proposer_calls = 0.25, 12, 2
    return r


def test_scored_counts_the_right_side_with_an_interval():
    s = scored({"f0": 0.8, "m0": 0.6, "f1": 0.5}, LABELS, ["f0", "m0", "f1", "m1"])
    assert (s.right, s.total) == (1, 3)  # m1 unmeasured; 0.5 is not the right side
    assert abs(s.score - (0.8 + 0.4 + 0.5) / 3) < 1e-9 and 0 < s.interval[0] < s.interval[1] < 1


def test_terminal_says_scores_margin_outcome_and_cost():
    text = terminal(result())
    assert "original     train 0/2 right [0.00, 0.66]" in text
    assert "★ r1 #1" in text and "Δ validation +0.80" in text
    assert "sibling g:bye: keeps its queries" in text
    assert "→ a better description" in text
    assert "spent $0.2500 of a $1.00 ceiling (estimate $2.50): 12 trigger runs, 2 proposer call(s)" in text


def test_page_has_the_grid_the_diff_and_the_rejected_reply():
    page = html_page(result())
    assert page.count('<tr><td class="part">') == 4
    assert '<td class="ok" title="fire rate 1.00">1.00</td>' in page and '<td class="none">·</td>' in page
    assert "<del>Greets the user</del> <ins>Writes salutations</ins> warmly." in page
    assert "rejected reply: the reply holds no &lt;description&gt;" in page


def test_document_is_json():
    doc = json.loads(json.dumps(result().to_json()))
    assert doc["outcome"] == "improved" and doc["winner"] == 0
    assert doc["candidates"][0]["vsOriginal"] == {
        "margin": 0.8,
        "interval": [-0.9798, 1.0],
        "queries": 1,
        "better": False,
    }
    assert doc["original"]["validation"]["interval"][0] >= 0 and doc["cost"]["ceilingUsd"] == 1.0
