"""A model matrix end to end (`--model A,B`), through the real Claude Code against the scripted endpoint: every
case and trigger set on each model, a complete results document per model equal to that model's session alone,
the matrix document and table on top, node ids that `-k` selects by model, xdist, shards and merge, --lf, a cost
ceiling that stops mid-matrix with both models' partial results comparable, and compare between two models."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, normalized

from pytest_plugin_eval.results.store import read_results, read_suites

HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-5"
MATRIX = f"{HAIKU},{SONNET}"
TRIGGERS = {
    "runs": 1,
    "skills": {
        "greet": {
            "should_fire": [{"query": "hello!", "id": "hello", "scripted": "fire"}],
            "should_not_fire": [{"query": "what is 2+2?", "id": "sum", "scripted": "none"}],
        }
    },
}


def matrix_suite(suite, *, runs: int = 1, triggers: bool = True):
    suite.case("greets", frontmatter={"runs": runs}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    if triggers:
        (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(TRIGGERS, sort_keys=False))
    return suite


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def same_session(doc: dict) -> dict:
    """A document without what differs between two sessions: times, paths, and the session's notices."""
    doc = normalized(doc)
    doc.pop("notices", None)
    for trigger_set in doc.get("triggers", []):
        for query in trigger_set["queries"]:
            for run in query["runs"]:
                for key in ("durationSeconds", "tracePath", "startedAt"):
                    run.pop(key, None)
    return doc


def test_a_two_model_matrix_writes_a_document_per_model_equal_to_that_model_alone(suite):
    matrix_suite(suite)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out), "-v", "--junitxml", str(suite.root / "j.xml"))
    assert run.rc == 0, run.out
    # node ids carry the model, the models interleaved run by run
    ids = [line.split(" ")[0] for line in run.out.splitlines() if "[claude-" in line and "PASSED" in line]
    assert f"evals/greets/prompt.md::greets[{HAIKU}-with-plugin-1]" in ids
    assert f"evals/greets/prompt.md::greets[{SONNET}-no-plugin-1]" in ids
    assert f"evals/triggers.yaml::greet/hello[{HAIKU}-run-1]" in ids
    assert ids.index(f"evals/greets/prompt.md::greets[{HAIKU}-with-plugin-1]") + 1 == ids.index(
        f"evals/greets/prompt.md::greets[{SONNET}-with-plugin-1]"
    )
    matrix = read(out / "matrix.json")
    assert [(m["model"], m["document"], m["verdict"], m["exitStatus"]) for m in matrix["models"]] == [
        (HAIKU, f"{HAIKU}/aggregate-result.json", "passed", 0),
        (SONNET, f"{SONNET}/aggregate-result.json", "passed", 0),
    ]
    assert matrix["exitStatus"] == 0 and all(m["costUsd"] > 0 for m in matrix["models"])
    assert (out / "matrix.html").is_file() and f'href="{HAIKU}/report.html"' in (out / "matrix.html").read_text()
    # the case × model table
    assert "model matrix (2 models)" in run.out
    table = run.out.split("model matrix (2 models)")[1]
    assert "greets" in table and "Δ +1.00" in table and "triggers: greet" in table and "fires 1/1 · false 0/1" in table
    assert f"{HAIKU}: passed (exit 0" in table
    # JUnit: a testcase per model
    names = {(c.get("classname"), c.get("name")) for c in ET.parse(suite.root / "j.xml").iter("testcase")}
    assert ("greeter[claude-haiku-4-5]", "greets") in names and ("greeter[claude-sonnet-4-5]", "greets") in names
    # each model's document is the one a session of that model alone writes
    for model in (HAIKU, SONNET):
        alone = suite.root / f"alone-{model}"
        solo = suite.run("--model", model, "--output-dir", str(alone))
        assert solo.rc == 0, solo.out
        assert not (alone / "matrix.json").exists() and not (alone / model).exists()  # a single model: today's layout
        mine = read(out / model / "aggregate-result.json")
        assert mine["suite"]["modelOverride"] == model
        assert mine["cases"][0]["effectiveModel"] == model
        assert same_session(mine) == same_session(read(alone / "aggregate-result.json"))


def test_k_selects_one_models_runs(suite):
    matrix_suite(suite, triggers=False)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out), "-k", "haiku")
    assert run.rc == 0, run.out
    matrix = read(out / "matrix.json")
    assert [m["model"] for m in matrix["models"]] == [HAIKU]
    assert not (out / SONNET).exists()


def test_a_case_restricted_by_models_runs_on_those_only(suite):
    suite.case(
        "greets",
        frontmatter={"runs": 1, "models": [SONNET, "claude-opus-4-5"]},
        graders=GREETING_GRADERS,
        script=GREETING_SCRIPT,
    )
    suite.case("other", graders=GREETING_GRADERS, frontmatter={"runs": 1}, script=GREETING_SCRIPT)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out))
    assert run.rc == 0, run.out
    assert [c["name"] for c in read(out / HAIKU / "aggregate-result.json")["cases"]] == ["other"]
    assert [c["name"] for c in read(out / SONNET / "aggregate-result.json")["cases"]] == ["greets", "other"]
    said = f"models: names claude-opus-4-5, not in --model {MATRIX}; it runs on {SONNET} only"
    assert said in run.out
    # the session's notices are the matrix's: above every model's summary, not under the first model's heading
    notices = run.out.index("plugin eval · notices (all 2 models)")
    first_model = re.search(rf"plugin eval · \S+\[{re.escape(HAIKU)}\]", run.out)
    assert first_model and notices < run.out.index(said) < first_model.start(), run.out


