"""--against and --ablate through the real binary and the scripted endpoint (issue 38 items 1, 2 and 4): another
version of the plugin, or the plugin minus one component, as arms of the same session — same prompts, runs and
graders — read against the with arm in the document, the table and the exit status."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import yaml
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, Suite

WAVE = """---
name: wave
description: Waves goodbye. Use when the user says goodbye.
---
Wave.
"""


def init_event(run: dict) -> dict:
    with open(run["tracePath"]) as trace:
        for line in trace:
            event = json.loads(line)
            if event.get("type") == "system" and event.get("subtype") == "init":
                return event
    raise AssertionError(f"no init event in {run['tracePath']}")


def skills_seen(run: dict) -> set[str]:
    return {s for s in init_event(run).get("skills") or [] if s.startswith("greeter:")}


def plugin_paths(run: dict) -> list[str]:
    return [p["path"] for p in init_event(run).get("plugins") or [] if p.get("name") == "greeter"]


def git(where: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True, capture_output=True
    )


def test_against_a_folder_holding_the_same_plugin_gives_delta_zero_with_an_interval_around_it(suite: Suite):
    suite.case("greets", frontmatter={"runs": 3}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    run = suite.run("--against", str(old), "--md", "summary.md")
    assert run.rc == 0, run.out
    case = run.case("greets")
    assert list(case["arms"]) == ["with", "without", "against"]
    assert [r["score"] for r in case["arms"]["against"]] == [1.0, 1.0, 1.0]
    against = case["aggregates"]["deltaAgainst"]
    assert (against["score"], against["delta"], against["pairs"]) == (1.0, 0.0, 3)
    low, high = against["deltaCI"]
    assert low < 0 < high
    assert run.doc is not None and run.doc["aggregates"]["deltaAgainst"]["delta"] == 0.0
    assert case["aggregates"]["delta"] == 1.0  # the without arm is still there, shared
    # the against arm loaded a copy of the other folder (without its evals), never the plugin under test
    copies = {path for r in case["arms"]["against"] for path in plugin_paths(r)}
    assert len(copies) == 1 and str(suite.root) not in copies
    assert "greets[against-1]" in run.out
    assert "ΔAGAINST" in run.out
    assert "ΔAGAINST" in (suite.root / "summary.md").read_text()


def test_against_a_git_revision_runs_the_committed_version(suite: Suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    git(suite.root, "init", "-q")
    git(suite.root, "add", "-A")
    git(suite.root, "commit", "-qm", "v1")
    (suite.root / "skills" / "wave").mkdir()
    (suite.root / "skills" / "wave" / "SKILL.md").write_text(WAVE)  # the edit: a second skill, not committed
    run = suite.run("--against", "HEAD", "--ablation", "none")
    assert run.rc == 0, run.out
    case = run.case("greets")
    assert list(case["arms"]) == ["with", "against"]
    assert {frozenset(skills_seen(r)) for r in case["arms"]["with"]} == {frozenset({"greeter:greet", "greeter:wave"})}
    assert {frozenset(skills_seen(r)) for r in case["arms"]["against"]} == {frozenset({"greeter:greet"})}
    assert case["aggregates"]["deltaAgainst"]["delta"] == 0.0


def test_against_an_unknown_revision_stops_before_any_run(suite: Suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    git(suite.root, "init", "-q")
    run = suite.run("--against", "no-such-rev")
    assert run.rc == 1
    assert "--against no-such-rev: not a folder, nor a revision of the git repository" in run.out + run.err


def test_fail_on_worse_fails_a_session_whose_edit_made_a_case_worse(suite: Suite):
    script = {**GREETING_SCRIPT, "with": [{"text": "Hi."}], "against": GREETING_SCRIPT["with"]}
    suite.case("greets", frontmatter={"runs": 5}, graders={"greeting": GREETING_GRADERS["greeting"]}, script=script)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    passing = suite.run("--against", str(old), "--threshold", "0", "-vv")
    assert passing.rc == 0, passing.out
    # -vv: what each version spent, then → now, beside with / without
    lines = passing.out.splitlines()
    start = lines.index("efficiency (median per run: with / without, Δ; then → now: against → with)")
    spent = passing.case("greets")["aggregates"]["efficiency"]["turns"]["medians"]
    assert f"turns {spent['with']:.0f} / {spent['without']:.0f} " in lines[start + 1]
    assert f"; {spent['against']:.0f} → {spent['with']:.0f} · " in lines[start + 1]
    against = passing.case("greets")["aggregates"]["deltaAgainst"]
    assert against["delta"] == -1.0 and against["deltaCI"][1] < 0
    failing = suite.run("--against", str(old), "--threshold", "0", "--fail-on-worse")
    assert failing.rc == 1, failing.out
    assert "worse than --against" in failing.out


def test_ablating_one_of_two_skills_leaves_its_runs_only_the_other(suite: Suite):
    (suite.root / "skills" / "wave").mkdir()
    (suite.root / "skills" / "wave" / "SKILL.md").write_text(WAVE)
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("--ablate", "wave,greet", "--threshold", "0")
    assert run.rc == 0, run.out
    case = run.case("greets")
    assert list(case["arms"]) == ["with", "without", "ablate:greet", "ablate:wave"]
    assert {frozenset(skills_seen(r)) for r in case["arms"]["ablate:wave"]} == {frozenset({"greeter:greet"})}
    assert {frozenset(skills_seen(r)) for r in case["arms"]["ablate:greet"]} == {frozenset({"greeter:wave"})}
    assert {frozenset(skills_seen(r)) for r in case["arms"]["with"]} == {frozenset({"greeter:greet", "greeter:wave"})}
    # the scripted model answers alike whatever it is offered: neither component carries the score here
    ablations = case["aggregates"]["ablations"]
    assert {c: (m["delta"], m["pairs"]) for c, m in ablations.items()} == {"greet": (0.0, 2), "wave": (0.0, 2)}
    assert run.doc is not None
    assert [m["component"] for m in run.doc["aggregates"]["ablations"]] == ["greet", "wave"]
    assert "What each component carried (--ablate)" in run.out
    assert "greets[ablate-wave-1]" in run.out


def test_ablating_a_component_the_plugin_lacks_stops_before_any_run(suite: Suite):
    suite.case("greets", graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    run = suite.run("--ablate", "nope")
    assert run.rc == 1
    assert "--ablate nope: the plugin at" in run.out + run.err and "(it has: greet)" in run.out + run.err


def test_two_workers_and_regrade_keep_the_other_arms(suite: Suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    parallel = suite.run("--against", str(old), "--ablate", "greet", "-n", "2")
    assert parallel.rc == 0, parallel.out
    case = parallel.case("greets")
    assert list(case["arms"]) == ["with", "without", "against", "ablate:greet"]
    assert case["aggregates"]["deltaAgainst"]["pairs"] == 2 and case["aggregates"]["ablations"]["greet"]["pairs"] == 2
    assert parallel.doc is not None
    folder = Path(case["arms"]["with"][0]["tracePath"]).parents[3]
    assert (folder / "runs" / "greets" / "ablate-greet-1" / "trace.jsonl").is_file()
    again = suite.run("--regrade", str(folder))
    assert again.rc == 0, again.out
    regraded = again.case("greets")
    assert list(regraded["arms"]) == list(case["arms"])
    assert regraded["aggregates"]["deltaAgainst"] == case["aggregates"]["deltaAgainst"]
    # the regraded document says which version and components its stored runs were made with
    assert again.doc is not None
    assert (again.doc["suite"]["against"], again.doc["suite"]["ablated"]) == (str(old), ["greet"])
    assert f"Against the other version (--against): {old}" in again.out


def test_trigger_sets_run_on_both_versions_with_then_and_now_per_query(suite: Suite):
    data = {
        "runs": 2,
        "skills": {
            "greet": {
                "should_fire": [
                    {
                        "query": "hi there!",
                        "id": "hi",
                        "scripted": [{"tool": "Skill", "input": {"skill": "greeter:greet"}}],
                    }
                ],
                "should_not_fire": [{"query": "what is 2+2?", "id": "math", "scripted": [{"text": "4"}]}],
            }
        },
    }
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    run = suite.run("--against", str(old))
    assert run.rc == 0, run.out
    assert "evals/triggers.yaml::greet/hi[against-run-2]" in run.out
    assert run.doc is not None
    queries = {q["id"]: q for q in run.doc["triggers"][0]["queries"]}
    assert [(len(q["runs"]), len(q["againstRuns"])) for q in queries.values()] == [(2, 2), (2, 2)]
    assert [r["fired"] for r in queries["hi"]["againstRuns"]] == [True, True]
    assert queries["hi"]["fires"] == 2  # the verdict is this version's runs alone
    copies = {p["path"] for r in queries["hi"]["againstRuns"] for p in init_event(r).get("plugins") or []}
    assert copies and str(suite.root) not in copies
    assert "THEN → NOW" in run.out and "2/2 → 2/2" in run.out and "0/2 → 0/2" in run.out
    # --regrade reports both versions' stored runs as they were
    folder = next((suite.root / "evals" / "results").glob("*/aggregate-result.json")).parent
    again = suite.run("--regrade", str(folder))
    assert again.rc == 0, again.out
    assert again.doc is not None
    regraded = {q["id"]: q for q in again.doc["triggers"][0]["queries"]}
    assert {i: q["againstRuns"] for i, q in regraded.items()} == {i: q["againstRuns"] for i, q in queries.items()}
    assert {i: q["runs"] for i, q in regraded.items()} == {i: q["runs"] for i, q in queries.items()}
    assert "evals/triggers.yaml::greet/hi[against-run-2]" in again.out
    assert "THEN → NOW" in again.out and "2/2 → 2/2" in again.out


def test_runs_auto_decides_on_delta_against(suite: Suite):
    # Δ (with − without) is settled after 4 runs ("decided"); ΔAGAINST, 0 every run, never will be ("futile")
    script = {"with": ["Hello from the plugin."], "without": ["Nope."]}
    suite.case("helps", graders={"greeting": GREETING_GRADERS["greeting"]}, script=script)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    run = suite.run("--runs", "auto:6", "--threshold", "0", "--against", str(old))
    assert run.rc == 0, run.out
    case = run.case("helps")
    assert case["autoRuns"] == {"runs": 4, "stopped": "futile"}
    assert [len(case["arms"][arm]) for arm in ("with", "without", "against")] == [4, 4, 4]


def test_a_model_matrix_runs_the_other_arms_on_each_model(suite: Suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    out = suite.root / "out"
    models = "claude-haiku-4-5,claude-sonnet-4-5"
    run = suite.run("--model", models, "--output-dir", str(out), "--against", str(old), "--ablate", "greet")
    assert run.rc == 0, run.out
    assert "greets[claude-haiku-4-5-against-1]" in run.out and "greets[claude-sonnet-4-5-ablate-greet-2]" in run.out
    for model in models.split(","):
        doc = json.loads((out / model / "aggregate-result.json").read_text())
        case = doc["cases"][0]
        assert list(case["arms"]) == ["with", "without", "against", "ablate:greet"]
        assert case["aggregates"]["deltaAgainst"]["delta"] == 0.0 and doc["aggregates"]["ablations"][0]["pairs"] == 2


def test_the_without_arm_is_shared_and_reused_with_reuse_baseline(suite: Suite):
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    old = suite.root.with_name(suite.root.name + "-old")
    shutil.copytree(suite.root, old)
    first = suite.run()
    assert first.rc == 0, first.out
    again = suite.run("--against", str(old), "--reuse-baseline")
    assert again.rc == 0, again.out
    case = again.case("greets")
    assert [bool(r.get("reusedFrom")) for r in case["arms"]["without"]] == [True, True]
    assert not any(r.get("reusedFrom") for arm in ("with", "against") for r in case["arms"][arm])
    assert case["aggregates"]["delta"] == 1.0 and case["aggregates"]["deltaAgainst"]["delta"] == 0.0
