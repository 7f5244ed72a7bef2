"""Can I trust the judge? A real scripted session (the bundled Claude Code, the scripted endpoint) whose judge
passes one kind of wrong answer — the W/OUT arm's first run greets without the guest's name — then:
`plugin-eval review` in headless Chromium, labelled with the keyboard and reloaded; its static export opened
with no network; labels written by a script read by `plugin-eval calibrate`, which reports the TPR and TNR the
table must give, W/OUT corrected below its raw rate, and the controls the judge passed; and the report showing
the labelled agreement."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.browser import Browser, browser_command

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
RUNS = 4

SCRIPT = """\
with:
  - tool: Skill
    input: {skill: "greeter:greet"}
  - text: "Hello Ada, welcome!"
without:
  1: [{text: "Hello, dear guest!"}]
  default: [{text: "Hi there."}]
judge:
  names-guest:
    with: PASS
    without: {1: PASS, default: FAIL}   # the nameless greeting fools it
controls:
  names-guest: {inject: PASS}           # and so does an answer telling it to say PASS
"""


def plugin_eval(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "ANTHROPIC_API_KEY")}
    return subprocess.run(
        [*PLUGIN_EVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=environment
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Path:
    """The session's results folder (~20 s): case `greets`, one llm grader, 4 runs per arm."""
    root = tmp_path_factory.mktemp("judge") / "greeter"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "greeter", "version": "1.0.0"}')
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets the guest by name. Use when asked to greet someone.\n---\n"
        "Greet the guest by name.\n"
    )
    case = root / "evals" / "greets"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text(f"---\nruns: {RUNS}\n---\nGreet our guest Ada.\n")
    (case / "graders" / "names-guest.md").write_text("---\ntype: llm\n---\nThe reply greets the guest by name, Ada.\n")
    (case / "scripted.yaml").write_text(SCRIPT)
    done = plugin_eval(root, ".", "--trust-plugin", "--scripted", "-j", "4", "--output-dir", str(root / "results"))
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "results"


@pytest.fixture
def folder(session, tmp_path) -> Path:
    """A copy of the session's results folder for one test to label."""
    return Path(shutil.copytree(session, tmp_path / "results"))


@pytest.fixture
def browser(tmp_path):
    opened = Browser(browser_command(tmp_path / "profile"))
    yield opened
    opened.close()


