"""The controller records the plugin's git state once per session, and a regrade carries the stored session's."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pytest_plugin_eval.engine import documents as documents_module
from pytest_plugin_eval.load.plugin_facts import content_hash
from pytest_plugin_eval.load.provenance import GitState
from pytest_plugin_eval.results.model import PluginInfo, SuiteAggregates, SuiteInfo, SuiteResult
from pytest_plugin_eval.results.store import ResultsFolder
from pytest_plugin_eval.session.controller import Controller

SHA = "0123456789abcdef0123456789abcdef01234567"


def session(tmp_path: Path, stored=None) -> SimpleNamespace:
    root = tmp_path / "evals"
    return SimpleNamespace(
        stored=stored,
        eval_roots=[root],
        results_folder=lambda eval_root, model=None: ResultsFolder(eval_root / "results" / "now"),
        options=SimpleNamespace(json_path=str(tmp_path / "result.json"), report=None, md_path="-", models=()),
        config=SimpleNamespace(option=SimpleNamespace(htmlpath=None)),
    )


def test_git_is_asked_once_per_plugin_folder_with_the_results_folders_left_out(tmp_path, monkeypatch):
    asked = []

    def fake(folder, exclude=()):
        asked.append((folder, list(exclude)))
        return GitState(SHA, True)

    monkeypatch.setattr(documents_module, "git_state", fake)
    controller = Controller(session(tmp_path))
    plugin = PluginInfo("greeter", str(tmp_path), version="1.2.3")
    for _ in range(3):
        out = controller.build.provenance(plugin)
    assert (out.version, out.git_commit, out.git_dirty) == ("1.2.3", SHA, True)
    assert asked == [(tmp_path, [tmp_path / "evals" / "results", tmp_path / "evals" / "results" / "now"])]


def test_no_repository_leaves_the_git_fields_out(tmp_path, monkeypatch):
    monkeypatch.setattr(documents_module, "git_state", lambda folder, exclude=(): None)
    plugin = PluginInfo("greeter", str(tmp_path), version="1.2.3")
    out = Controller(session(tmp_path)).build.provenance(plugin)
    assert (out.version, out.git_commit, out.git_dirty) == ("1.2.3", None, None)


def test_the_skills_and_content_are_read_once_with_the_eval_dir_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(documents_module, "git_state", lambda folder, exclude=(): None)
    (tmp_path / "skills" / "hi").mkdir(parents=True)
    (tmp_path / "skills" / "hi" / "SKILL.md").write_text("---\ndescription: Greet.\n---\n")
    (tmp_path / "evals").mkdir()
    (tmp_path / "result.json").write_text("{}")  # the last session's --json, at the path this one writes
    controller = Controller(session(tmp_path))
    plugin = PluginInfo("greeter", str(tmp_path))
    first = controller.build.provenance(plugin)
    assert first.skill_descriptions == {f"{tmp_path.name}:hi": "Greet."}
    assert first.content_hash != content_hash(tmp_path, exclude=(tmp_path / "evals",))
    (tmp_path / "result.json").unlink()
    (tmp_path / "evals" / "case.md").write_text("not the plugin")
    assert content_hash(tmp_path, exclude=(tmp_path / "evals",)) == first.content_hash
    (tmp_path / "skills" / "hi" / "SKILL.md").write_text("changed during the runs")
    assert controller.build.provenance(plugin) == first  # read once, before the runs


def test_a_regrade_records_the_plugin_its_runs_were_made_with(tmp_path, monkeypatch):
    monkeypatch.setattr(documents_module, "git_state", lambda *a, **k: (_ for _ in ()).throw(AssertionError("asked")))
    old = PluginInfo(
        "greeter",
        str(tmp_path),
        version="1.0.0",
        git_commit=SHA,
        git_dirty=False,
        skill_descriptions={},
        content_hash="h",
    )
    document = SuiteResult(
        "2.1", "t", 1, SuiteInfo("/p", "with-without", plugins=[old]), [], SuiteAggregates(0, 0, 0, 0)
    )
    controller = Controller(session(tmp_path, stored=SimpleNamespace(document=document)))
    now = controller.build.provenance(PluginInfo("greeter", str(tmp_path), version="2.0.0"))
    assert (now.version, now.git_commit, now.git_dirty) == ("1.0.0", SHA, False)
    assert (now.skill_descriptions, now.content_hash) == ({}, "h")
    other = controller.build.provenance(PluginInfo("other", "/o", version="3.0.0", git_commit="x", git_dirty=True))
    assert (other.git_commit, other.git_dirty) == (None, None)
