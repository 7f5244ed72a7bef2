"""Two sessions side by side (results.compare): verdicts and their intervals, Δ's change by MOVER, cases added
and removed, graders whose pass rate moved, the warnings when the sessions are not measured alike, the compare
document, and reading a session with one-line errors."""

from __future__ import annotations

import json

import pytest
from helpers.documents import GREETING, case_result, suite_result

from pytest_plugin_eval import stats
from pytest_plugin_eval.analysis.compare import CompareError, change_of_delta, compare, read_document
from pytest_plugin_eval.analysis.regrade import results_folder_problem
from pytest_plugin_eval.report.comparison import lines, view
from pytest_plugin_eval.report.html import comparison_page
from pytest_plugin_eval.report.markdown import comparison_markdown
from pytest_plugin_eval.results.comparison import ADDED, BETTER, COMPARED, NO_CHANGE, REMOVED, WORSE, Change
from pytest_plugin_eval.results.efficiency import Tokens
from pytest_plugin_eval.results.model import (
    CaseResult,
    GraderInfo,
    GraderResult,
    PluginInfo,
    RunResult,
    SuiteResult,
)

SKILL = GraderInfo("skill-fired", "tool_used", 1, {"tool": "Skill"})


def runs(arm: str, passes, cost: float = 0.01) -> list[RunResult]:
    """One run per entry: True/False (the greeting grader passes or not), a score, or None (not scored)."""
    out = []
    for i, p in enumerate(passes, 1):
        if p is None:
            out.append(RunResult(arm, i, score=None, passed=False, error_kind="api", error="overloaded"))
            continue
        score = float(p)
        graders = [GraderResult("greeting", score == 1.0, 1, "")]
        if arm == "with":
            graders.append(GraderResult("skill-fired", True, 1, "", with_only=True, scored=False))
        out.append(
            RunResult(arm, i, score=score, passed=score == 1.0, cost_usd=cost, duration_seconds=2.0, graders=graders)
        )
    return out


def case(name: str, with_, without=None, graders=(GREETING, SKILL), **fields) -> CaseResult:
    return case_result(
        name, runs("with", with_), None if without is None else runs("without", without), graders, **fields
    )


def document(*cases: CaseResult, partial: str | None = None, **suite) -> SuiteResult:
    suite.setdefault("ablation", "with-without")
    suite["judge_model_resolved"] = suite.pop("judge", "claude-haiku-4-5")
    return suite_result(*cases, partial=partial, plugin=PluginInfo(suite.pop("plugin", "greeter"), "/p"), **suite)


ALL, NONE = [1, 1, 1], [0, 0, 0]


# ---- verdicts ------------------------------------------------------------------------------------------------


def test_with_score_worse_better_and_no_detectable_change():
    old = document(case("down", ALL, NONE), case("up", NONE, NONE), case("same", ALL, NONE))
    new = document(case("down", NONE, NONE), case("up", ALL, NONE), case("same", ALL, NONE))
    by = {c.name: c for c in compare(old, new).cases}
    assert by["down"].with_score.verdict == WORSE and by["down"].with_score.change == -1.0
    assert by["up"].with_score.verdict == BETTER
    assert by["same"].with_score.verdict == NO_CHANGE and by["same"].with_score.change == 0.0
    # The change in WITH is delta_interval(new with-scores, old with-scores).
    assert by["down"].with_score.interval == stats.delta_interval([0.0] * 3, [1.0] * 3)
    assert by["down"].worse and not by["same"].worse


def test_too_few_runs_give_no_interval_and_no_verdict():
    old, new = document(case("one", [1])), document(case("one", [0, None]))  # one scored run on each side
    (c,) = compare(old, new).cases
    assert c.with_score.interval is None and c.with_score.verdict is None
    assert c.runs == (1, 1)
    assert compare(old, new).verdicts("with")["unknown"] == 1
    assert c.with_score.to_json() == {"old": 1.0, "new": 0.0, "change": -1.0, "interval": None, "verdict": None}


