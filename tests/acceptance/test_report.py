"""The HTML report of a real session: the example plugin's suite against the scripted endpoint, rendered from its
results and kept traces, its report and pytest-html's opened in a headless browser when one is installed."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from helpers.browser import browser_command
from helpers.e2e import run_example_suite

from pytest_plugin_eval.report.html import render_report
from pytest_plugin_eval.results.model import SuiteResult


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    """The example plugin's suite (~15 s), with our report, its results and pytest-html's report written to a
    folder outside the repo."""
    out = tmp_path_factory.mktemp("example")
    run_example_suite(out, "--html", str(out / "pytest-html.html"), "--self-contained-html")
    return out


@pytest.fixture(scope="module")
def example_doc(example) -> dict:
    return json.loads((example / "example.json").read_text())


def section(page: str, anchor_prefix: str) -> str:
    """The HTML of the case section whose id starts with `anchor_prefix`."""
    match = re.search(rf'<section class="case" id="{re.escape(anchor_prefix)}[^"]*">(.*?)</section>', page, re.S)
    assert match, anchor_prefix
    return match.group(1)


def test_real_example_suite_renders_every_case_and_run(example_doc):
    page = render_report(SuiteResult.from_json(example_doc))
    assert example_doc["cases"]
    for index, case_doc in enumerate(example_doc["cases"], 1):
        html = section(page, f"case-{index}-")
        assert f"<h2>{case_doc['name']}</h2>" in html
        for arm, runs in case_doc["arms"].items():
            for number, run_doc in enumerate(runs, 1):
                assert f"{arm}-{number} · score {run_doc['score']:.2f}" in html
                assert Path(run_doc["tracePath"]).is_file()
                assert f"<code>{run_doc['tracePath']}</code>" in html
        assert html.count('<details class="transcript">') == sum(len(r) for r in case_doc["arms"].values())
    assert "Trace unavailable" not in page
    assert 'class="badge skill">skill: commit-craft:' in page


@pytest.fixture
def browser(tmp_path) -> list[str]:
    """A headless browser's command line, with a profile of its own and no network chatter."""
    return browser_command(tmp_path / "profile")


def dom(browser: list[str], page: Path) -> str:
    """The page's DOM after the browser loaded it (and ran its scripts, for pytest-html's)."""
    return subprocess.run(
        [*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout


def test_headless_browser_renders_the_page(browser, tmp_path, example, example_doc):
    report = example / "results" / "report.html"
    shot = tmp_path / "report.png"
    subprocess.run(
        [*browser, f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000
    shown = dom(browser, report)
    assert all(case["name"] in shown for case in example_doc["cases"])
    assert '<table id="summary">' in shown


def test_headless_browser_shows_our_parts_inside_pytest_html(browser, example, example_doc):
    """pytest-html builds its rows with a script: once it has run, the summary and every run's part are in the
    page itself, in elements of our class, with no frame around them."""
    shown = dom(browser, example / "pytest-html.html")
    assert "<iframe" not in shown
    runs = sum(len(runs) for case in example_doc["cases"] for runs in case["arms"].values())
    assert shown.count('<div class="plugin-eval">') == 1 + runs
    assert '<table id="summary">' in shown and "Score with the plugin" in shown
    assert shown.count('<details class="transcript">') == runs
