"""The folders of `plugin-eval merge` (engine.shards): one session's shards merged into a results folder with its
document, report and summary; a shard that cannot be read or merged is named."""

from __future__ import annotations

import io
import json

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.merge import MergeError
from pytest_plugin_eval.engine.shards import merge_session
from pytest_plugin_eval.report.terminal import StreamTerminal
from pytest_plugin_eval.results.store import REPORT_FILE, RESULTS_FILE, write_json


def shard(tmp_path, name: str, case: str, share: str):
    folder = tmp_path / name
    write_json(folder / RESULTS_FILE, suite_result(case_result(case, [1.0, 1.0]), shard=share).to_json())
    return str(folder)


def test_one_sessions_shards_become_one_results_folder(tmp_path):
    sources = [shard(tmp_path, "one", "greets", "1/2"), shard(tmp_path, "two", "waves", "2/2")]
    out, said = tmp_path / "merged", io.StringIO()
    merged = merge_session(sources, out, str(tmp_path / "all.json"), StreamTerminal(said))
    assert [c.name for c in merged.cases] == ["greets", "waves"]
    assert json.loads((out / RESULTS_FILE).read_text())["cases"][1]["name"] == "waves"
    assert (out / REPORT_FILE).is_file() and json.loads((tmp_path / "all.json").read_text())["cases"]
    assert "greets" in said.getvalue() and "waves" in said.getvalue()


def test_a_shard_that_is_not_there_is_named_and_nothing_is_written(tmp_path):
    with pytest.raises(MergeError, match=r"missing: not a readable results document"):
        merge_session([shard(tmp_path, "one", "greets", "1/2"), str(tmp_path / "missing")], tmp_path / "m", None, None)
    assert not (tmp_path / "m").exists()
