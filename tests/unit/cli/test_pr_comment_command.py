"""`plugin-eval pr-comment RESULTS [--compare-to OLD]` (cli/commands/pr_comment.py, publish/pr_comment.py), in process,
against a local fake of GitHub's API: the first run creates the suite's comment, the next updates it, a refusal
exits 1 with the likely cause; a model matrix gets a section per model; --dry-run prints and posts nothing."""

from __future__ import annotations

import json

import pytest
from helpers.documents import case_result, suite_result
from helpers.fake_github import environment, fake_github

import pytest_plugin_eval.cli.main as cli
from pytest_plugin_eval.cli.usage import USAGE
from pytest_plugin_eval.report.pr_comment import marker
from pytest_plugin_eval.results.matrix import MATRIX_KIND
from pytest_plugin_eval.results.store import RESULTS_FILE, document_text


def folder(path, document):
    path.mkdir(parents=True)
    (path / RESULTS_FILE).write_text(document_text(document.to_json()), encoding="utf-8")
    return path


@pytest.fixture
def sessions(tmp_path):
    """main's results (greet passes) and the pull request's (greet fails)."""
    main = folder(tmp_path / "main", suite_result(case_result("greet", [1] * 10, [0] * 10)))
    pr = folder(tmp_path / "pr", suite_result(case_result("greet", [0] * 10, [0] * 10)))
    return main, pr


def use(monkeypatch, env: dict[str, str]) -> None:
    for name in ("GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_TOKEN", "GITHUB_RUN_ATTEMPT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def test_first_run_creates_the_comment_and_the_next_updates_it(tmp_path, sessions, monkeypatch, capsys):
    main, pr = sessions
    with fake_github() as fake:
        use(monkeypatch, environment(fake, tmp_path, pr=5))
        first = cli.main(["pr-comment", str(pr), "--against", str(main), "--baseline-name", "main"])
        created = capsys.readouterr().out
        second = cli.main(["pr-comment", str(pr), "--against", str(main), "--baseline-name", "main"])
        updated = capsys.readouterr().out
    assert (first, second) == (0, 0)
    assert created.startswith("Created the comment on pull request #5: https://github.example/octo/plugins/pull/5#")
    assert updated.startswith("Updated the comment on pull request #5: ")
    [comment] = fake.on(5)
    body = comment["body"]
    assert body.startswith(marker("greeter") + "\n")
    assert "🔴 worse than main: 1 case" in body and "- 🆕 **greet** — " in body
    assert "[The run, its summary and the results folder](https://github.example/octo/plugins/actions/runs/77)" in body


def test_a_refusal_exits_1_naming_the_likely_cause(tmp_path, sessions, monkeypatch, capsys):
    main, pr = sessions
    with fake_github() as fake:
        fake.refuse_writes = True
        use(monkeypatch, environment(fake, tmp_path))
        status = cli.main(["pr-comment", str(pr), "--against", str(main)])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("✗ pr-comment: GitHub refused POST ")
    assert "(403: Resource not accessible by integration)" in err and "fork" in err


def test_outside_a_pull_request_it_says_what_to_do(tmp_path, sessions, monkeypatch, capsys):
    _, pr = sessions
    with fake_github() as fake:
        use(monkeypatch, environment(fake, tmp_path, event="push"))
        assert cli.main(["pr-comment", str(pr)]) == 1
    assert "no pull request to comment on" in capsys.readouterr().err
    assert fake.requests == []


def test_an_unreadable_results_folder_is_named(tmp_path, monkeypatch, capsys):
    use(monkeypatch, {})
    assert cli.main(["pr-comment", str(tmp_path / "nowhere"), "--dry-run"]) == 1
    assert "nowhere: no such file or folder" in capsys.readouterr().err


def test_dry_run_prints_the_comment_and_needs_no_token(sessions, monkeypatch, capsys):
    main, pr = sessions
    use(monkeypatch, {})
    assert cli.main(["pr-comment", str(pr), "--against", str(main), "--dry-run", "--key", "smoke"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(marker("smoke") + "\n## Plugin eval: greeter\n")


def test_a_model_matrix_is_one_comment_with_a_section_per_model(tmp_path, monkeypatch, capsys):
    matrix = tmp_path / "matrix"
    folder(matrix / "opus", suite_result(case_result("greet", [1] * 3, [0] * 3)))
    folder(matrix / "haiku", suite_result(case_result("greet", [0] * 3, [0] * 3)))
    models = [
        {"model": m, "document": f"{m}/{RESULTS_FILE}", "exitStatus": s, "costUsd": 0.03}
        for m, s in (("opus", 0), ("haiku", 1))
    ]
    (matrix / "matrix.json").write_text(
        json.dumps({"kind": MATRIX_KIND, "schemaVersion": 1, "startedAt": "", "exitStatus": 1, "models": models})
    )
    use(monkeypatch, {})
    assert cli.main(["pr-comment", str(matrix), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.index("### opus") < out.index("✅ 1 case(s) passed") < out.index("### haiku") < out.index("❌ 1 of 1")


def test_usage_lists_the_command():
    assert "plugin-eval pr-comment RESULTS [--compare-to OLD]" in USAGE


def test_compare_to_names_the_baseline_and_against_its_former_name_gives_the_same_comment(
    sessions, monkeypatch, capsys
):
    main, pr = sessions
    use(monkeypatch, {})
    assert cli.main(["pr-comment", str(pr), "--compare-to", str(main), "--dry-run", "--baseline-name", "main"]) == 0
    renamed = capsys.readouterr().out
    assert cli.main(["pr-comment", str(pr), "--against", str(main), "--dry-run", "--baseline-name", "main"]) == 0
    assert capsys.readouterr().out == renamed and "🔴 worse than main: 1 case" in renamed
    assert cli.main(["pr-comment", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "--compare-to OLD, --against OLD" in said
    assert "--against OLD, its former name, still works — it is not the session's --against REF" in said
