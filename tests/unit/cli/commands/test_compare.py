"""`plugin-eval compare OLD NEW` (cli/commands/compare.py), in process: what it prints and writes, its exit status, and a
one-line message for every user error."""

from __future__ import annotations

import json

import pytest

import pytest_plugin_eval.cli.main as cli
from pytest_plugin_eval.engine.option_parse import parse_options
from pytest_plugin_eval.engine.option_values import OptionError
from pytest_plugin_eval.session.addoption import add_options


def results(tmp_path, name: str, with_scores, without_scores=(0.0, 0.0, 0.0), pattern: str = "^Hello"):
    """A results folder holding a one-case document."""

    def arm(scores):
        return [
            {
                "index": i,
                "score": s,
                "passed": s == 1.0,
                "costUsd": 0.01,
                "durationSeconds": 2,
                "graders": [{"name": "greeting", "passed": s == 1.0, "weight": 1, "explanation": ""}],
            }
            for i, s in enumerate(scores, 1)
        ]

    doc = {
        "schemaVersion": 1,
        "claudeVersion": "2.1.327",
        "startedAt": "2026-11-30T10:00:00.000Z",
        "durationSeconds": 10,
        "costUsd": 0.06,
        "partial": False,
        "suite": {"root": "/p", "ablation": "with-without", "plugins": [{"name": "greeter", "path": "/p"}]},
        "cases": [
            {
                "name": "greet",
                "dir": "evals/greet",
                "promptMarkdown": "Say hello.",
                "graders": [{"name": "greeting", "type": "regex", "weight": 1, "config": {"pattern": pattern}}],
                "runsPerArm": 3,
                "arms": {"with": arm(with_scores), "without": arm(without_scores)},
                "aggregates": {"delta": 0},
            }
        ],
        "aggregates": {},
        "loadErrors": [],
    }
    folder = tmp_path / name
    folder.mkdir()
    (folder / "aggregate-result.json").write_text(json.dumps(doc))
    return folder