def test_the_change_in_delta_is_a_difference_of_differences():
    five_pass, five_fail = [1] * 5, [0] * 5
    old = document(case("flip", five_pass, five_fail), case("flat", five_pass, five_fail))
    new = document(case("flip", five_fail, five_pass), case("flat", five_pass, five_fail))
    by = {c.name: c for c in compare(old, new).cases}
    flip = by["flip"].delta
    assert (flip.old, flip.new, flip.change) == (1.0, -1.0, -2.0)
    assert flip.verdict == WORSE and flip.interval[0] >= -2.0
    assert by["flat"].delta.verdict == NO_CHANGE and by["flat"].delta.interval[0] < 0 < by["flat"].delta.interval[1]


def test_single_arm_cases_have_no_delta_change():
    old = document(case("a", ALL), ablation="none")
    new = document(case("a", NONE), ablation="none")
    (c,) = compare(old, new).cases
    assert c.delta is None and c.with_score.verdict == WORSE
    assert compare(old, new).verdicts("delta") == {BETTER: 0, WORSE: 0, NO_CHANGE: 0, "unknown": 1}


def test_mover_reduces_to_the_root_sum_of_squares_when_both_intervals_are_symmetric():
    low, high = change_of_delta((0.2, -0.1, 0.5), (0.6, 0.2, 1.0))
    assert low == pytest.approx(0.4 - (0.4**2 + 0.3**2) ** 0.5)
    assert high == pytest.approx(0.4 + (0.4**2 + 0.3**2) ** 0.5)


def test_mover_keeps_the_asymmetry_of_each_side_and_stays_within_bounds():
    # Δnew = 1.0 with its interval clipped at 1: nothing above it, so the upper side comes from the old Δ alone.
    low, high = change_of_delta((0.0, -0.5, 0.5), (1.0, 0.2, 1.0))
    assert high == pytest.approx(1.0 + 0.5)
    assert low == pytest.approx(1.0 - (0.8**2 + 0.5**2) ** 0.5)
    assert change_of_delta((-1.0, -1.0, -0.2), (1.0, 0.2, 1.0))[1] == 2.0
    assert change_of_delta(None, (1.0, 0.2, 1.0)) is None


# ---- cases and graders ---------------------------------------------------------------------------------------


def test_cases_added_and_removed_are_listed_in_the_new_order_then_the_removed():
    old = document(case("b", ALL, NONE), case("gone", ALL, NONE))
    new = document(case("fresh", [1, 1, 0], NONE), case("b", ALL, NONE))
    comparison = compare(old, new)
    assert [(c.name, c.status) for c in comparison.cases] == [("fresh", ADDED), ("b", COMPARED), ("gone", REMOVED)]
    fresh, gone = comparison.added[0], comparison.removed[0]
    assert fresh.with_score.old is None and fresh.with_score.new == pytest.approx(2 / 3)
    assert fresh.with_score.verdict is None and fresh.delta is not None and fresh.delta.old is None
    assert gone.with_score.new is None and gone.graders == []
    summary = comparison.to_json()["summary"]
    assert summary["added"] == ["fresh"] and summary["removed"] == ["gone"] and summary["compared"] == 1
    assert comparison.mean_with.old == comparison.mean_with.new == 1.0  # over the cases both sessions have