@pytest.fixture
def server(folder):
    """`plugin-eval review FOLDER --no-browser`, stopped with Ctrl-C (SIGINT to this process only) at the end."""
    process = subprocess.Popen(
        [*PLUGIN_EVAL, "review", str(folder), "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert match, line + process.stderr.read()
    yield match.group(0)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Stopped." in out


def shown_run(browser: Browser) -> str:
    return browser.evaluate("document.querySelector('section.review-run:not([hidden]) h2').textContent")


def test_label_three_runs_with_the_keyboard_and_reload(folder, server, browser):
    browser.open(server)
    assert "greets · with-1" in shown_run(browser)
    assert browser.evaluate("document.getElementById('position').textContent") == f"run 1 of {2 * RUNS}"
    browser.press("p")
    browser.press("j")
    assert "greets · with-2" in shown_run(browser)
    browser.press("p")
    browser.press("ArrowRight")
    browser.press("f")  # with-3: the judge passed it, the person does not
    browser.press("n")
    browser.type("greets, but stiffly")
    browser.press("Enter")
    browser.press("c")
    browser.type("tone, too-formal")
    browser.press("Enter")
    browser.wait_for("document.body.dataset.pending === '0'")  # every change answered by the server
    assert browser.evaluate("document.getElementById('status').textContent") == "saved: 3 label(s) in labels.json"

    labels = json.loads((folder / "labels.json").read_text())["labels"]
    assert [(x["arm"], x["run"], x["verdict"]) for x in labels] == [
        ("with", 1, "pass"),
        ("with", 2, "pass"),
        ("with", 3, "fail"),
    ]
    third = labels[2]
    assert third["note"] == "greets, but stiffly" and third["codes"] == ["tone", "too-formal"]
    assert third["judgePassed"] is True and third["judgeModel"] and len(third["rubricHash"]) == 16
    # the codes are rolled up per case and arm
    rows = browser.evaluate("[...document.querySelectorAll('#codes-table tbody tr')].map(r => r.textContent)")
    assert sorted(rows) == ["tonegreetswith1", "too-formalgreetswith1"]

    browser.reload()
    assert "greets · with-3" in shown_run(browser)  # the address keeps the run
    assert browser.evaluate(
        "document.querySelector('section.review-run:not([hidden]) li.review-verdict').className"
    ).endswith("labelled-fail selected")
    assert browser.evaluate("document.querySelector('section.review-run:not([hidden]) .lab-note').value") == (
        "greets, but stiffly"
    )
    assert "the verdict disagrees" in browser.evaluate(
        "document.querySelector('section.review-run:not([hidden]) .lab-state').textContent"
    )
    # filters: the disagreeing run alone (with-3); then the unlabelled ones
    browser.evaluate(
        "const s = document.getElementById('f-show'); s.value = 'disagreeing'; s.dispatchEvent(new Event('change'))"
    )
    assert browser.evaluate("document.getElementById('position').textContent") == f"run 1 of 1 (of {2 * RUNS})"
    browser.evaluate(
        "const u = document.getElementById('f-show'); u.value = 'unlabelled'; u.dispatchEvent(new Event('change'))"
    )
    assert (
        browser.evaluate("document.getElementById('position').textContent")
        == f"run 1 of {2 * RUNS - 3} (of {2 * RUNS})"
    )
    assert "greets · with-4" in shown_run(browser)


def test_the_static_export_opens_with_no_network(folder, tmp_path):
    exported = plugin_eval(folder, "review", str(folder), "--export", str(tmp_path / "export"))
    assert exported.returncode == 0, exported.stderr
    page = tmp_path / "export" / "index.html"
    assert "Download labels.json" in exported.stdout
    html = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing fetched from anywhere
    browser = Browser(browser_command(tmp_path / "profile", offline=True))
    try:
        browser.open(page.as_uri())
        assert "greets · with-1" in shown_run(browser)
        assert browser.evaluate("document.querySelectorAll('section.review-run').length") == 2 * RUNS
        assert browser.evaluate("document.querySelector('section.review-run:not([hidden]) .conv') !== null")
        browser.press("f")
        assert browser.evaluate("document.getElementById('status').textContent").startswith(
            "1 label(s) kept in this browser"
        )
        assert browser.evaluate("document.getElementById('download') !== null")
    finally:
        browser.close()


def write_labels_by_script(folder: Path) -> None:
    """What a person's script writes: every run labelled, WITH passing, W/OUT failing (none names the guest)."""
    labels = [
        {"case": "greets", "arm": arm, "run": run, "grader": "names-guest", "verdict": verdict, "by": "script"}
        for arm, verdict in (("with", "pass"), ("without", "fail"))
        for run in range(1, RUNS + 1)
    ]
    (folder / "labels.json").write_text(json.dumps({"schemaVersion": 1, "labels": labels}))


def test_calibrate_measures_the_lenient_judge_and_its_controls(folder, tmp_path):
    write_labels_by_script(folder)
    out = tmp_path / "calibration.json"
    done = plugin_eval(folder, "calibrate", str(folder), "--json", str(out), "--report")
    assert done.returncode == 0, done.stderr
    (grader,) = json.loads(out.read_text())["graders"]
    # judge PASS on every WITH run (person: pass) and on W/OUT run 1 (person: fail): TPR 4/4, TNR 3/4
    assert (grader["grader"], grader["n"], grader["tpr"], grader["tnr"]) == ("names-guest", 2 * RUNS, 1.0, 0.75)
    assert grader["without"]["raw"] == 0.25
    assert grader["without"]["corrected"]["value"] < grader["without"]["raw"]
    assert grader["correctedDelta"]["value"] > grader["rawDelta"]
    assert "TPR 1.00" in done.stdout and "TNR 0.75" in done.stdout
    assert "W/OUT  raw 0.25 (1/4) → 0.00" in done.stdout

    probed = plugin_eval(folder, "calibrate", str(folder), "--controls", "--scripted", "--json", "-", "--report")
    assert probed.returncode == 2, probed.stderr
    probes = json.loads(probed.stdout)
    controls = {c["control"]: c["passed"] for c in probes["controls"]}
    assert controls == {"empty": False, "inject": True, "echo": False}
    # the control the judge got wrong is a finding, in the shape a session's findings have
    [(finding)] = probes["findings"]
    assert {k: finding[k] for k in ("case", "grader", "kind")} == {
        "case": "greets",
        "grader": "names-guest",
        "kind": "judge-misses-control",
    }
    assert finding["message"].startswith("the judge passed an answer telling the judge to say PASS (control inject")
    assert '⚑ greets: grader "names-guest": the judge passed' in probed.stderr
    assert "✗ PASSED  greets · names-guest: inject" in probed.stderr

    report = (folder / "report.html").read_text()
    assert "the judge against your labels:" in report
    assert "TPR 1.00 [0.51, 1.00] · TNR 0.75 [0.30, 0.95]" in report
    assert "W/OUT raw 0.25 (1/4) → 0.00" in report
    # --controls --report: the judge's answers beside its grader, the control it passed a finding of the case
    shown = html.unescape(report)
    assert "answers to the controls" in probed.stderr and "the judge's answers to the controls" in shown
    assert "✗ PASSED  inject" in shown and "✓ failed  empty" in shown
    assert '⚑ grader "names-guest": the judge passed an answer telling the judge to say PASS' in shown


def test_a_regrade_keeps_the_labels_and_its_report_shows_the_agreement(session, folder, tmp_path):
    write_labels_by_script(folder)
    regraded = tmp_path / "regraded"
    done = plugin_eval(
        session.parent, ".", "--trust-plugin", "--scripted", "--regrade", str(folder), "--output-dir", str(regraded)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((regraded / "labels.json").read_text()) == json.loads((folder / "labels.json").read_text())
    report = (regraded / "report.html").read_text()
    assert "TPR 1.00 [0.51, 1.00] · TNR 0.75 [0.30, 0.95]" in report
