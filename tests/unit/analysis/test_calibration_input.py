"""What calibrate reads (analysis.calibration_input): each results folder's document and labels, or a message
naming the folder or the labels file and what is wrong with it."""

from __future__ import annotations

import pytest
from helpers.documents import suite_result

from pytest_plugin_eval.analysis.calibration_input import read_sessions
from pytest_plugin_eval.core.errors import UsageError
from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.results.labels import LABELS_FILE
from pytest_plugin_eval.results.store import RESULTS_FILE, write_json


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "session"
    folder.mkdir()
    write_json(folder / RESULTS_FILE, suite_result().to_json())
    return folder


def test_each_folder_is_read_with_its_labels_or_the_file_given(folder, tmp_path):
    (session,) = read_sessions([str(folder)])
    assert session.folder == folder and not session.labels.labels and session.document.cases is not None
    (folder / LABELS_FILE).write_text("[1]")
    with pytest.raises(SpecError, match=LABELS_FILE):
        read_sessions([str(folder)])
    (tmp_path / "mine.json").write_text('{"labels": []}')
    (session,) = read_sessions([str(folder)], str(tmp_path / "mine.json"))  # its own labels.json is not read
    assert not session.labels.labels


def test_a_folder_without_results_is_named(folder, tmp_path):
    with pytest.raises(UsageError, match=r"^Error: .*missing: not a results folder — calibrate reads"):
        read_sessions([str(folder), str(tmp_path / "missing")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match=r"^Error: .*empty"):
        read_sessions([str(tmp_path / "empty")])