def test_grader_pass_rates_in_the_with_arm_and_what_changed():
    stricter = GraderInfo("greeting", "regex", 1, {"pattern": "^Hello from"})
    extra = GraderInfo("short", "regex", 1, {"pattern": "^.{0,40}$"})
    old = document(case("greet", ALL, NONE, graders=(GREETING, SKILL)))
    new = document(case("greet", [1, 0, 0], NONE, graders=(stricter, SKILL, extra)))
    (c,) = compare(old, new).cases
    by = {g.name: g for g in c.graders}
    greeting = by["greeting"]
    assert (greeting.old.passed, greeting.old.runs, greeting.new.passed, greeting.new.runs) == (3, 3, 1, 3)
    assert greeting.change == pytest.approx(-2 / 3) and greeting.changed and greeting.definition_changed
    assert not by["skill-fired"].changed and not by["skill-fired"].definition_changed  # an indicator counts too
    assert by["short"].status == ADDED and by["short"].changed
    assert [g.name for g in c.changed_graders] == ["greeting", "short"]
    assert greeting.to_json() == {
        "name": "greeting",
        "status": "compared",
        "old": {"passed": 3, "runs": 3, "passRate": 1.0},
        "new": {"passed": 1, "runs": 3, "passRate": pytest.approx(1 / 3)},
        "change": pytest.approx(-2 / 3),
        "changed": True,
        "definitionChanged": True,
    }


def test_an_errored_grader_did_not_judge():
    old, new = case("j", ALL, NONE), case("j", ALL, NONE)
    new.arms["with"][0].graders[0] = GraderResult("greeting", False, 1, "judge down", errored=True, scored=False)
    (c,) = compare(document(old), document(new)).cases
    greeting = next(g for g in c.graders if g.name == "greeting")
    assert (greeting.new.passed, greeting.new.runs) == (2, 2) and not greeting.changed


# ---- warnings ------------------------------------------------------------------------------------------------


def kinds(old: SuiteResult, new: SuiteResult) -> list[str]:
    return [w.kind for w in compare(old, new).warnings]


def test_identical_set_ups_are_comparable():
    comparison = compare(document(case("a", ALL, NONE)), document(case("a", NONE, NONE)))
    assert comparison.comparable and comparison.warnings == []


@pytest.mark.parametrize(
    ("old", "new", "kind", "words"),
    [
        ({}, {"model_override": "claude-opus-4-1"}, "model", "Claude Code's default → claude-opus-4-1"),
        ({"judge": "claude-haiku-4-5"}, {"judge": "claude-sonnet-4-6"}, "judgeModel", "haiku-4-5 → claude-sonnet"),
        ({}, {"ablation": "none"}, "ablation", "with-without → none"),
        ({}, {"plugin": "other"}, "plugin", "greeter → other"),
        ({}, {"scripted": True}, "scripted", "the new session was answered by the scripted endpoint"),
        ({}, {"shard": "1/2"}, "shard", "merge the shards first"),
    ],
)
def test_session_settings_that_differ_are_warned(old, new, kind, words):
    warnings = compare(document(case("a", ALL, NONE), **old), document(case("a", ALL, NONE), **new)).warnings
    assert [w.kind for w in warnings] == [kind]
    assert words in warnings[0].message


def test_case_settings_that_differ_are_warned_with_the_case():
    old = document(case("a", ALL, NONE), case("b", ALL, NONE), case("c", ALL, NONE), case("d", ALL, NONE))
    new = document(
        case("a", [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]),
        case("b", ALL, NONE, graders=(GraderInfo("greeting", "regex", 2, {"pattern": "^Hello"}), SKILL)),
        case("c", ALL, NONE, prompt="Say hi.", max_turns=4),
        case("d", ALL),
    )
    warnings = compare(old, new).warnings
    assert [(w.kind, w.case) for w in warnings] == [
        ("runsPerArm", "a"),
        ("graders", "b"),
        ("prompt", "c"),
        ("limits", "c"),
        ("arms", "d"),
    ]
    assert warnings[0].message == "runs per arm differ: 3 → 5 (a)"
    assert warnings[1].message == "b: graders differ (greeting changed)"
    assert warnings[3].message == "c: max_turns 10 → 4"


def test_runs_chosen_by_runs_auto_are_not_a_difference_of_set_up():
    old = document(case("a", ALL, NONE, auto_runs={"runs": 3, "stopped": "decided"}))
    new = document(case("a", [1] * 5, [0] * 5, auto_runs={"runs": 5, "stopped": "decided"}))
    assert compare(old, new).warnings == []


