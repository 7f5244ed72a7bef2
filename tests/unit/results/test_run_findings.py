"""Findings over a session's runs (results/run_findings.py, results/refused.py): for each kind a case that must
be flagged and a near-miss that must not be, and the findings' place in the document."""

from __future__ import annotations

import json

from helpers.documents import case_of, suite_result

from pytest_plugin_eval.results.findings import Finding, unique
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult, SuiteResult
from pytest_plugin_eval.results.refused import refusal_explains_failures, refusal_note
from pytest_plugin_eval.results.run_findings import case_findings
from pytest_plugin_eval.results.verdict import case_verdict

ANSWER = GraderInfo("answer", "regex", 1, {"pattern": "x"})
STYLE = GraderInfo("style", "regex", 1, {"pattern": "y"})
FIRED = GraderInfo("fired", "tool_used", 1, {"tool": "Skill"})
DECOY = GraderInfo("no-skill", "tool_used", 1, {"tool": "Skill", "min": 0, "max": 0})
WRITE_REFUSED = [{"tool": "Write", "why": "not granted"}]


def run(arm: str, index: int, refused=(), error_kind=None, **verdicts: bool) -> RunResult:
    graders = [GraderResult(name.replace("_", "-"), ok, 1, "") for name, ok in verdicts.items()]
    for g in graders:
        if g.name == "fired":
            g.with_only, g.scored = True, False
    scored = [g for g in graders if g.scored]
    score = None if error_kind else (sum(g.passed for g in scored) / len(scored) if scored else 1.0)
    return RunResult(
        arm,
        index,
        score=score,
        passed=score == 1.0,
        graders=graders,
        refused_tools=list(refused),
        error_kind=error_kind,
    )


def kinds(case) -> list[tuple[str, str | None]]:
    return [(f.kind, f.grader) for f in case_findings(case)]


def test_both_arms_at_the_ceiling_is_flagged_but_not_a_decoy():
    ceiling = case_of(*(run(arm, i, answer=True) for arm in ("with", "without") for i in (1, 2)), graders=[ANSWER])
    assert kinds(ceiling) == [("no-delta-possible", None)]
    decoy = case_of(
        *(run(arm, i, answer=True, no_skill=True) for arm in ("with", "without") for i in (1, 2)),
        graders=[ANSWER, DECOY],
    )
    assert kinds(decoy) == []  # a should-not-fire case's Δ is 0 by design
    moved = case_of(run("with", 1, answer=True), run("with", 2, answer=True), run("without", 1, answer=False),
                    run("without", 2, answer=True), graders=[ANSWER])  # fmt: skip
    assert kinds(moved) == []


def test_a_grader_that_never_varies_while_no_other_tells_the_arms_apart():
    runs = [run(arm, i, answer=i == 1, style=True) for arm in ("with", "without") for i in (1, 2)]
    assert kinds(case_of(*runs, graders=[ANSWER, STYLE])) == [("grader-never-varies", "style")]
    (found,) = case_findings(case_of(*runs, graders=[ANSWER, STYLE]))
    assert found.message == (
        "passed in every run of both arms (4/4), and no other grader tells the arms apart either: the case "
        "cannot show what the plugin adds"
    )


def test_a_guard_beside_a_grader_that_tells_the_arms_apart_is_not_flagged():
    """A grader every answer passes (the file exists, the reply names the subject) checks the floor while the
    other measures the Δ."""
    runs = [run("with", i, answer=True, style=True) for i in (1, 2)]
    runs += [run("without", i, answer=False, style=True) for i in (1, 2)]
    assert kinds(case_of(*runs, graders=[ANSWER, STYLE])) == []
    # a share that differs, not a grader that fails once in each arm: 1/2 against 1/3 still tells them apart
    runs = [run("with", 1, answer=True, style=True), run("with", 2, answer=False, style=True)]
    runs += [run("without", i, answer=i == 1, style=True) for i in (1, 2, 3)]
    assert kinds(case_of(*runs, graders=[ANSWER, STYLE])) == []