def test_the_matrix_fails_when_one_model_fails_and_scripts_answer_per_model(suite):
    script = {**GREETING_SCRIPT, "models": {HAIKU: {"with": [{"text": "Hi from {model}."}]}}}
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out))
    assert run.rc == 1, run.out
    matrix = read(out / "matrix.json")
    assert [(m["model"], m["verdict"], m["exitStatus"]) for m in matrix["models"]] == [
        (HAIKU, "failed", 1),
        (SONNET, "passed", 0),
    ]
    assert matrix["exitStatus"] == 1
    assert f"FAILED evals/greets/prompt.md::greets[{HAIKU}] - greeting" in run.out  # the verdict, per model
    assert f"FAILED evals/greets/prompt.md::greets[{SONNET}]" not in run.out
    haiku = read(out / HAIKU / "aggregate-result.json")
    assert haiku["cases"][0]["arms"]["with"][0]["graders"][1]["passed"] is False


def test_xdist_runs_the_matrix_alike(suite):
    matrix_suite(suite, triggers=False)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out), "-n", "2")
    assert run.rc == 0, run.out
    for model in (HAIKU, SONNET):
        doc = read(out / model / "aggregate-result.json")
        assert [len(doc["cases"][0]["arms"][arm]) for arm in ("with", "without")] == [1, 1]


def test_a_cost_ceiling_stops_mid_matrix_with_both_models_alike(suite):
    matrix_suite(suite, runs=3, triggers=False)
    out = suite.root / "out"
    # a with-plugin run costs a few hundredths of a cent: the ceiling is crossed in the first round, on both models
    run = suite.run("--model", MATRIX, "--output-dir", str(out), "--max-cost-usd", "0.001")
    assert run.rc == 2, run.out
    docs = {model: read(out / model / "aggregate-result.json") for model in (HAIKU, SONNET)}
    made = {
        model: sum(len(runs) for case in doc["cases"] for runs in case["arms"].values()) for model, doc in docs.items()
    }
    assert made[HAIKU] >= 1 and abs(made[HAIKU] - made[SONNET]) <= 1, made
    assert all(doc["partial"] and doc["skippedRuns"] for doc in docs.values())
    assert read(out / "matrix.json")["exitStatus"] == 2
    assert "cost ceiling $0.001 for the whole matrix" in run.out


def plugin_eval(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_plugin_eval.cli.main", *args], cwd=cwd, capture_output=True, text=True
    )


def test_compare_between_two_models_of_a_matrix(suite):
    script = {**GREETING_SCRIPT, "models": {HAIKU: {"with": [{"text": "Hi."}]}}}
    suite.case("greets", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=script)
    out = suite.root / "out"
    run = suite.run("--model", MATRIX, "--output-dir", str(out))
    assert run.rc == 1, run.out
    compared = plugin_eval("compare", str(out), "--model", HAIKU, "--model", SONNET, cwd=suite.root)
    assert f"{HAIKU} → {SONNET}" in compared.stdout, compared.stdout + compared.stderr
    assert "they differ in the model only" in compared.stdout
    assert "greets" in compared.stdout
    wrong = plugin_eval("compare", str(out), "--model", HAIKU, "--model", "claude-opus-4-5", cwd=suite.root)
    assert wrong.returncode != 0 and "has no model 'claude-opus-4-5'" in wrong.stderr


def test_shards_of_a_matrix_merge_into_a_matrix(suite):
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    suite.case("again", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    for k in (1, 2):
        shard = suite.run("--model", MATRIX, "--output-dir", str(suite.root / f"s{k}"), "--shard", f"{k}/2")
        assert shard.rc in (0, 1), shard.out
    merged = suite.root / "merged"
    done = plugin_eval(
        "merge",
        str(suite.root / "s1"),
        str(suite.root / "s2"),
        "--output-dir",
        str(merged),
        "--json",
        "merged.json",
        cwd=suite.root,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    matrix = read(merged / "matrix.json")
    assert [m["model"] for m in matrix["models"]] == [HAIKU, SONNET]
    for model in (HAIKU, SONNET):
        doc = read(merged / model / "aggregate-result.json")
        assert sorted(c["name"] for c in doc["cases"]) == ["again", "greets"]
        assert doc["suite"]["modelOverride"] == model
    # --json: every model's merged document, one suite each, read back whole by the one reader
    models = [read_results(merged / model / "aggregate-result.json") for model in (HAIKU, SONNET)]
    assert read_suites(suite.root / "merged.json") == models


def test_lf_reruns_the_failed_model_only(suite, pytester):
    script = {**GREETING_SCRIPT, "models": {HAIKU: {"with": [{"text": "Hi."}]}}}
    suite.case("greets", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=script)
    first = pytester.runpytest_subprocess("evals", "--trust-plugin", "--scripted", "--model", MATRIX, "-v")
    assert first.ret == 1, first.stdout.str()
    again = pytester.runpytest_subprocess("evals", "--trust-plugin", "--scripted", "--model", MATRIX, "--lf", "-v")
    text = again.stdout.str()
    assert again.ret == 1, text
    ran = [line.split(" ")[0] for line in text.splitlines() if "-plugin-1] PASSED" in line]
    assert ran == [f"evals/greets/prompt.md::greets[{HAIKU}-with-plugin-1]"], text  # Haiku's failed run only
    assert "re-running 1 run(s) of 1 failed case(s)" in text
    # each model's document is complete again: the runs not re-run come from the last session
    folders = sorted((suite.root / "evals" / "results").iterdir())
    for model in (HAIKU, SONNET):
        doc = read(folders[-1] / model / "aggregate-result.json")
        assert [len(doc["cases"][0]["arms"][arm]) for arm in ("with", "without")] == [1, 1], model
