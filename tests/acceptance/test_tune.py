"""`plugin-eval tune` end to end, through the real Claude Code against the scripted endpoint: the scripted trigger
model fires by words of the description, the scripted proposer answers from tune.scripted.yaml. A better
description proven on held-out queries (and applied), an overfitted one rejected on validation, a flat signal that
keeps the original, a thief caught by its sibling's set, and the cost ceiling that stops the loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from pytest_plugin_eval.tune.rules import Labelled, split

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
N = 6  # per label: the smallest set tune splits (2 train, 2 validation, 2 test each)
BETTER = "Writes salutations for letters and emails. Use when the user asks for a salutation."


def tune(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    argv = [*PLUGIN_EVAL, "tune", "greet", ".", "--trust-plugin", "--scripted", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900, env=dict(os.environ))


def trigger_set(suite, fire_rule, miss_rule, extra: dict | None = None) -> None:
    """N should-fire queries f0… and N near-misses m0…, answered by the given scripted rules (a rule per index)."""
    fire = [
        {"query": f"Write the opening line of letter {i} to my aunt", "id": f"f{i}", "scripted": fire_rule(i)}
        for i in range(N)
    ]
    miss = [
        {"query": f"Translate sentence {i} of my essay into French", "id": f"m{i}", "scripted": miss_rule(i)}
        for i in range(N)
    ]
    skills = {"greet": {"should_fire": fire, "should_not_fire": miss}, **(extra or {})}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 1, "skills": skills}, sort_keys=False))


def proposer(suite, *replies: str) -> None:
    data = {"proposer": [f"<description>{r}</description>" for r in replies]}
    (suite.root / "evals" / "tune.scripted.yaml").write_text(yaml.safe_dump(data))


def doc_of(done: subprocess.CompletedProcess, out: Path) -> dict:
    assert (out / "tune.json").exists(), done.stdout + done.stderr
    return json.loads((out / "tune.json").read_text())


def words(word):
    return lambda i: {"description_has": [word]}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_a_better_description_is_proven_on_held_out_queries_and_applied(suite):
    # The original ("Greets …") fires on the near-misses and not on the requests for a salutation; the proposer's
    # first reply is refused (no tags), its second is asked again and is better on every query.
    trigger_set(suite, words("salutation"), words("greets"))
    (suite.root / "evals" / "tune.scripted.yaml").write_text(
        yaml.safe_dump({"proposer": ["Here you go: " + BETTER, f"<description>{BETTER}</description>"]})
    )
    skill_md = suite.root / "skills" / "greet" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: greet\n", "name: greet  # the skill\n"))
    git(suite.root, "init", "-q")
    git(suite.root, "add", "-A")
    git(suite.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    out = suite.root / "tune-out"
    done = tune(suite.root, "--rounds", "1", "--candidates", "1", "--output-dir", str(out), "--apply")
    assert done.returncode == 0, done.stdout + done.stderr
    doc = doc_of(done, out)
    assert doc["outcome"] == "improved" and doc["winner"] == 0
    candidate = doc["candidates"][0]
    assert candidate["description"] == BETTER
    assert candidate["rejectedReplies"] == ["the reply holds no <description>…</description>"]
    assert candidate["vsOriginal"]["better"] and candidate["vsOriginal"]["interval"][0] > 0
    assert doc["original"]["test"]["right"] == 0 and doc["winnerTest"]["right"] == 4  # scored once, held out
    assert doc["testMargin"]["margin"] == 1.0
    assert doc["cost"]["agentRuns"] == 8 + 8 + 4 + 4 and doc["cost"]["proposerCalls"] == 2
    assert doc["cost"]["spentUsd"] > 0
    assert "a better description" in done.stdout and "test (scored once)" in done.stdout
    assert f"description: {BETTER}" in (out / "SKILL.md").read_text()
    page = (out / "tune.html").read_text()
    assert "<ins>" in page and "<del>Greets" in page and "f0" in page
    # --apply: the frontmatter's description only; the comment and the body as they were
    text = skill_md.read_text()
    assert f"description: {BETTER}\n" in text and "name: greet  # the skill\n" in text
    assert text.endswith('Reply with a warm greeting that starts with "Hello from the plugin".\n')


def test_apply_refuses_a_dirty_tree_before_any_run(suite):
    trigger_set(suite, words("salutation"), words("greets"))
    proposer(suite, BETTER)
    git(suite.root, "init", "-q")
    done = tune(suite.root, "--apply")  # nothing committed: every file is uncommitted
    assert done.returncode == 1
    assert "--apply" in done.stderr and "uncommitted changes" in done.stderr and "--force" in done.stderr
    assert not (suite.root / "evals" / "results").exists()


def test_an_overfitted_candidate_is_rejected_on_validation(suite):
    # Each should-fire query fires on its own word only. The candidate names the words of the train queries:
    # perfect on train, no better on the validation queries it never saw — the original stays.
    ids = [Labelled(f"f{i}", True) for i in range(N)] + [Labelled(f"m{i}", False) for i in range(N)]
    train = [q for q in split(ids, seed=0).train if q.startswith("f")]
    trigger_set(suite, lambda i: {"description_has": [f"word{i}x"]}, lambda i: "none")
    proposer(suite, "Use for " + ", ".join(f"word{q[1:]}x" for q in train) + ".")
    out = suite.root / "tune-out"
    done = tune(suite.root, "--rounds", "2", "--candidates", "1", "--output-dir", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    doc = doc_of(done, out)
    candidate = doc["candidates"][0]
    assert candidate["train"]["score"] == 1.0 and doc["stop"] == "train is perfect after round 1"
    assert candidate["vsOriginal"]["margin"] == 0.0 and not candidate["vsOriginal"]["better"]
    assert doc["outcome"] == "nothing_better" and doc["winner"] is None and doc["winnerTest"] is None
    assert doc["original"]["test"] is not None  # the original is still scored on test
    assert not (out / "SKILL.md").exists()
    assert "nothing better" in done.stdout


def test_a_flat_signal_keeps_the_original_and_says_what_it_means(suite):
    trigger_set(suite, lambda i: "none", lambda i: "none")  # nothing fires, whatever the description
    proposer(suite, BETTER)
    out = suite.root / "tune-out"
    done = tune(suite.root, "--rounds", "3", "--candidates", "1", "--output-dir", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    doc = doc_of(done, out)
    assert doc["outcome"] == "flat" and doc["stop"] == "nothing improved on train in round 1"
    assert len(doc["candidates"]) == 1
    assert "flat signal" in done.stdout and "does not move Claude" in done.stdout


def test_a_candidate_that_steals_a_siblings_queries_is_rejected(suite):
    # The candidate is better for greet, but with it Claude takes farewell's own queries for greet.
    (suite.root / "skills" / "farewell").mkdir()
    (suite.root / "skills" / "farewell" / "SKILL.md").write_text(
        "---\nname: farewell\ndescription: Says goodbye warmly.\n---\nSay goodbye.\n"
    )
    steal = {"description_has": ["emails"], "of": "greet", "then": "greet", "else": "fire"}
    farewell = {"should_fire": [{"query": "Sign off my email to the team", "id": "bye", "scripted": steal}]}
    trigger_set(suite, words("salutation"), words("greets"), extra={"farewell": farewell})
    proposer(suite, BETTER)
    out = suite.root / "tune-out"
    done = tune(suite.root, "--rounds", "1", "--candidates", "1", "--output-dir", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    doc = doc_of(done, out)
    assert doc["candidates"][0]["vsOriginal"]["better"]
    assert doc["siblings"] == [{"skill": "greeter:farewell", "queries": 1, "stolen": ["bye"]}]
    assert doc["outcome"] == "thief" and doc["winner"] is None
    assert "takes 1 of its 1 should-fire queries" in done.stdout


def test_the_cost_ceiling_stops_the_loop(suite):
    trigger_set(suite, words("salutation"), words("greets"))
    proposer(suite, BETTER)
    out = suite.root / "tune-out"
    done = tune(suite.root, "--max-cost-usd", "0.002", "--output-dir", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    doc = doc_of(done, out)
    assert doc["outcome"] == "stopped" and "cost ceiling" in doc["stop"]
    assert doc["cost"]["proposerCalls"] == 0 and doc["candidates"] == []
    assert doc["cost"]["agentRuns"] < 8  # the original's measurement was cut short
    assert "estimate: at most" in done.stdout and "ceiling $0.00" in done.stdout
    assert "\n  runs = (" in done.stdout and " proposer calls × $" in done.stdout  # the arithmetic, shown
    assert "stopped before the end" in done.stdout
