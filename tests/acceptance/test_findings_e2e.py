"""End to end through the real Claude Code and the scripted endpoint: a with-plugin run whose Write Claude Code
refuses (no --allow-tools Write) is noted on its case and found; with --strict-tools it is a run error and the
session partial; `plugin-eval check` carries the pre-run findings."""

from __future__ import annotations

import json
import subprocess
import sys

WRITES = {
    "wrote": """
        ---
        type: file_exists
        path: hello.txt
        ---
    """,
}
SCRIPT = {
    "with": [
        {"tool": "Skill", "input": {"skill": "greeter:greet"}},
        {"tool": "Write", "input": {"file_path": "{cwd}/hello.txt", "content": "Hello from the plugin"}},
        {"text": "I could not write hello.txt."},
    ],
    "without": [{"text": "Hello."}],
}


def test_a_refused_write_is_the_cases_first_note_and_a_finding(suite):
    suite.case("writes", "Write a greeting into hello.txt.", frontmatter={"runs": 2}, graders=WRITES, script=SCRIPT)
    run = suite.run()
    case = run.case("writes")
    for with_run in case["arms"]["with"]:
        assert with_run["refusedTools"] == [{"tool": "Write", "why": "not granted"}]
        assert with_run["score"] == 0.0  # scored as it ran: the refusal is said, not hidden
    assert all("refusedTools" not in r for r in case["arms"]["without"])
    note = "with-plugin runs 2/2: Write refused ×2 (not granted: --allow-tools Write)"
    row = next(line for line in run.out.splitlines() if line.startswith("writes "))
    assert row.endswith(note), row
    found = {(f["kind"], f.get("grader")) for f in run.doc["findings"]}
    assert ("tool-refused", None) in found and ("tool-not-granted", "wrote") in found
    refused = next(f for f in run.doc["findings"] if f["kind"] == "tool-refused")
    assert refused["message"].startswith("Claude Code refused the agent Write (not granted) in with-plugin runs 2/2")
    assert "⚑ writes: Claude Code refused the agent Write (not granted)" in run.out
    # said before the runs too (the pre-run ones): the heading comes before the summary
    start = run.out.index("plugin-eval: ⚑ 1 finding(s) before running")
    assert start < run.out.index("plugin eval ==") and 'case "writes": grader "wrote": checks files' in run.out
    assert run.doc["partial"] is False


def test_strict_tools_makes_a_refused_run_an_error_and_the_session_partial(suite):
    suite.case("writes", "Write a greeting into hello.txt.", frontmatter={"runs": 2}, graders=WRITES, script=SCRIPT)
    run = suite.run("--strict-tools")
    assert run.rc == 2, run.out
    assert (run.doc["partial"], run.doc["partialReason"]) == (True, "tool_refused")
    case = run.case("writes")
    for with_run in case["arms"]["with"]:
        assert (with_run["errorKind"], with_run["score"]) == ("tool_refused", None)
        assert with_run["error"] == "--strict-tools: Write refused ×1 (not granted)"
    assert [r.get("errorKind") for r in case["arms"]["without"]] == [None, None]  # nothing refused there
    assert "⚠ partial (runs refused a tool (--strict-tools))" in run.out


def test_strict_tools_leaves_a_run_that_was_granted_its_tool_alone(suite):
    suite.case("writes", "Write a greeting into hello.txt.", frontmatter={"runs": 1}, graders=WRITES, script=SCRIPT)
    run = suite.run("--strict-tools", "--allow-tools", "Write")
    case = run.case("writes")
    [with_run] = case["arms"]["with"]
    assert with_run.get("errorKind") is None and "refusedTools" not in with_run and with_run["score"] == 1.0
    assert run.doc["partial"] is False
    assert not any(f["kind"] in ("tool-refused", "tool-not-granted") for f in run.doc.get("findings", []))


def test_check_reports_pre_run_findings_and_fails_on_them_only_with_strict(suite):
    leaky = {
        "said-hello": """
            ---
            type: regex
            target: trace
            pattern: Hello from the plugin
            ---
        """,
        "not-forbidden": """
            ---
            type: tool_used
            tool: Skill
            min: 0
            max: 0
            arm: both
            ---
        """,
    }
    suite.case("leaky", "Use the greet skill to say hello.", frontmatter={"runs": 3}, graders=leaky, script=SCRIPT)
    check = [sys.executable, "-m", "pytest_plugin_eval.cli.main", "check", str(suite.root)]
    plain = subprocess.run([*check, "--json"], capture_output=True, text=True)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    found = {(f["kind"], f.get("grader")) for f in json.loads(plain.stdout)["findings"]}
    assert found == {("prompt-names-skill", None), ("passes-on-shipped-text", "said-hello")}
    strict = subprocess.run([*check, "--strict"], capture_output=True, text=True)
    assert strict.returncode == 1
    assert '⚑ case "leaky": the prompt names skill greeter:greet ("greet skill")' in strict.stdout


def test_under_xdist_the_start_findings_are_said_once_before_the_runs(suite):
    suite.case("writes", "Write a greeting into hello.txt.", frontmatter={"runs": 2}, graders=WRITES, script=SCRIPT)
    suite.case("says-hello", "Say hello.", frontmatter={"runs": 2}, graders=WRITES, script=SCRIPT)
    run = suite.run("-n", "2")
    heading = "plugin-eval: ⚑ 2 finding(s) before running"
    assert run.out.count(heading) == 1, run.out
    assert run.out.index(heading) < run.out.index("plugin eval ==")
    for case in ("writes", "says-hello"):
        assert run.out.count(f'⚑ case "{case}": grader "wrote": checks files') == 1, run.out


def test_an_evals_json_eval_is_linted_at_the_start_and_in_the_results(suite):
    folder = suite.root / "skills" / "greet" / "evals"
    folder.mkdir(parents=True)
    evals = {
        "skill_name": "greet",
        "evals": [
            {"id": 1, "prompt": "Use the greet skill to say hello.", "expectations": ["The reply says hello"]},
            {"id": 2, "prompt": "Say hello to me.", "expectations": ["The reply says hello"]},
        ],
    }
    (folder / "evals.json").write_text(json.dumps(evals))
    run = suite.run()
    start = run.out.index("plugin-eval: ⚑ 1 finding(s) before running")
    assert start < run.out.index('⚑ case "greet/1": the prompt names skill greeter:greet ("greet skill")'), run.out
    # the results document carries it too (its cases read back from the evals.json), and nothing of the other eval
    linted = [(f["case"], f["kind"]) for f in run.doc["findings"] if f["kind"] != "no-delta-possible"]
    assert linted == [("greet/1", "prompt-names-skill")]