@pytest.fixture
def pair(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    results(tmp_path, "old", [1.0, 1.0, 1.0])
    results(tmp_path, "new", [0.0, 0.0, 0.0])
    return tmp_path


def test_prints_the_table_and_exits_0_by_default(pair, capsys):
    assert cli.main(["compare", "old", "new"]) == 0
    out = capsys.readouterr().out
    assert "compared with the earlier session" in out
    assert "old: old (2026-11-30 10:00:00)" in out
    row = next(line for line in out.splitlines() if line.startswith("greet "))
    assert "1.00 → 0.00" in row and "worse" in row
    assert "  greet · greeting 3/3 → 0/3" in out


def test_fail_on_worse_makes_a_worse_verdict_exit_1(pair, capsys):
    assert cli.main(["compare", "old", "new", "--fail-on-worse"]) == 1
    assert "--fail-on-worse: worse in greet" in capsys.readouterr().out
    assert cli.main(["compare", "new", "old", "--fail-on-worse"]) == 0  # better is not worse


def test_json_alone_prints_only_the_document(pair, capsys):
    assert cli.main(["compare", "old", "new/aggregate-result.json", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["cases"][0]["with"]["verdict"] == "worse"
    assert data["new"]["source"] == "new/aggregate-result.json"
    assert "compared with the earlier session" in captured.err


def test_json_before_the_two_sessions_does_not_swallow_the_first(pair, capsys):
    assert cli.main(["compare", "--json", "old", "new"]) == 0
    assert json.loads(capsys.readouterr().out)["old"]["source"] == "old"


def test_json_and_md_files(pair, capsys):
    assert cli.main(["compare", "old", "new", "--json", "cmp.json", "--md", "cmp.md"]) == 0
    assert json.loads((pair / "cmp.json").read_text())["summary"]["worse"] == ["greet"]
    md = (pair / "cmp.md").read_text()
    assert md.startswith("## Compared with an earlier session") and "🔴 worse" in md
    out = capsys.readouterr().out
    assert "Wrote cmp.json" in out and "Wrote cmp.md" in out


def test_the_step_summary_is_written_only_when_asked(pair, monkeypatch):
    # A job that ran its session with --compare-to has the comparison on its page already: a gating step
    # must not repeat it. `--md "$GITHUB_STEP_SUMMARY"` asks for it.
    summary = pair / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli.main(["compare", "old", "new"]) == 0
    assert not summary.exists()
    assert cli.main(["compare", "old", "new", "--md", str(summary)]) == 0
    assert summary.read_text().startswith("## Compared with an earlier session")


def test_the_level_is_used_and_checked(pair, capsys):
    assert cli.main(["compare", "old", "new", "--json", "--level", "0.8"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["level"] == 0.8
    assert cli.main(["compare", "old", "new", "--level", "95"]) == 1
    assert capsys.readouterr().err.strip() == (
        "Error: --level must be a number from 0.5 to below 1, such as 0.95 (got '95')"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "missing", "new"], "Error: missing: no such file or folder — name a results folder"),
        (["compare", "old", "."], "Error: .: no aggregate-result.json in this folder — name a results folder"),
        (["compare", "old"], "plugin-eval compare: error: the following arguments are required: NEW"),
        (["compare", "old", "new", "--bogus"], "plugin-eval compare: error: unrecognized arguments: --bogus"),
        (["compare", "old", "new", "--json", "out.txt"], "Error: --json out.txt: the path must end in .json"),
    ],
)
def test_user_errors_are_one_line_and_exit_1(pair, capsys, argv, message):
    assert cli.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err


def test_unreadable_json_names_the_file(pair, capsys):
    (pair / "old" / "aggregate-result.json").write_text('{"cases": [')
    assert cli.main(["compare", "old", "new"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("Error: old/aggregate-result.json: not valid JSON") and "\n" not in err


def test_help_exits_0(pair, capsys):
    assert cli.main(["compare", "--help"]) == 0
    assert "--fail-on-worse" in capsys.readouterr().out


def test_the_usage_names_the_command(capsys):
    assert cli.main(["--help"]) == 0
    assert "plugin-eval compare OLD NEW" in capsys.readouterr().out


# ---- --compare-to and --md, the session's options --------------------------------------------------------------


def session_options(*args: str):
    from _pytest.config.argparsing import Parser

    parser = Parser(_ispytest=True)
    add_options(parser)
    return parse_options(parser.parse(list(args)))


def test_compare_to_is_checked_before_anything_runs(pair):
    assert session_options("--compare-to", "old").compare_to == "old"
    with pytest.raises(OptionError) as info:
        session_options("--compare-to", "nowhere")
    assert str(info.value).startswith("Error: --compare-to nowhere: no such file or folder — name a results folder")
    assert session_options("--md", "summary.md").md_path == "summary.md"
    assert session_options().md_path is None and session_options().compare_to is None


def test_two_models_of_a_matrix_are_not_called_an_earlier_session(tmp_path, monkeypatch, capsys):
    """The separator said "compared with the earlier session" right under "they differ in the model only"."""
    monkeypatch.chdir(tmp_path)
    matrix = tmp_path / "matrix"
    matrix.mkdir()
    for model in ("haiku", "sonnet"):
        results(matrix, model, [1.0, 1.0, 1.0])
    models = [{"model": m, "document": f"{m}/aggregate-result.json"} for m in ("haiku", "sonnet")]
    (matrix / "matrix.json").write_text(json.dumps({"kind": "plugin-eval/model-matrix", "models": models}))
    assert cli.main(["compare", "matrix", "--model", "haiku", "--model", "sonnet"]) == 0
    out = capsys.readouterr().out
    assert "compared: haiku → sonnet" in out
    assert "earlier session" not in out


def with_triggers(folder, queries: dict[str, list[bool | None]]) -> None:
    """Add a trigger set to the results folder's document: per query id, its runs' `fired`."""
    path = folder / "aggregate-result.json"
    doc = json.loads(path.read_text())
    doc["triggers"] = [
        {
            "skill": "greeter:greet",
            "name": "greet",
            "queries": [
                {
                    "id": qid,
                    "query": qid,
                    "shouldFire": True,
                    "runs": [{"index": i, "fired": f} for i, f in enumerate(runs, 1)],
                }
                for qid, runs in queries.items()
            ],
        }
    ]
    path.write_text(json.dumps(doc))


def test_trigger_query_counts_use_the_verdicts_words(pair, capsys):
    """The counts read "6 other" while every query above them said "no detectable change"."""
    with_triggers(pair / "old", {"steady": [True] * 5, "erred": [None] * 5})
    with_triggers(pair / "new", {"steady": [True] * 5, "erred": [True] * 5})
    assert cli.main(["compare", "old", "new"]) == 0
    out = capsys.readouterr().out
    assert "trigger queries: 0 better · 0 worse · 1 no detectable change · 1 without a verdict" in out


@pytest.mark.parametrize("value", ["-1", "inf", "x"])
def test_the_pairwise_ceiling_is_read_as_a_sessions(value, capsys):
    """compare --max-cost-usd goes through the session's parser (engine/option_values.parse_max_cost)."""
    assert cli.main(["compare", "old", "new", "--pairwise", "--max-cost-usd", value]) == 1
    assert capsys.readouterr().err == "Error: --max-cost-usd must be a number, 0 or more\n"
