import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch):
    """A session a test starts never appends to the step summary of the CI job running the tests."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