def test_partial_sessions_are_warned_on_either_side():
    old = document(case("a", ALL, NONE), partial="api_error")
    new = document(case("a", ALL, NONE), partial="cost_ceiling")
    messages = [w.message for w in compare(old, new).warnings]
    assert messages == [
        "the old session is partial (api error): some runs are missing from its scores",
        "the new session is partial (cost ceiling): some runs are missing from its scores",
    ]
    assert compare(old, new).to_json()["new"]["partialReason"] == "cost_ceiling"


# ---- the compare document ------------------------------------------------------------------------------------


def test_the_compare_document_is_plain_camel_case_json():
    old = document(case("a", ALL, NONE), case("gone", ALL, NONE))
    new = document(case("a", NONE, NONE), judge="claude-sonnet-4-6")
    data = json.loads(json.dumps(compare(old, new, "evals/results/old", "evals/results/new").to_json()))
    assert list(data) == [
        "schemaVersion",
        "level",
        "old",
        "new",
        "comparable",
        "pluginChanges",
        "warnings",
        "summary",
        "meanWith",
        "meanDelta",
        "costUsd",
        "durationSeconds",
        "cases",
    ]
    assert data["old"]["source"] == "evals/results/old" and data["comparable"] is False
    assert data["warnings"][0] == {
        "kind": "judgeModel",
        "case": None,
        "message": "the judge model differs: claude-haiku-4-5 → claude-sonnet-4-6",
    }
    a = data["cases"][0]
    assert list(a) == ["name", "dir", "status", "with", "delta", "runs", "graders", "costUsd", "durationSeconds"]
    assert a["with"]["verdict"] == "worse" and a["delta"]["verdict"] in ("worse", "no_detectable_change")
    assert a["runs"] == {"old": 3, "new": 3}
    assert data["summary"]["worse"] == ["a"] and data["summary"]["with"]["worse"] == 1
    assert data["cases"][1]["status"] == "removed" and "interval" not in data["cases"][1]["with"]
    assert data["costUsd"]["change"] == pytest.approx(-0.06)


def test_a_change_without_an_interval_has_no_verdict_keys():
    assert Change(1.0, 2.0).to_json() == {"old": 1.0, "new": 2.0, "change": 1.0}


# ---- reading a session ---------------------------------------------------------------------------------------


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_reads_a_results_folder_or_a_json_file(tmp_path):
    doc = document(case("a", ALL, NONE)).to_json()
    write(tmp_path / "run" / "aggregate-result.json", doc)
    write(tmp_path / "results.json", doc)
    assert read_document(tmp_path / "run").cases[0].name == "a"
    assert read_document(str(tmp_path / "results.json")).cases[0].name == "a"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "no such file or folder — name a results folder"),
        ("{", "not valid JSON (Expecting property name"),
        ([1, 2], "not a results document (the JSON is not an object)"),
        ({"schemaVersion": 1, "suites": []}, "holds several suites"),
        ({"schemaVersion": 1, "old": {}, "new": {}, "cases": []}, "a comparison document"),
        ({"schemaVersion": 2, "cases": []}, "schemaVersion 2: this plugin-eval reads version 1"),
        ({"schemaVersion": 1}, "not a results document (no cases list)"),
        ({"cases": [{"arms": {}}]}, "cases[0].name: missing"),
        (
            {"cases": [{"name": "a", "arms": {"with": [{"score": "high"}]}}]},
            "cases[0].arms.with[0].score: must be a number",
        ),
    ],
)
def test_what_is_not_a_results_document_is_said_in_one_line(tmp_path, content, words):
    path = tmp_path / "x.json"
    if content is not None:
        write(path, content)
    with pytest.raises(CompareError) as info:
        read_document(path)
    message = str(info.value)
    assert words in message and "\n" not in message and str(path) in message


def test_a_folder_without_a_document_names_the_file_it_wants(tmp_path):
    with pytest.raises(CompareError, match=r"no aggregate-result.json in this folder — name a results folder"):
        read_document(tmp_path)


