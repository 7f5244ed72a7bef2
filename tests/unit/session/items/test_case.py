"""Unit tests for the pytest nodes' logic (pytest_plugin_eval.session.items.case) and the EvalSession helpers they use
(selection by --case/--tag, the items of a case, what their reports carry) — without building a pytest session:
node methods are called on instances made with `object.__new__`, and EvalSession gets a fake config."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from helpers.plugin import Suite

from pytest_plugin_eval.core.run_id import ARM_LABELS, RunId
from pytest_plugin_eval.engine import rules, wire
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.load.case import CaseLoadError
from pytest_plugin_eval.results.model import GraderResult, RunResult
from pytest_plugin_eval.session.eval_session import SESSION_KEY, EvalSession
from pytest_plugin_eval.session.items import case as collect
from pytest_plugin_eval.session.items.case import CaseFile, RunItem, describe_run, deselect_unselected
from pytest_plugin_eval.session.verdicts import JUNIT_ATTR


def pairs(runs) -> list[tuple[str, int]]:
    return [(run.arm, run.index) for run in runs]


# ---- a suite -------------------------------------------------------------------------------------------------


def eval_session(**options) -> EvalSession:
    return EvalSession(SimpleNamespace(option=SimpleNamespace()), EvalOptions(**options))


# ---- RunItem.should_fail ---------------------------------------------------------------------------------------


def result(arm="with", *, passed=True, scored=True, error_kind=None, score=1.0) -> RunResult:
    grader = GraderResult("g", passed, 1, "why", scored=scored)
    return RunResult(arm, 1, score=score, passed=passed, error_kind=error_kind, graders=[grader])


def should_fail(arm: str, run: RunResult) -> bool:
    return RunItem.should_fail(SimpleNamespace(arm=arm), run)


@pytest.mark.parametrize(
    "arm, run",
    [
        ("with", result()),
        ("with", result(passed=False, score=0.0)),  # failing graders are its case's verdict, not the run's
        ("without", result("without", passed=False, score=0.0)),
        ("with", result(passed=False, scored=False)),  # an indicator or a skipped paid grader
        ("with", result(error_kind="timeout", passed=True)),  # graded: its graders decide
        ("with", result(error_kind="max_turns", passed=False, score=0.0)),
        ("without", result("without", error_kind="agent", passed=False, score=0.0)),
        ("with", result(error_kind="scaffold", passed=True)),
        ("with", result(error_kind="crash", passed=False, score=0.0)),  # graded on what it produced
    ],
)
def test_graders_and_agent_errors_never_fail_a_run_item(arm, run):
    assert should_fail(arm, run) is False


@pytest.mark.parametrize("kind", ["start", "api", "auth"])
@pytest.mark.parametrize("arm", ["with", "without"])
def test_a_run_the_harness_could_not_run_fails_either_arm(arm, kind):
    # The session exits non-zero for these too (1: start; 2: api/auth), so a failed item tells the same story.
    assert should_fail(arm, result(arm, error_kind=kind, passed=True)) is True


def test_should_fail_without_graders():
    assert should_fail("with", RunResult("with", 1, score=None, passed=False)) is False


# ---- describe_run --------------------------------------------------------------------------------------------


def test_describe_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = RunResult(
        "without",
        2,
        score=0.5,
        passed=False,
        error="exit 1: boom",
        error_kind="agent",
        trace_path=str(tmp_path / "runs" / "c" / "without-2" / "trace.jsonl"),
        graders=[
            GraderResult("says-hello", True, 2, "matched hello"),
            GraderResult("skill", False, 1, "Skill called 0x (expected 1..∞)", with_only=True, scored=False),
            GraderResult("polite", False, 1, "judge unavailable: down", scored=False, errored=True),
            GraderResult("file", False, 0.5, "out.txt missing (expected present)"),
        ],
    )
    assert describe_run(run, SimpleNamespace(name="drafts")) == "\n".join(
        [
            "drafts [no-plugin run 2]: score 0.50",
            "  error: exit 1: boom",
            "  ✓ says-hello (weight 2): matched hello",
            "  ✗ skill [with-only, not scored]: Skill called 0x (expected 1..∞)",
            "  ✗ polite [not scored]: judge unavailable: down",
            "  ✗ file (weight 0.5): out.txt missing (expected present)",
            f"  trace: {os.path.join('runs', 'c', 'without-2', 'trace.jsonl')}",
        ]
    )


def test_describe_an_unscored_run():
    run = RunResult("with", 1, score=None, passed=False, error="could not start", error_kind="start")
    assert describe_run(run, SimpleNamespace(name="c")) == "c [with-plugin run 1]: not scored\n  error: could not start"


def test_arm_labels_select_one_arm_each_with_k():
    assert ARM_LABELS == {"with": "with-plugin", "without": "no-plugin", "against": "against"}
    labels = [*ARM_LABELS.values(), "ablate-"]
    assert all(label not in other for label in labels for other in labels if other != label)


# ---- selection -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, pattern, matches",
    [
        ("drafts-commit", "drafts-*", True),
        ("commit-drafts", "drafts-*", False),
        ("Drafts-commit", "drafts-*", False),  # case-sensitive
        ("case1", "case?", True),
        ("case12", "case?", False),
        ("case[1]", "case[1]", True),  # [ ] are literal
        ("case1", "case[1]", False),
        ("case[12]", "case[1*", True),
        ("a/b", "a*", True),
        ("anything", "*", True),
    ],
)
def test_glob(name, pattern, matches):
    assert rules.glob(name, pattern) is matches


def test_selected_name_by_case_globs_and_tags():
    assert eval_session().selected_name("anything", ()) is True
    by_glob = eval_session(case_globs=("draft*", "fix[1]"))
    assert [by_glob.selected_name(n, ()) for n in ("drafts", "fix[1]", "fix1", "other")] == [True, True, False, False]
    by_tag = eval_session(tags=("smoke", "fast"))
    assert [by_tag.selected_name("c", t) for t in (("smoke",), ("slow", "fast"), ("slow",), ())] == [
        True,
        True,
        False,
        False,
    ]
    both = eval_session(case_globs=("a*",), tags=("smoke",))
    assert [both.selected_name(n, t) for n, t in (("ab", ("smoke",)), ("ab", ()), ("b", ("smoke",)))] == [
        True,
        False,
        False,
    ]


def test_deselect_unselected_keeps_other_items_and_reports_the_dropped(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("alpha", fm="tags: [smoke]")
    suite.case("beta")
    session = eval_session(tags=("smoke",))
    items = []
    for name in ("alpha", "beta", "alpha"):
        item = object.__new__(RunItem)
        item.case = suite.load(name)
        items.append(item)
    other = SimpleNamespace(name="test_something")
    items.insert(1, other)
    deselected = []
    config = SimpleNamespace(
        stash={SESSION_KEY: session}, hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items))
    )
    original = list(items)
    deselect_unselected(config, items)
    assert items == [original[0], other, original[3]]
    assert deselected == [original[2]]


def test_deselect_with_everything_selected_calls_no_hook(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("alpha")
    item = object.__new__(RunItem)
    item.case = suite.load("alpha")
    items = [item]
    config = SimpleNamespace(stash={SESSION_KEY: eval_session()}, hook=None)  # the hook would raise if called
    deselect_unselected(config, items)
    assert items == [item]


# ---- the items of a case -------------------------------------------------------------------------------------


def test_a_case_of_a_plugin_runs_both_arms(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", fm="runs: 2")
    case, session = suite.load(), eval_session()
    options = session.options
    assert (rules.ablation(case, options), rules.two_arm(case, options), rules.arms_for(case, options)) == (
        "with-without",
        True,
        ("with", "without"),
    )
    assert pairs(session.runs_to_collect(case)) == [("with", 1), ("with", 2), ("without", 1), ("without", 2)]


def test_against_and_ablate_add_arms_whose_runs_go_round_by_round(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", fm="runs: 2")
    case, session = suite.load(), eval_session(against="v1", ablate=("s",))
    assert rules.arms_for(case, session.options) == ("with", "without", "against", "ablate:s")
    assert pairs(session.runs_to_collect(case)) == [
        *[("with", 1), ("without", 1), ("against", 1), ("ablate:s", 1)],
        *[("with", 2), ("without", 2), ("against", 2), ("ablate:s", 2)],
    ]
    assert rules.arms_for(case, eval_session(against="v1", ablation="none").options) == ("with", "against")


def test_runs_option_and_ablation_none(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", fm="runs: 2")
    case = suite.load()
    assert pairs(eval_session(runs=3, ablation="none").runs_to_collect(case)) == [("with", 1), ("with", 2), ("with", 3)]
    assert rules.runs_for(suite.load(), EvalOptions()) == 2


def test_a_folder_without_a_manifest_is_a_plugin_and_runs_both_arms(tmp_path):
    # Claude Code loads any folder as a plugin (named after the folder), so there is a plugin to strip.
    suite = Suite(tmp_path, version="2.0.0", manifest=False)
    suite.case("c")
    case, session = suite.load(), eval_session()
    assert case.plugin_dirs == (suite.plugin,)
    assert (rules.ablation(case, session.options), rules.two_arm(case, session.options)) == ("with-without", True)
    assert pairs(session.runs_to_collect(case))[-1] == ("without", 3)
    assert session.case_result(case).single_arm_reason is None
    assert [p.name for p in session.suite_info(case).plugins] == ["plugin"]


HISTORY_CASE = (
    'schema_version: "1.0"\nname: resumed\nexecution:\n  prompt: Go on.\ncontext:\n  history_file: history.jsonl\n'
)


def test_a_resumed_history_runs_single_arm(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", md=False, case_yaml=HISTORY_CASE, files={"history.jsonl": "{}\n"})
    case, session = suite.load(), eval_session()
    assert pairs(session.runs_to_collect(case)) == [("with", 1), ("with", 2), ("with", 3)]
    assert session.case_result(case).single_arm_reason == "a resumed history_file carries the plugin into both arms"
    assert (
        'case "resumed" runs single-arm (no Δ): its history_file carries the plugin into both arms'
        in session.case_notices(case)
    )


def test_with_regrade_the_items_are_the_stored_runs(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c")
    session = eval_session()
    asked = []
    session.stored = SimpleNamespace(
        runs_of=lambda case_dir: asked.append(case_dir) or [RunId("evals/c", "without", 4)]
    )
    assert pairs(session.runs_to_collect(suite.load())) == [("without", 4)]
    assert asked == ["evals/c"]


# ---- what the reports carry ------------------------------------------------------------------------------------


def test_case_result_describes_the_case_before_any_run(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", fm="name: drafts\nruns: 2\nmodel: haiku\ntags: [smoke]\ndescription: Drafts.\nmax_turns: 4")
    header = eval_session(runs=5, model="opus").case_result(suite.load()).header_json()
    assert header == {
        "name": "drafts",
        "dir": "evals/c",
        "source": "prose",
        "promptMarkdown": "Say hello.",
        "runsPerCase": 2,
        "timeoutSeconds": 300,
        "maxTurns": 4,
        "model": "haiku",
        "graders": [
            {
                "name": "ok",
                "type": "regex",
                "weight": 1,
                "config": {"target": "last_message", "pattern": "hello", "flags": "", "match": "contains"},
            }
        ],
        "runsPerArm": 5,
        "effectiveModel": "opus",
        "tags": ["smoke"],
        "description": "Drafts.",
    }


def test_case_notices(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case(
        "c",
        md=False,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n'
        "  allowed_tools: [Read, Bash, WebFetch, Monitor]\n  disallowed_tools: [Agent]\n"
        "context:\n  scaffold_script: setup.sh\n",
        files={"setup.sh": "#!/bin/sh\n"},
    )
    case = suite.load()
    assert eval_session(allow_tools=("WebFetch",), disallow_tools=("TaskStop",), mocks="off").case_notices(case) == [
        '⚠ case "n": its scaffold_script is not run without --scaffold; the case runs against an unstaged workspace',
        '⚠ case "n": allowed_tools asks for Bash, which only the operator can grant — the agent runs without it '
        "unless you pass --allow-tools Bash",
        '⚠ case "n": allowed_tools asks for Monitor, which is never available in an evaluation',
        "n: removed from Claude's tools by the case's disallowed_tools: Agent",
        "Removed from Claude's tools in every case (--disallow-tools): TaskStop",
        "⚠ --mocks off: the plugins' real MCP servers start, as you, outside the sandbox (their tools still need "
        "--allow-tools)",
    ]
    assert eval_session(scaffold=True, allow_tools=("Bash(git *)", "WebFetch")).case_notices(case)[:2] == [
        "Note: --scaffold runs each case's scaffold_script as you, outside the agent's sandbox",
        '⚠ case "n": allowed_tools asks for Monitor, which is never available in an evaluation',
    ]


def test_a_misspelled_tool_grant_gets_a_did_you_mean(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case(
        "c",
        md=False,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n  allowed_tools: [Reed, Grep]\n',
    )
    notes = eval_session(allow_tools=("Write", "mcp__s__t", "NewTool")).case_notices(suite.load())
    assert notes == ['⚠ case "n": allowed_tools entry Reed is no tool of Claude Code\'s — did you mean Read?']


def test_regrading_says_nothing_about_how_a_case_would_run(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case(
        "c", md=False, case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n  allowed_tools: [Bash]\n'
    )
    session = eval_session(allow_tools=("WebFetch",), mocks="off")
    assert session.case_notices(suite.load())  # a run would be told about both
    session.stored = object()  # --regrade: the runs are stored, nothing runs
    assert session.case_notices(suite.load()) == []


def test_run_report_carries_case_run_suite_and_notices(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", fm="disallowed_tools: [Agent]")
    case = suite.load()
    item = object.__new__(RunItem)
    item.case, item.result, item.run_id = case, None, RunId.of(case.dir, "with", 1)
    item.config = SimpleNamespace(stash={SESSION_KEY: eval_session()})
    assert item.run_report() is None
    item.result = RunResult("with", 1, score=1.0, passed=True)
    report = item.run_report()
    assert (report.case.name, report.case.dir, report.run, report.eval_root) == (
        "c",
        "evals/c",
        item.result,
        str(suite.evals),
    )
    assert (report.suite.root, report.suite.ablation) == (str(suite.plugin), "with-without")
    assert [p.to_json() for p in report.suite.plugins] == [{"name": "p", "version": "2.0.0", "path": str(suite.plugin)}]
    assert report.notices == ["c: removed from Claude's tools by the case's disallowed_tools: Agent"]


def test_a_run_items_call_report_carries_the_run_and_every_report_its_junit_names(tmp_path):
    """What hooks.pytest_runtest_makereport leaves on a run item's reports (collect.carried); other items' reports
    are left alone, and only pooled items are handed to the run pool."""
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c")
    item = object.__new__(RunItem)
    item.case, item.skipped_run, item.unneeded = suite.load(), None, None
    item.run_id = RunId.of(item.case.dir, "without", 2)
    item.result = RunResult("without", 2, score=1.0, passed=True, duration_seconds=3.5)
    item.config = SimpleNamespace(stash={SESSION_KEY: eval_session()}, option=SimpleNamespace())
    setup, call = SimpleNamespace(), SimpleNamespace(duration=9.0)
    assert collect.carried(item, "setup", setup) is setup
    assert vars(setup) == {JUNIT_ATTR: ["p.c", "no-plugin-2"]}
    collect.carried(item, "call", call)
    assert call.duration == 3.5  # the run's own time, not the wait for it
    assert wire.RunReport.from_json(getattr(call, wire.RUN_ATTR)).run.score == 1.0
    plain, report = SimpleNamespace(), SimpleNamespace()
    assert collect.carried(plain, "call", report) is report and vars(report) == {}
    assert collect.pooled([plain, item]) == [item]


def test_load_error_report_names_the_case_relative_to_the_suite(tmp_path):
    suite = Suite(tmp_path, version="2.0.0")
    folder = suite.case("broken", fm="runs: 0")
    with pytest.raises(CaseLoadError) as info:
        suite.load("broken")
    node = object.__new__(CaseFile)
    node.eval_root, node.load_error = suite.evals, None
    assert node.load_error_report() is None
    node.load_error = info.value
    report = node.load_error_report()
    assert report.eval_root == str(suite.evals)
    assert report.entry.to_json() == {
        "case": "broken",
        "dir": "evals/broken",
        "message": "evals/broken/prompt.md: runs: must be a whole number from 1 to 50 (got 0)",
        "problems": [
            {"file": "evals/broken/prompt.md", "key": "runs", "message": "must be a whole number from 1 to 50 (got 0)"}
        ],
    }
    assert folder.name == "broken"


# ---- --shard: balanced shares of cases ---------------------------------------------------------------------


def test_shares_keep_cases_whole_and_balance_the_runs():
    from pytest_plugin_eval.session.items.case import shares

    cases = {"a": 6, "b": 6, "c": 2, "d": 2, "e": 2, "f": 4}
    two = shares(cases, 2)
    assert sorted(sum(two, [])) == sorted(cases)  # every case once
    loads = sorted(sum(cases[c] for c in share) for share in two)
    assert loads == [10, 12]  # as even as whole cases allow
    assert shares(cases, 2) == two  # the same on every machine
    assert [len(s) for s in shares({"a": 1}, 3)] == [1, 0, 0]


def test_a_judge_that_is_the_model_under_test_is_a_notice(tmp_path, monkeypatch):
    for name in ("ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL"):
        monkeypatch.delenv(name, raising=False)
    suite = Suite(tmp_path, version="2.0.0")
    suite.case("c", graders={"kind": "---\ntype: llm\n---\nIt is kind.\n"})
    case = suite.load()
    (note,) = [n for n in eval_session(model="haiku").case_notices(case) if "model under test" in n]
    assert note.startswith('⚠ case "c": its judge (claude-haiku-') and "(kind)" in note
    assert not [n for n in eval_session(model="sonnet").case_notices(case) if "model under test" in n]
    assert not [n for n in eval_session(model="haiku", judge_model="opus").case_notices(case) if "model under" in n]
