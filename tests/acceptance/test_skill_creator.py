"""skill-creator's output evals end to end, through the real Claude Code against the scripted endpoint: an
`evals/evals.json` in a skill's folder run as cases in both arms (its files in the workspace, its expectations
judged), `plugin-eval import` turning it into case folders that give the same verdicts, and the session written in
skill-creator's benchmark.json schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]

EVALS = {
    "skill_name": "greet",
    "evals": [
        {
            "id": 1,
            "prompt": "Greet everyone listed in evals/files/guests.txt.",
            "expected_output": "A warm greeting naming Ada and Linus.",
            "files": ["evals/files/guests.txt"],
            "expectations": ["The greeting names Ada", "The greeting starts with Hello from the plugin"],
        },
        {"prompt": "Say hello to me.", "assertions": ['The reply includes the word "hello"']},
    ],
}
SCRIPTED = {
    1: {
        "with": [
            {"tool": "Read", "input": {"file_path": "{cwd}/evals/files/guests.txt"}},
            {"text": "Hello from the plugin, Ada and Linus!"},
        ],
        "without": [{"tool": "Read", "input": {"file_path": "{cwd}/evals/files/guests.txt"}}, {"text": "Hi all."}],
        "judge": {"the-greeting-starts-with-hello-from": ["FAIL"]},
    }
}


def skill_evals(suite, scripted: dict | None = SCRIPTED) -> Path:
    folder = suite.root / "skills" / "greet" / "evals"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "guests.txt").write_text("Ada\nLinus\n")
    (folder / "evals.json").write_text(json.dumps(EVALS))
    if scripted is not None:
        (folder / "scripted.yaml").write_text(yaml.safe_dump(scripted))
    return folder


def test_an_evals_json_in_a_skill_folder_runs_as_cases_in_both_arms_with_its_files_and_judged_expectations(suite):
    skill_evals(suite)
    run = suite.run()
    assert run.rc == 1, run.out  # one expectation's judge says FAIL: below the threshold
    first, second = run.case("greet/1"), run.case("greet/say-hello-to-me")
    assert first["dir"] == "evals/skill-evals/greet/1"
    assert len(first["arms"]["with"]) == 3 and len(first["arms"]["without"]) == 3
    graders = {g["name"]: g for g in first["arms"]["with"][0]["graders"]}
    assert set(graders) == {"the-greeting-names-ada", "the-greeting-starts-with-hello-from"}
    assert graders["the-greeting-names-ada"]["passed"] is True
    assert graders["the-greeting-starts-with-hello-from"]["passed"] is False
    # the file was copied into the run's workspace: the agent's Read of it returned its content, which the judge saw
    assert "Ada\\nLinus" in graders["the-greeting-names-ada"]["evidence"]
    config = first["graders"][0]
    assert config["type"] == "llm" and "Expectation: The greeting names Ada" in config["config"]["criteria"]
    assert "A warm greeting naming Ada and Linus." in config["config"]["criteria"]  # the reference answer
    assert second["aggregates"]["score"] == 1.0  # no scripted entry: the default answer, every judge PASS
    assert "skills/greet/evals/evals.json::greet/1[with-plugin-1] PASSED" in run.out


def test_an_evals_json_with_a_bad_expectation_is_a_load_error_naming_the_json_path(suite):
    folder = skill_evals(suite, scripted=None)
    data = json.loads((folder / "evals.json").read_text())
    data["evals"][1]["assertions"] = ["fine", 3]
    data["evals"][0]["files"] = ["evals/files/missing.csv"]
    (folder / "evals.json").write_text(json.dumps(data))
    run = suite.run()
    assert run.rc != 0
    assert "evals[1].assertions[1]" in run.out and "evals[0].files[0]" in run.out, run.out
    [error] = run.doc["loadErrors"]
    assert error["dir"] == "skills/greet/evals/evals.json"
    assert {p["key"] for p in error["problems"]} == {"evals[1].assertions[1]", "evals[0].files[0]"}


# What skill-creator's viewer reads, by name (references/schemas.md, benchmark.json).
RUN_RESULT_KEYS = {"pass_rate", "passed", "failed", "total", "time_seconds", "tokens", "tool_calls", "errors"}
STATS_KEYS = {"mean", "stddev", "min", "max"}


def test_the_session_is_written_in_skill_creators_benchmark_schema(suite):
    skill_evals(suite)
    out = suite.root / "bench" / "benchmark.json"
    run = suite.run("--runs", "2", "--skill-creator-benchmark", str(out))
    assert run.rc == 1, run.out
    data = json.loads(out.read_text())
    assert set(data) == {"metadata", "runs", "run_summary", "notes"}
    meta = data["metadata"]
    assert set(meta) == {
        "skill_name",
        "skill_path",
        "executor_model",
        "analyzer_model",
        "timestamp",
        "evals_run",
        "runs_per_configuration",
    }
    assert meta["skill_name"] == "greet" and meta["evals_run"] == [1, 2] and meta["runs_per_configuration"] == 2
    assert len(data["runs"]) == 8
    first = data["runs"][0]
    assert set(first) == {"eval_id", "eval_name", "configuration", "run_number", "result", "expectations", "notes"}
    assert (first["eval_id"], first["eval_name"], first["configuration"], first["run_number"]) == (
        1,
        "greet/1",
        "with_skill",
        1,
    )
    assert set(first["result"]) == RUN_RESULT_KEYS
    assert first["result"]["pass_rate"] == 0.5 and first["result"]["passed"] == 1 and first["result"]["total"] == 2
    assert first["result"]["tokens"] > 0 and first["result"]["tool_calls"] == 1
    assert first["expectations"][0] == {
        "text": "The greeting names Ada",
        "passed": True,
        "evidence": "judge votes: PASS PASS",
    }
    assert {r["configuration"] for r in data["runs"]} == {"with_skill", "without_skill"}
    summary = data["run_summary"]
    assert set(summary) == {"with_skill", "without_skill", "delta"}
    for configuration in ("with_skill", "without_skill"):
        assert set(summary[configuration]) == {"pass_rate", "time_seconds", "tokens"}
        assert all(set(summary[configuration][m]) == STATS_KEYS for m in summary[configuration])
    assert summary["with_skill"]["pass_rate"]["mean"] == 0.75  # greet/1 at 0.5, the default-scripted eval at 1.0
    assert summary["delta"]["pass_rate"] == "+0.00" and summary["delta"]["tokens"].startswith(("+", "-"))
    assert isinstance(data["notes"], list)


def verdicts(run) -> dict[str, tuple]:
    """Per case, by eval: each arm's score and each grader's pass count."""
    out = {}
    for case in run.doc["cases"]:
        eval_id = case["name"].replace("greet/", "").replace("greet-", "")
        graders = {
            (arm, g["name"]): sum(
                1 for r in case["arms"][arm] for x in r["graders"] if x["name"] == g["name"] and x["passed"]
            )
            for arm in case["arms"]
            for g in case["graders"]
        }
        out[eval_id] = (case["aggregates"]["score"], case["aggregates"]["scoreWithout"], graders)
    return out


def test_import_writes_case_folders_that_load_and_give_the_same_verdicts_and_never_overwrites(suite):
    folder = skill_evals(suite)
    before = suite.run("--runs", "1")
    done = subprocess.run([*PLUGIN_EVAL, "import", "."], cwd=suite.root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ evals/greet-1/: prompt.md, 2 grader(s), 1 file(s), scripted.yaml" in done.stdout
    case = suite.root / "evals" / "greet-1"
    assert (case / "evals" / "files" / "guests.txt").read_text() == "Ada\nLinus\n"
    assert yaml.safe_load((case / "case.yaml").read_text())["context"] == {"files": ["evals/files/guests.txt"]}
    assert sorted(p.name for p in (case / "graders").iterdir()) == [
        "the-greeting-names-ada.md",
        "the-greeting-starts-with-hello-from.md",
    ]
    (folder / "evals.json").rename(folder / "evals.json.moved")  # the folders replace it
    after = suite.run("--runs", "1")
    assert after.rc == before.rc == 1, after.out
    assert {c["source"] for c in after.doc["cases"]} == {"mixed", "prose"}
    assert verdicts(after) == verdicts(before)

    (case / "prompt.md").write_text("mine\n")
    again = subprocess.run([*PLUGIN_EVAL, "import", "."], cwd=suite.root, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "no skill of the plugin has an evals/evals.json" in again.stdout
    (folder / "evals.json.moved").rename(folder / "evals.json")
    again = subprocess.run([*PLUGIN_EVAL, "import", "."], cwd=suite.root, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "· evals/greet-1/ exists: left as it is" in again.stdout
    assert (case / "prompt.md").read_text() == "mine\n"


def test_check_says_which_imported_expectations_look_mechanical(suite):
    skill_evals(suite, scripted=None)
    subprocess.run([*PLUGIN_EVAL, "import", "."], cwd=suite.root, capture_output=True, text=True, timeout=120)
    done = subprocess.run([*PLUGIN_EVAL, "check", "."], cwd=suite.root, capture_output=True, text=True, timeout=120)
    assert (
        'case "greet-say-hello-to-me": grader the-reply-includes-the-word-hello '
        '("The reply includes the word "hello"") looks mechanical — a regex grader: pattern: \'hello\' checks it '
        "without a judge"
    ) in done.stdout, done.stdout
    assert "the-greeting-names-ada" not in done.stdout  # a judgment, not a word to find