def test_a_model_matrixs_folder_names_its_models_folders(tmp_path):
    """calibrate, compare, pr-comment's --compare-to and --regrade read one session's document: a matrix's folder
    (matrix.json, a folder per model) is answered with the folders to name instead."""
    (tmp_path / "matrix.json").write_text("{}")
    for model in ("haiku", "sonnet"):
        (tmp_path / model).mkdir()
        (tmp_path / model / "aggregate-result.json").write_text("{}")
    with pytest.raises(CompareError) as info:
        read_document(tmp_path)
    assert str(info.value).endswith(f"name one of them ({tmp_path / 'haiku'}, {tmp_path / 'sonnet'})")
    assert f"name one of them ({tmp_path / 'haiku'}" in (results_folder_problem(tmp_path) or "")


# ---- what changed in the plugin ------------------------------------------------------------------------------


def described(document: SuiteResult, skills: dict | None, content: str | None) -> SuiteResult:
    [plugin] = document.suite.plugins
    plugin.skill_descriptions, plugin.content_hash = skills, content
    return document


def test_compare_says_which_skill_description_changed_beside_the_change():
    old = described(document(case("a", ALL, NONE)), {"greeter:hi": "Greet.", "greeter:old": None}, "h1")
    new = described(document(case("a", ALL, NONE)), {"greeter:hi": "Say hi.", "greeter:new": "New."}, "h2")
    comparison = compare(old, new)
    assert comparison.plugin_changes == [
        "the description of skill greeter:hi changed",
        "skill greeter:new added",
        "skill greeter:old removed",
        "plugin content changed",
    ]
    assert comparison.comparable  # a change of the plugin is what a comparison is for
    assert comparison.to_json()["pluginChanges"] == comparison.plugin_changes
    text = lines(view(comparison))
    assert text[2].startswith("changed in the plugin: the description of skill greeter:hi changed; ")
    assert "- changed in the plugin: the description of skill greeter:hi changed" in comparison_markdown(comparison)


def test_only_the_content_hash_says_that_other_files_changed():
    old = described(document(case("a", ALL)), {"greeter:hi": "Greet."}, "h1")
    assert compare(old, described(document(case("a", ALL)), {"greeter:hi": "Greet."}, "h2")).plugin_changes == [
        "plugin content changed"
    ]
    assert compare(old, described(document(case("a", ALL)), {"greeter:hi": "Greet."}, "h1")).plugin_changes == []
    assert compare(document(case("a", ALL)), old).plugin_changes == []  # an older document recorded neither


def test_two_scripted_sessions_cannot_show_a_description_change():
    def session(description: str, scripted: bool) -> SuiteResult:
        return described(document(case("a", ALL), scripted=scripted), {"greeter:hi": description}, description)

    warned = compare(session("Greet.", True), session("Say hi.", True))
    [warning] = warned.warnings
    assert warning.kind == "scripted" and "cannot show the effect of the description change" in warning.message
    assert not compare(session("Greet.", False), session("Say hi.", False)).warnings
    assert not compare(session("Greet.", True), session("Greet.", True)).warnings


def test_scripted_trigger_sets_answered_by_the_description_can_show_its_change():
    """Issue 34 item 13: the note is said only for sets whose scripted answers ignore the description."""
    from pytest_plugin_eval.results.trigger_compare import TriggerSetChange, scripted_warning
    from pytest_plugin_eval.results.triggers import TriggerSetResult

    def change(by_words: bool) -> TriggerSetChange:
        old, new = (
            TriggerSetResult("greeter:hi", "hi", description=d, scripted_by_description=by_words)
            for d in ("Greet.", "Say hi.")
        )
        return TriggerSetChange.of(old, new)

    assert scripted_warning(True, True, [change(True)]) is None
    assert "the change of description of hi cannot show in them" in (
        scripted_warning(True, True, [change(False)]) or ""
    )
    triggers_only = described(document(scripted=True), {"greeter:hi": "Greet."}, "a")
    changed = described(document(scripted=True), {"greeter:hi": "Say hi."}, "b")
    assert compare(triggers_only, changed).warnings == []  # no case follows a scripted.yaml here