def test_a_grader_that_fails_every_run():
    runs = [run("with", i, answer=True, style=False) for i in (1, 2)]
    runs += [run("without", i, answer=False, style=False) for i in (1, 2)]
    assert ("grader-always-fails", "style") in kinds(case_of(*runs, graders=[ANSWER, STYLE]))
    once = case_of(run("with", 1, answer=False), graders=[ANSWER])  # one run decides nothing
    assert kinds(once) == []
    runs[0] = run("with", 1, answer=True, style=True)  # one pass is enough
    assert ("grader-always-fails", "style") not in kinds(case_of(*runs, graders=[ANSWER, STYLE]))


def test_the_other_arms_are_not_counted_as_with_or_without():
    """--against and --ablate add arms: 'every run of both arms' still means with and without the plugin."""
    runs = [run(arm, i, answer=i == 1, style=False) for arm in ("with", "without", "against") for i in (1, 2)]
    found = [f for f in case_findings(case_of(*runs, graders=[ANSWER, STYLE])) if f.kind == "grader-always-fails"]
    assert [f.message.split(":")[0] for f in found] == ["failed in every run of both arms (4/4)"]
    # a guard every with and without run passes stays one when an ablation fails it: that arm's Δ says so
    runs = [run(arm, i, answer=True, style=True) for arm in ("with", "without") for i in (1, 2)]
    runs += [run("ablate:review", i, answer=True, style=False) for i in (1, 2)]
    assert kinds(case_of(*runs, graders=[ANSWER, STYLE])) == [("no-delta-possible", None)]


def test_an_indicator_that_never_fired_while_a_delta_is_reported():
    runs = [run("with", i, answer=True, fired=False) for i in (1, 2)]
    runs += [run("without", i, answer=False) for i in (1, 2)]
    assert kinds(case_of(*runs, graders=[ANSWER, FIRED])) == [("never-fired", None)]
    runs[0] = run("with", 1, answer=True, fired=True)
    assert kinds(case_of(*runs, graders=[ANSWER, FIRED])) == []


def test_a_write_denied_inside_the_workspace_names_the_folders_claude_code_guards():
    """hookify's skill writes .claude/hookify.*.local.md, inside the run's working directory: Claude Code refused it
    all the same, and the fix said only to keep the task inside the working directory, where it was."""
    runs = [run("with", i, refused=[{"tool": "Write", "why": "permission denied"}], answer=False) for i in (1, 2)]
    case = case_of(*runs, *(run("without", i, answer=False) for i in (1, 2)), graders=[ANSWER])
    [finding] = [f for f in case_findings(case) if f.kind == "tool-refused"]
    assert ".claude/" in finding.fix and ".git/" in finding.fix
    runs = [run("with", 1, refused=[{"tool": "Skill", "why": "permission denied"}], answer=False)]
    case = case_of(*runs, run("without", 1, answer=False), graders=[ANSWER])
    [finding] = [f for f in case_findings(case) if f.kind == "tool-refused"]
    assert "list Skill in the case's allowed_tools" in finding.fix  # a command with allowed-tools, not a path


