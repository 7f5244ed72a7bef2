"""Unit tests for `eval_agent.run_case` (pytest_plugin_eval.engine.agent_runner): a path that is not a case
folder is refused before anything loads or runs, naming the path and what a case folder holds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_plugin_eval.engine.agent_runner import AgentRunner, NotACaseFolder


class NoSession:
    """A session the runner must not touch: a refused path never gets as far as loading or running."""

    options = SimpleNamespace(keep_temp=False, eval_dir=None)

    def __getattr__(self, name):
        raise AssertionError(f"the session was used ({name}) for a path that is not a case folder")


@pytest.fixture
def runner():
    made = AgentRunner(NoSession())
    yield made
    made.close()


def refusal(runner: AgentRunner, path) -> str:
    with pytest.raises(NotACaseFolder) as info:
        runner.run_case(path)
    return str(info.value)


HOLDS = "pass a case folder: one holding prompt.md and/or case.yaml (and graders/), e.g. evals/my-case"


def test_a_missing_folder(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert refusal(runner, "evals/typo") == (
        f"eval_agent.run_case('evals/typo'): {tmp_path / 'evals' / 'typo'} does not exist; {HOLDS}"
    )


def test_a_folder_without_case_files(runner, tmp_path):
    (tmp_path / "evals" / "graders").mkdir(parents=True)
    folder = tmp_path / "evals"
    assert refusal(runner, folder) == (
        f"eval_agent.run_case({str(folder)!r}): {folder} holds no prompt.md or case.yaml, so it is not a case; {HOLDS}"
    )


def test_a_file_instead_of_its_folder(runner, tmp_path):
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Say hello.\n")
    assert refusal(runner, prompt) == f"eval_agent.run_case({str(prompt)!r}): {prompt} is a file, not a folder; {HOLDS}"


def test_the_refusal_is_a_file_not_found_error(runner, tmp_path):
    with pytest.raises(FileNotFoundError):
        runner.run_case(tmp_path / "nope")