# ---- efficiency: what the with-plugin runs spent, then and now ------------------------------------------------


def spending(arm: str, turns: list[int]) -> list[RunResult]:
    return [
        RunResult(arm, i, score=1.0, passed=True, turns=t, cost_usd=0.001 * t, tool_calls=t - 1, tokens=Tokens(100 * t))
        for i, t in enumerate(turns, 1)
    ]


def test_compare_shows_how_each_cases_efficiency_moved():
    old = suite_result(case_result("a", spending("with", [3, 3, 4])), case_result("b", spending("with", [2, 2, 2])))
    new = suite_result(case_result("a", spending("with", [6, 7, 6])), case_result("b", spending("with", [2, 2, 2])))
    comparison = compare(old, new)
    a = comparison.cases[0].efficiency
    assert (a["turns"].old, a["turns"].new, a["turns"].change) == (3, 6, 3)
    assert (a["turns"].interval, a["turns"].level, a["turns"].verdict) == ((2, 4), pytest.approx(0.9), "higher")
    assert "seconds" not in a  # no run recorded its time
    assert comparison.cases[1].efficiency["turns"].verdict == NO_CHANGE
    assert comparison.efficiency["turns"].change == 1.5  # the median of the cases' changes, 3 and 0
    assert comparison.efficiency["turns"].interval is None  # two cases: too few for an interval
    doc = comparison.to_json()
    assert doc["cases"][0]["efficiency"]["turns"] == {
        "old": 3,
        "new": 6,
        "change": 3,
        "interval": [2, 4],
        "level": pytest.approx(0.9),
        "verdict": "higher",
    }
    assert doc["efficiency"]["costUsd"]["change"] == pytest.approx(0.0015)
    text = lines(view(comparison))
    heading = text.index("efficiency of the with-plugin runs (median per run, then → now):")
    assert text[heading + 1].startswith("  a: turns 3 → 6 (+3, 90% CI [+2, +4], higher) · tool calls 2 → 5")
    assert text[heading + 3].startswith("  suite (median case): turns 2.5 → 4 (+1.5)")
    assert "- a: turns 3 → 6 (+3, 90% CI [+2, +4], higher)" in comparison_markdown(comparison)
    assert not compare(new, new).worse  # spending more fails nothing


def test_compare_of_documents_without_figures_has_no_efficiency():
    old = suite_result(case_result("a", [1.0, 1.0]))
    comparison = compare(old, old)
    assert comparison.efficiency == {} and "efficiency" not in comparison.to_json()
    assert "efficiency" not in comparison.to_json()["cases"][0]


def test_a_session_with_an_against_arm_compares_each_cases_cost_like_for_like():
    old = document(case("a", ALL, NONE))
    new_case = case("a", ALL, NONE)
    new_case.arms["against"] = runs("against", ALL, cost=0.5)
    new = document(new_case)
    comparison = compare(old, new)
    a = comparison.cases[0]
    assert (a.cost_usd.old, a.cost_usd.new) == (pytest.approx(0.06), pytest.approx(0.06))  # with + without only
    assert (a.duration_seconds.old, a.duration_seconds.new) == (12.0, 12.0)
    assert comparison.comparable  # the with arms compare alike: a note, not a warning
    assert comparison.arms_note is not None and "(none → against)" in comparison.arms_note
    assert comparison.to_json()["armsNote"] == comparison.arms_note
    assert f"note: {comparison.arms_note}" in lines(view(comparison))
    assert comparison.arms_note in comparison_markdown(comparison)
    assert "other arms besides with and without (none → against)" in comparison_page(comparison)
    assert compare(old, old).arms_note is None
