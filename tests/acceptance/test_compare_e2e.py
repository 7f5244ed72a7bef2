"""Did my change help? Two real sessions of a suite (the bundled Claude Code, the scripted endpoint) compared:
`--compare-to` in the terminal, the HTML report and `--md`; the step summary of a CI job; `plugin-eval compare`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]


def plugin_eval(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    return subprocess.run(
        [*PLUGIN_EVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env={**environment, **(env or {})}
    )


STRICTER = """
    ---
    type: regex
    pattern: ^Hello from the plugin, dear
    ---
"""


def test_a_changed_grader_shows_as_a_flip_and_a_worse_verdict(suite, monkeypatch):
    suite.case("greet", frontmatter={"runs": 3}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    suite.case("steady", frontmatter={"runs": 3}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    before = suite.run("--output-dir", "s1", "-j", "4")
    assert before.rc == 0, before.out
    # The change between the sessions: one case's greeting grader now wants more than the answer says.
    (suite.root / "evals" / "greet" / "graders" / "greeting.md").write_text(textwrap.dedent(STRICTER).lstrip())
    step_summary = suite.root / "step-summary.md"
    step_summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    after = suite.run("--output-dir", "s2", "-j", "4", "--compare-to", "s1", "--md", "summary.md")
    assert after.rc == 1  # greet is below the threshold now

    # The terminal: the comparison after the session's table.
    out = after.out
    section = out.split("compared with the earlier session", 1)[1]
    assert "⚠ not comparable: greet: graders differ (greeting changed)" in section
    greet = next(line for line in section.splitlines() if line.startswith("greet "))
    assert "1.00 → 0.00" in greet and "[-1.00, -0.10]" in greet and "worse" in greet
    steady = next(line for line in section.splitlines() if line.startswith("steady "))
    assert "1.00 → 1.00" in steady and "n.s." in steady
    assert "  greet · greeting 3/3 → 0/3 (definition changed)" in section
    assert "WITH: 0 better · 1 worse · 1 no detectable change" in section

    # The HTML report of the new session.
    page = (suite.root / "s2" / "report.html").read_text()
    assert 'id="comparison"' in page and '<span class="cmp-worse">worse</span>' in page

    # --md, and the same Markdown appended to the step summary.
    md = (suite.root / "summary.md").read_text()
    assert md.startswith("## Plugin eval: greeter\n")
    assert "| greet | 0.00 | 0.00 | 0.00 |" in md and "❌ failed" in md and "✅ passed" in md
    failing = md.split("### Failing cases", 1)[1].split("###", 1)[0]
    assert "- **greet** — greeting: " in failing and "score 0.00 < threshold 1.00" in failing
    compared = md.split("### Compared with an earlier session", 1)[1]
    assert "| greet | 1.00 → 0.00 | -1.00 | [-1.00, -0.10] | 🔴 worse |" in compared
    assert "- greet · greeting 3/3 → 0/3 (definition changed)" in compared
    assert step_summary.read_text() == "# earlier step\n" + md + "\n"

    # plugin-eval compare on the two results folders says the same, as JSON; --fail-on-worse gates on it.
    cli = plugin_eval(suite.root, "compare", "s1", "s2", "--json")
    assert cli.returncode == 0, cli.stderr
    doc = json.loads(cli.stdout)
    greet_case = next(c for c in doc["cases"] if c["name"] == "greet")
    assert greet_case["with"]["verdict"] == "worse" and greet_case["with"]["change"] == -1.0
    greeting = next(g for g in greet_case["graders"] if g["name"] == "greeting")
    assert greeting["old"]["passRate"] == 1.0 and greeting["new"]["passRate"] == 0.0
    assert greeting["changed"] and greeting["definitionChanged"]
    skill = next(g for g in greet_case["graders"] if g["name"] == "skill-fired")
    assert not skill["changed"]  # the skill still fired in every run
    assert [w["kind"] for w in doc["warnings"]] == ["graders"]
    assert doc["summary"]["worse"] == ["greet"] and doc["summary"]["gradersChanged"] == 1
    gate = plugin_eval(suite.root, "compare", "s1", "s2", "--fail-on-worse")
    assert gate.returncode == 1 and "--fail-on-worse: worse in greet" in gate.stdout


def test_sessions_measured_differently_are_warned_and_the_step_summary_is_written_without_md(suite):
    suite.case("greet", frontmatter={"runs": 3}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    first = plugin_eval(suite.root, ".", "--trust-plugin", "--scripted", "--output-dir", "s1", "--runs", "2", "-j", "4")
    assert first.returncode == 0, first.stderr
    suite.case("added", frontmatter={"runs": 3}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    step_summary = suite.root / "step-summary.md"
    second = plugin_eval(
        suite.root,
        ".",
        "--trust-plugin",
        "--scripted",
        "--output-dir",
        "s2",
        "-j",
        "4",
        "--ablation",
        "none",
        "--compare-to",
        "s1/aggregate-result.json",
        env={"GITHUB_STEP_SUMMARY": str(step_summary)},
    )
    assert second.returncode == 0, second.stderr
    for words in (
        "⚠ not comparable: the ablation differs: with-without → none",
        "⚠ not comparable: runs per arm differ: 2 → 3 (greet)",
        "⚠ not comparable: greet: ran both arms before, the with arm only now — its Δ cannot be compared",
        "added: added (WITH 1.00)",
    ):
        assert words in second.stdout, words
    summary = step_summary.read_text()
    assert "### Compared with an earlier session" in summary and "> - the ablation differs" in summary
    assert not (suite.root / "summary.md").exists()

    cli = plugin_eval(suite.root, "compare", "s1", "s2", "--json", "cmp.json", "--md", "cmp.md")
    assert cli.returncode == 0, cli.stderr
    doc = json.loads((suite.root / "cmp.json").read_text())
    assert doc["comparable"] is False
    assert {w["kind"] for w in doc["warnings"]} == {"ablation", "runsPerArm", "arms"}
    assert doc["summary"]["added"] == ["added"]
    assert "🟢" not in (suite.root / "cmp.md").read_text()


def test_a_wrong_compare_to_stops_the_session_before_any_run(suite):
    suite.case("greet", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    (suite.root / "bad.json").write_text("{not json")
    result = suite.run("--compare-to", "bad.json")
    assert result.rc == 1
    assert "Error: --compare-to bad.json: not valid JSON" in result.err + result.out
    assert result.doc is None and not (suite.root / "evals" / "results").exists()


def test_a_description_change_is_recorded_named_and_warned_about_when_both_sessions_are_scripted(suite):
    """Item 8 of issue 23: the commit cannot tell two sessions of an edited description apart; what each session
    recorded (the skills' descriptions, the plugin's content hash) can."""
    suite.case("greet", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    before = suite.run()
    assert before.rc == 0, before.out
    [plugin] = before.doc["suite"]["plugins"]
    assert plugin["skillDescriptions"] == {"greeter:greet": "Greets the user warmly. Use when the user says hello."}
    assert len(plugin["contentHash"]) == 64
    assert before.doc["schemaVersion"] == 1

    skill = suite.root / "skills" / "greet" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Use when the user says hello.", "Use for any greeting."))
    after = suite.run()
    assert after.doc["suite"]["plugins"][0]["contentHash"] != plugin["contentHash"]

    s1, s2 = sorted(str(p.parent) for p in (suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    shown = plugin_eval(suite.root, "compare", s1, s2)
    assert shown.returncode == 0, shown.stderr
    assert "changed in the plugin: the description of skill greeter:greet changed; plugin content changed" in (
        shown.stdout
    )
    assert "⚠ not comparable: both sessions were answered by the scripted endpoint" in shown.stdout
    assert "cannot show the effect of the description change" in shown.stdout

    listed = plugin_eval(suite.root, "history", "evals", "--json")
    assert listed.returncode == 0, listed.stderr
    changes = [s["pluginChanges"] for s in json.loads(listed.stdout)["sessions"]]
    assert changes[0] == ["the description of skill greeter:greet changed", "plugin content changed"]


def test_a_session_where_no_case_loads_still_names_its_plugin(suite):
    """A walk's first session had one broken case: its results said no plugin and `ablation: none`, so compare
    said the sessions evaluate different plugins and history showed no version."""
    broken = suite.case("greet", frontmatter={"runs": 1}, graders={"bad": "---\ntype: no-such-grader\n---\n"})
    first = plugin_eval(suite.root, ".", "--trust-plugin", "--scripted")
    assert first.returncode == 1, first.stderr
    [folder] = (suite.root / "evals" / "results").glob("*/aggregate-result.json")
    doc = json.loads(folder.read_text())
    assert [e["case"] for e in doc["loadErrors"]] == ["greet"] and doc["cases"] == []
    [plugin] = doc["suite"]["plugins"]
    assert (plugin["name"], plugin["version"], doc["suite"]["ablation"]) == ("greeter", "1.2.3", "with-without")

    shutil.rmtree(broken)
    suite.case("fixed", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GREETING_SCRIPT)
    second = plugin_eval(suite.root, ".", "--trust-plugin", "--scripted")
    assert second.returncode == 0, second.stderr
    old, new = sorted(p.parent for p in (suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    compared = plugin_eval(suite.root, "compare", str(old), str(new))
    said = compared.stdout + compared.stderr
    assert "fixed" in said and "different plugins" not in said and "ablation differs" not in said, said
    history = plugin_eval(suite.root, "history")
    assert history.returncode == 0, history.stderr
    assert [line.split()[2] for line in history.stdout.splitlines()[1:3]] == ["1.2.3", "1.2.3"], history.stdout
