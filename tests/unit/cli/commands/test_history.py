"""`plugin-eval history` in-process (cli.history): which results folder a target names, the table, --json,
--limit, and a target with no results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pytest_plugin_eval.cli.main as cli
from pytest_plugin_eval.cli.commands.history import history_command

SHA = "0123456789abcdef0123456789abcdef01234567"


def document(day: int, *, score: float = 1.0, dirty: bool = False, **suite) -> dict:
    return {
        "schemaVersion": 1,
        "claudeVersion": "2.1.327",
        "startedAt": f"2026-03-{day:02d}T10:00:00.000Z",
        "durationSeconds": 5,
        "costUsd": 0.25,
        "partial": False,
        "suite": {
            "root": "/p",
            "ablation": "with-without",
            "judgeModelResolved": "claude-haiku-4-5",
            "plugins": [{"name": "greeter", "version": "1.2.3", "path": "/p", "gitCommit": SHA, "gitDirty": dirty}],
            **suite,
        },
        "cases": [
            {
                "name": "greet",
                "dir": "evals/greet",
                "runsPerArm": 3,
                "graders": [],
                "arms": {"with": [], "without": []},
                "aggregates": {"score": score, "passRate": score, "delta": 0.5, "scoreWithout": 0.5},
            }
        ],
        "aggregates": {
            "casesTotal": 1,
            "casesPassed": 1,
            "overallScore": score,
            "overallPassRate": score,
            "meanDelta": 0.5,
        },
        "loadErrors": [],
    }


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "greeter"}')
    results = tmp_path / "evals" / "results"
    for day, extra in ((1, {}), (2, {"regradedFrom": "/x"}), (3, {"mergedFrom": ["a", "b"]})):
        folder = results / f"2026-03-0{day}T10-00-00-000Z"
        folder.mkdir(parents=True)
        (folder / "aggregate-result.json").write_text(json.dumps(document(day, dirty=day == 3, **extra)))
    (results / "broken").mkdir()
    (results / "broken" / "aggregate-result.json").write_text("{")
    return tmp_path


def test_the_table_lists_the_sessions_newest_first_and_what_was_skipped(plugin, capsys, monkeypatch):
    monkeypatch.chdir(plugin)
    assert cli.main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("TIME (UTC)")
    assert [line.split()[:4] for line in lines[1:4]] == [
        ["2026-03-03", "10:00:00", "1.2.3", "0123456*"],
        ["2026-03-02", "10:00:00", "1.2.3", "0123456"],
        ["2026-03-01", "10:00:00", "1.2.3", "0123456"],
    ]
    assert lines[1].split()[-1] == "merged" and lines[2].split()[-1] == "regraded"
    assert lines[1].split()[4:10] == ["default", "1", "1.00", "+0.50", "$0.25", "3"]  # one case (CASES)
    assert lines[-1].startswith("skipped evals/results/broken: aggregate-result.json: not JSON")


def test_a_model_matrix_is_a_line_per_model_noted_matrix(plugin, capsys):
    top = plugin / "evals" / "results" / "2026-03-04T10-00-00-000Z"
    for model in ("claude-haiku-4-5", "claude-sonnet-4-5"):
        (top / model).mkdir(parents=True)
        doc = document(4, modelOverride=model, scripted=True)
        (top / model / "aggregate-result.json").write_text(json.dumps(doc))
    models = [{"model": m, "document": f"{m}/aggregate-result.json"} for m in ("claude-haiku-4-5", "claude-sonnet-4-5")]
    (top / "matrix.json").write_text(json.dumps({"kind": "plugin-eval/model-matrix", "models": models}))
    assert history_command([str(plugin)]) == 0
    lines = capsys.readouterr().out.splitlines()
    mine = [line for line in lines if line.startswith("2026-03-04")]
    assert sorted(line.split()[4] for line in mine) == ["scripted:claude-haiku-4-5", "scripted:claude-sonnet-4-5"]
    assert all(line.split()[-1] == "matrix" for line in mine)
    assert not any("a model matrix" in line for line in lines)  # not skipped any more


def test_json_and_limit(plugin, capsys):
    assert history_command([str(plugin / "evals"), "--json", "--limit", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["startedAt"][:10] for s in out["sessions"]] == ["2026-03-03", "2026-03-02"]
    assert out["sessions"][0]["gitCommit"] == SHA and out["sessions"][0]["gitDirty"] is True
    assert out["sessions"][0]["note"] == "merged" and out["sessions"][0]["version"] == "1.2.3"
    assert out["notRead"] == 1 and [Path(s["folder"]).name for s in out["skipped"]] == ["broken"]


def test_no_results_folder_is_an_error(tmp_path, capsys):
    assert history_command([str(tmp_path)]) == 1
    assert "no results folder under" in capsys.readouterr().err


def test_an_empty_results_folder_says_so(tmp_path, capsys):
    (tmp_path / "evals" / "results").mkdir(parents=True)
    assert history_command([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == "No past sessions found."


def test_help_lists_the_command(capsys):
    assert cli.main(["--help"]) == 0
    assert "plugin-eval history [EVAL_DIR | PLUGIN_DIR] [--json] [--limit N]" in capsys.readouterr().out