def test_refused_runs_become_a_finding_and_the_first_note():
    runs = [run("with", i, refused=WRITE_REFUSED, answer=False) for i in (1, 2, 3)]
    runs += [run("without", i, answer=False) for i in (1, 2, 3)]
    runs[3] = run("without", 1, answer=True)
    case = case_of(*runs, graders=[ANSWER])
    [finding] = [f for f in case_findings(case) if f.kind == "tool-refused"]
    assert finding.message.startswith("Claude Code refused the agent Write (not granted) in with-plugin runs 3/3")
    assert finding.fix.startswith("pass --allow-tools Write")
    assert refusal_note(case) == "with-plugin runs 3/3: Write refused ×3 (not granted: --allow-tools Write)"
    assert refusal_explains_failures(case)
    # a refusal in another version's runs only is named by that arm, not left out
    other = case_of(
        *runs[3:], *(run("against", i, refused=WRITE_REFUSED, answer=False) for i in (1, 2)), graders=[ANSWER]
    )
    [finding] = [f for f in case_findings(other) if f.kind == "tool-refused"]
    assert " in against runs 2/2: " in finding.message
    # the near-miss: the same failing runs, nothing refused
    plain = case_of(*(run(arm, i, answer=False) for arm in ("with", "without") for i in (1, 2, 3)), graders=[ANSWER])
    assert "tool-refused" not in [f.kind for f in case_findings(plain)] and refusal_note(plain) is None


def test_the_failed_verdict_of_a_refused_case_leads_with_the_refusal():
    case = case_of(*(run("with", i, refused=WRITE_REFUSED, answer=False) for i in (1, 2)), graders=[ANSWER])
    case.warnings = ['grader "answer" checks files the agent writes, but no tool that writes files is granted']
    verdict = case_verdict(case, 1.0)
    assert verdict.headline.startswith("with-plugin runs 2/2: Write refused ×2 (not granted: --allow-tools Write) — ")
    assert any(d.startswith("⚠ refused: with-plugin runs 2/2") for d in verdict.details)


def test_a_refusal_in_only_some_failing_runs_is_not_the_first_note():
    runs = [run("with", 1, refused=WRITE_REFUSED, answer=False), run("with", 2, answer=False)]
    case = case_of(*runs, graders=[ANSWER])
    assert refusal_note(case) == "with-plugin runs 1/2: Write refused ×1 (not granted: --allow-tools Write)"
    assert not refusal_explains_failures(case)


def test_findings_are_a_top_level_list_of_the_document_and_read_back():
    document = suite_result(case_of(run("with", 1, answer=True), graders=[ANSWER]))
    assert "findings" not in document.to_json()  # none: the key is left out, as before it existed
    document.findings = [
        Finding("a", grader="answer", kind="unanchored-number", message="m", fix="f"),
        Finding("a", kind="tool-refused", message="m2", fix="f2"),
    ]
    written = json.loads(json.dumps(document.to_json()))
    assert written["findings"] == [
        {"case": "a", "grader": "answer", "kind": "unanchored-number", "message": "m", "fix": "f"},
        {"case": "a", "kind": "tool-refused", "message": "m2", "fix": "f2"},
    ]
    assert written["schemaVersion"] == 1
    assert SuiteResult.from_json(written).findings == document.findings


def test_the_same_finding_twice_is_kept_once():
    f = Finding("a", kind="k", message="m", fix="f")
    assert unique([f, Finding("a", kind="k", message="m", fix="f"), Finding("b", kind="k", message="m", fix="f")]) == [
        f,
        Finding("b", kind="k", message="m", fix="f"),
    ]


def test_runs_whose_simulated_user_reached_its_cap_are_one_finding_and_uncapped_runs_none():
    def talked(arm: str, index: int, capped: bool) -> RunResult:
        r = run(arm, index, answer=index == 1)
        r.conversation = {"messages": [], "questions": [], "userCostUsd": 0.0, "userCapped": capped}
        return r

    case = case_of(talked("with", 1, True), talked("with", 2, False), talked("without", 1, False),
                   talked("without", 2, False), graders=[ANSWER])  # fmt: skip
    [finding] = [f for f in case_findings(case) if f.kind == "user-turns-capped"]
    assert "with-plugin runs 1/2" in finding.message and "without" not in finding.message
    assert "max_user_turns" in finding.fix
    calm = case_of(*(talked(arm, i, False) for arm in ("with", "without") for i in (1, 2)), graders=[ANSWER])
    assert "user-turns-capped" not in [f.kind for f in case_findings(calm)]
