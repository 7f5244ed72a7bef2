"""`plugin-eval check` (pytest_plugin_eval.suite_check.suite): the suite loads, and the floor — a should-not-fire case, an
outcome grader per case, runs >= 3, two arms — with every problem named by file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.cli.commands.check import check
from pytest_plugin_eval.core.prices import price_table, resolve_model
from pytest_plugin_eval.engine.option_values import OptionError
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.results.store import parse_suites, write_json
from pytest_plugin_eval.results.suites import SuitesDocument
from pytest_plugin_eval.suite_check import cost as estimate
from pytest_plugin_eval.suite_check.suite import check_suite

FIRES = [
    {"name": "greets", "type": "regex", "pattern": "Hello"},
    {"name": "skill-fired", "type": "tool_used", "tool": "Skill"},
]
NOT_FIRE = [
    {"name": "answers", "type": "regex", "pattern": r"\b4\b"},
    {"name": "did-not-fire", "type": "tool_used", "tool": "Skill", "min": 0, "max": 0, "arm": "both"},
]


def plugin(root: Path, manifest: bool = True) -> Path:
    if manifest:
        (root / ".claude-plugin").mkdir(parents=True)
        (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nHi.\n")
    (root / "evals").mkdir()
    return root


def case(root: Path, name: str, graders: list[dict], **top) -> Path:
    folder = root / "evals" / name
    folder.mkdir(parents=True)
    data = {"schema_version": "1.0", "name": name, **top, "execution": {"prompt": f"prompt of {name}"}}
    data["graders"] = graders
    (folder / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


@pytest.fixture
def clean(tmp_path) -> Path:
    root = plugin(tmp_path / "greeter")
    case(root, "says-hello", FIRES)
    case(root, "unrelated", NOT_FIRE)
    return root


def rendered(root: Path, **kwargs) -> list[str]:
    return check_suite(root, **kwargs).render_problems()


def test_a_clean_suite_passes_with_its_cost_bounded(clean, capsys):
    result = check_suite(clean)
    assert result.ok and [c.name for c in result.cases] == ["says-hello", "unrelated"]
    assert result.estimate is not None and 0 < result.estimate.pilot_bound < result.estimate.full_bound
    assert check([str(clean)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("✓ evals/: 2 case(s) load and meet the floor (4 graders, 0 judged)\nCost: a pilot (4 runs")
    assert (
        "Pilot (from the plugin folder): " in out and "--runs 1 --json evals/results/pilot.json --max-cost-usd" in out
    )


def test_a_model_matrix_is_bounded_for_each_of_its_models(clean, capsys):
    one = check_suite(clean, model="claude-haiku-4-5").estimate
    both = check_suite(clean, model="claude-haiku-4-5, claude-sonnet-4-6").estimate
    sonnet = check_suite(clean, model="claude-sonnet-4-6").estimate
    assert one is not None and both is not None and sonnet is not None
    assert (both.runs_in_pilot, both.models) == (2 * one.runs_in_pilot, 2)
    assert both.full_bound == pytest.approx(one.full_bound + sonnet.full_bound, abs=0.011)  # each rounded up
    # a case whose `models:` leaves a model out is not priced on it
    yaml_file = clean / "evals" / "says-hello" / "case.yaml"
    yaml_file.write_text(
        yaml_file.read_text().replace("name: says-hello", "name: says-hello\nmodels: [claude-sonnet-4-6]")
    )
    assert check_suite(clean, model="claude-haiku-4-5,claude-sonnet-4-6").estimate.runs_in_pilot == 6
    assert check([str(clean), "--model", "claude-haiku-4-5,claude-sonnet-4-6"]) == 0
    out = capsys.readouterr().out
    assert "Cost: a pilot (6 runs, 1 per case and arm on each of 2 models" in out
    assert "--model claude-haiku-4-5,claude-sonnet-4-6" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "claude-haiku-4-5,,claude-sonnet-4-6"], "an empty model name; give models as A,B"),
        (["--model", ","], "an empty model name"),
        (["--ablate", "a,"], "an empty component name; give components as A,B"),
        (["--against", " "], "--against needs a git revision"),
    ],
)
def test_check_refuses_a_value_as_the_session_does(clean, capsys, argv, message):
    """check reads --model, --ablate and --against with the session's own parsers (engine/option_values): an empty
    model name is refused, in the session's words, rather than dropped from the estimate."""
    assert check([str(clean), *argv]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("Error: --") and message in captured.err
    assert "Cost:" not in captured.out  # nothing priced on a value a session would refuse


def test_check_suite_reads_model_as_the_session_does(clean):
    with pytest.raises(OptionError, match="an empty model name"):
        check_suite(clean, model="claude-haiku-4-5,")
    assert check_suite(clean, model="claude-haiku-4-5, claude-haiku-4-5").estimate.models == 1  # named twice: once


def test_against_and_ablate_are_priced_as_arms_before_anything_is_spent(clean, capsys, tmp_path):
    (clean / "commands").mkdir()
    for name in ("a", "b"):
        (clean / "commands" / f"{name}.md").write_text("Do it.\n")
    other = plugin(tmp_path / "other")
    plain = check_suite(clean).estimate
    more = check_suite(clean, arms=EvalOptions(against=str(other), ablate=("a", "b"))).estimate
    assert plain is not None and more is not None
    assert 2 * more.runs_in_pilot == 5 * plain.runs_in_pilot  # two arms per case become five
    assert more.full_bound == pytest.approx(2.5 * plain.full_bound, abs=0.03)
    assert check([str(clean), "--against", str(other), "--ablate", "a,b"]) == 0
    out = capsys.readouterr().out
    assert f"Cost: a pilot ({more.runs_in_pilot} runs" in out and f"--against {other} --ablate a,b" in out


def test_what_against_and_ablate_name_is_checked_as_the_session_would(clean, capsys, tmp_path):
    """check priced an arm the session then refuses and printed its pilot command, exit 0."""
    assert check([str(clean), "--ablate", "nosuch"]) == 1
    out = capsys.readouterr().out
    assert "✗ --ablate nosuch: the plugin at" in out and "(it has: greet)" in out and "Pilot" not in out
    assert check([str(clean), "--against", str(tmp_path / "nowhere")]) == 1  # no folder, and no git repository
    assert "✗ --against " in capsys.readouterr().out
    assert check([str(clean), "--ablate", "greet"]) == 0


def test_a_model_the_price_table_does_not_know_is_named_not_silently_priced(clean, capsys, monkeypatch):
    """`--model a,b` priced both as the default model and said nothing: a misspelled name passed unseen."""
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    assert check([str(clean), "--model", "claude-haiku-45,claude-haiku-4-5", "--judge-model", "haiku"]) == 0
    out = capsys.readouterr().out
    default = price_table()["default"]
    said = (
        f'model "claude-haiku-45" is not in the price table: the cost estimate prices it as {default} — check its name'
    )
    assert f"⚠ {said}" in out.splitlines()  # marked as every warning of check is
    assert out.count("is not in the price table") == 1  # the known one and the judge's alias are not named
    assert check_suite(clean, model="claude-sonnet-4-6").warnings == []


TRIGGERS = """\
runs: 4
max_turns: 3
skills:
  greet:
    should_fire: [Say hello to my team for me]
    should_not_fire: ["What is 2 + 2?"]
"""


def test_the_trigger_sets_are_in_the_bounds_and_the_pilots_prediction(clean, capsys):
    """The pilot command (and a session) runs the trigger sets too, but the bound priced the cases alone: the pilot
    could cross its own --max-cost-usd, and "the full suite" left out runs it makes."""
    cases_only = check_suite(clean).estimate
    (clean / "evals" / "triggers.yaml").write_text(TRIGGERS)
    both = check_suite(clean).estimate
    assert cases_only is not None and both is not None
    one_query = estimate.agent_run_cost(None, 3)
    assert both.pilot_bound == pytest.approx(cases_only.pilot_bound + 2 * one_query, abs=0.011)
    assert both.full_bound == pytest.approx(cases_only.full_bound + 2 * 4 * one_query, abs=0.011)
    assert (both.runs_in_pilot, both.trigger_runs_in_pilot) == (cases_only.runs_in_pilot, 2)
    assert check([str(clean)]) == 0
    assert "Cost: a pilot (4 runs, 1 per case and arm, 2 trigger runs, 1 per query, up to 0 judge calls)" in (
        capsys.readouterr().out
    )
    # the pilot's trigger runs are priced by the runs their set asks for, as a case's by its runs
    pilot = {
        "cases": [],
        "triggers": [
            {
                "skill": "p:greet",
                "name": "greet",
                "runsPerQuery": 1,
                "queries": [
                    {
                        "id": "q",
                        "query": "hi",
                        "shouldFire": True,
                        "runs": [{"index": 1, "fired": True, "costUsd": 0.01}],
                    }
                ],
            },
        ],
    }
    predicted = estimate.predict_from_pilot(parse_suites(pilot, "pilot.json"), {estimate.trigger_key("greet", "q"): 4})
    assert (predicted.total, predicted.pilot_cost) == (pytest.approx(0.04), pytest.approx(0.01))


def test_a_matrix_pilots_document_of_several_suites_is_read_by_the_one_reader(clean):
    """The pilot of a model matrix writes `{"schemaVersion": 1, "suites": [...]}` (results.suites): check reads it
    through results.store.read_suites and adds up its models; a pilot it cannot read is named, with its bad field."""
    one = suite_result(case_result("says-hello", [1]), case_result("unrelated", [1]))
    for case_ in one.cases:
        for run in case_.runs():
            run.cost_usd = 0.1
    pilot = clean / "evals" / "results" / "pilot.json"
    pilot.parent.mkdir()
    write_json(pilot, SuitesDocument(suites=[one, one]))
    result = check_suite(clean)
    assert result.prediction is not None and result.prediction.per_case["says-hello"] == pytest.approx(2 * 0.1 * 3)
    data = json.loads(pilot.read_text())
    data["suites"][1]["cases"][0]["arms"]["with"][0]["score"] = "full"
    pilot.write_text(json.dumps(data))
    broken = check_suite(clean)
    assert broken.prediction is None
    assert [w for w in broken.warnings if "pilot.json" in w] == [
        f"{pilot}: suites[1].cases[0].arms.with[0].score: must be a number (got a string) — no prediction from the "
        "pilot; run it again to have one"
    ]


def test_with_against_the_trigger_queries_are_priced_on_both_versions(clean, capsys, tmp_path):
    """A session with --against runs each trigger query on the other version too ([against-run-N]); check priced
    one version's runs and said '1 per query'."""
    (clean / "evals" / "triggers.yaml").write_text(TRIGGERS)
    other = plugin(tmp_path / "other")
    one = check_suite(clean).estimate
    both = check_suite(clean, arms=EvalOptions(against=str(other))).estimate
    assert one is not None and both is not None
    assert (one.trigger_runs_in_pilot, both.trigger_runs_in_pilot) == (2, 4)
    one_query = estimate.agent_run_cost(None, 3)
    cases_more = both.runs_in_pilot - one.runs_in_pilot  # the cases' against runs, priced as before
    assert cases_more == 2
    assert check([str(clean), "--against", str(other)]) == 0
    assert "4 trigger runs, 1 per query and version" in capsys.readouterr().out
    assert both.full_bound > one.full_bound + 2 * 4 * one_query - 0.011  # the queries' other 8 runs at least


def test_a_case_that_does_not_load_is_named_by_file_and_key(clean, capsys):
    (clean / "evals" / "says-hello" / "case.yaml").write_text(
        (clean / "evals" / "says-hello" / "case.yaml")
        .read_text()
        .replace("name: says-hello", "name: says-hello\nrunz: 3")
    )
    assert rendered(clean) == [
        "evals/says-hello/case.yaml: runz: is not a case.yaml key — did you mean runs? (top-level keys: schema_version, name, "
        "description, tags, plugins, runs, expected_outcome, models, context, execution, graders)"
    ]
    assert check([str(clean)]) == 1
    assert capsys.readouterr().out.startswith("✗ evals/says-hello/case.yaml: runz: is not a case.yaml key")


def test_no_should_not_fire_case(tmp_path):
    root = plugin(tmp_path / "p")
    case(root, "says-hello", FIRES)
    case(root, "also-fires", [{"name": "g", "type": "regex", "pattern": "x"}])
    (problem,) = check_suite(root).problems
    assert (problem.file, problem.key) == (root / "evals", "")
    assert problem.message.startswith("no should-not-fire case — add a case whose prompt the plugin must leave alone")
    assert (
        "`tool: Skill`, `min: 0`, `max: 0` (a `tool_used` grader with `max: 0` on one of the plugin's `mcp__…` tools"
        in (problem.message)
    )  # both count (test_what_makes_a_case_should_not_fire), so the message names both


def test_a_should_not_fire_case_that_does_not_load_is_not_called_missing(clean):
    broken = clean / "evals" / "unrelated" / "case.yaml"
    broken.write_text(broken.read_text().replace("name: unrelated", "name: unrelated\nrunz: 3"))
    missing = next(p for p in check_suite(clean).problems if p.file == clean / "evals")
    assert missing.message.startswith("no should-not-fire case among the cases that load — if one of those that do")


def test_a_case_that_cannot_pass_as_written_is_warned_about(clean, capsys):
    writes = [{"name": "wrote-it", "type": "file_exists", "path": "out.txt"}, *FIRES]
    case(clean, "writes", writes)
    result = check_suite(clean)
    assert result.ok  # a CI job may grant Write on its command line: a finding, not a failure
    assert result.warnings == []
    assert [f.to_json() for f in result.findings] == [
        {
            "case": "writes",
            "grader": "wrote-it",
            "kind": "tool-not-granted",
            "message": "checks files the agent writes, but no tool that writes files is granted",
            "fix": "pass --allow-tools Write (or Edit, Bash)",
        }
    ]
    assert check([str(clean)]) == 0
    assert '⚑ case "writes": grader "wrote-it": checks files the agent writes' in capsys.readouterr().out
    assert check([str(clean), "--strict"]) == 1  # --strict: a finding fails the check


def test_an_evals_json_eval_is_linted_like_a_case_folder(clean, capsys):
    """skill-creator's evals in a skill's folder are cases of the suite: their prompts are linted too."""
    evals = {
        "skill_name": "greet",
        "evals": [
            {"id": 1, "prompt": "Use the greet skill to say hello.", "expectations": ["The reply says hello"]},
            {"id": 2, "prompt": "Say hello to me.", "expectations": ["The reply says hello"]},
        ],
    }
    (clean / "skills" / "greet" / "evals").mkdir()
    (clean / "skills" / "greet" / "evals" / "evals.json").write_text(json.dumps(evals))
    result = check_suite(clean)
    assert "greet/2" in [c.name for c in result.cases]
    assert [(f.case, f.kind) for f in result.findings] == [("greet/1", "prompt-names-skill")]
    assert check([str(clean)]) == 0
    assert '⚑ case "greet/1": the prompt names skill greeter:greet ("greet skill")' in capsys.readouterr().out


def test_a_gated_tool_the_case_asks_for_is_granted_as_the_pilot_would(clean):
    """The pilot `check` prints grants the gated tools the cases ask for: a case asking for Write is no finding."""
    writes = [{"name": "wrote-it", "type": "file_exists", "path": "out.txt"}, *FIRES]
    folder = case(clean, "writes", writes)
    data = yaml.safe_load((folder / "case.yaml").read_text())
    data["execution"]["allowed_tools"] = ["Write"]
    (folder / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    result = check_suite(clean)
    assert result.ok and "writes" in [c.name for c in result.cases]
    assert result.findings == []


def test_check_json_carries_the_findings_and_strict_fails_on_them(clean, capsys):
    case(clean, "writes", [{"name": "wrote-it", "type": "file_exists", "path": "out.txt"}, *FIRES])
    assert check([str(clean), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and [f["kind"] for f in out["findings"]] == ["tool-not-granted"]
    assert check([str(clean), "--json", "--strict"]) == 1


@pytest.mark.parametrize(
    ("grader", "counts"),
    [
        ({"tool": "Skill", "min": 0, "max": 0}, True),
        ({"tool": "mcp__plugin_greeter_tracker__create_issue", "min": 0, "max": 0}, True),
        ({"tool": "Skill", "min": 0, "max": 1}, False),  # at most once is not "never"
        ({"tool": "Read", "min": 0, "max": 0}, False),  # not the plugin's entry point
    ],
)
def test_what_makes_a_case_should_not_fire(tmp_path, grader, counts):
    root = plugin(tmp_path / "p")
    case(
        root, "c", [{"name": "outcome", "type": "regex", "pattern": "x"}, {"name": "t", "type": "tool_used", **grader}]
    )
    messages = [p.message for p in check_suite(root).problems]
    assert any(m.startswith("no should-not-fire case") for m in messages) is not counts


def test_every_case_needs_an_outcome_grader(clean):
    case(
        clean,
        "only-trajectory",
        [
            {"name": "fired", "type": "tool_used", "tool": "Skill"},
            {"name": "order", "type": "tool_order", "before": "Skill", "after": "Write"},
        ],
    )
    (problem,) = check_suite(clean).problems
    assert problem.render(clean) == (
        "evals/only-trajectory/case.yaml: graders: the case has no outcome grader — tool_used and tool_order only "
        "say which tools ran, budget what the run spent; add a grader on what the run produced (regex, "
        "file_exists, llm, baseline, or graders/<name>.py)"
    )


def test_check_knows_the_budget_grader(clean):
    # it loads (a relative limit included), and it is no outcome grader: it says what the run spent
    lean = {"name": "lean", "type": "budget", "max_turns": {"ratio": 1.5, "relative_to": "without"}}
    case(clean, "only-budget", [{"name": "fired", "type": "tool_used", "tool": "Skill"}, lean])
    (problem,) = check_suite(clean).problems
    assert "has no outcome grader" in problem.message and "budget what the run spent" in problem.message
    # a limit written wrong is named by file and key, with the fix
    case(clean, "bad-budget", [{"name": "outcome", "type": "regex", "pattern": "x"}, {**lean, "max_turns": "8"}])
    messages = [p.render(clean) for p in check_suite(clean).problems]
    assert (
        "evals/bad-budget/case.yaml: graders[1].max_turns: must be a number ≥ 0, or {ratio: 1.5, relative_to: "
        "without} for a ratio of the without-plugin median (got a string)"
    ) in messages


def test_a_python_or_judged_grader_is_an_outcome_grader(clean):
    folder = case(clean, "judged", [{"name": "fired", "type": "tool_used", "tool": "Skill"}])
    (folder / "graders").mkdir()
    (folder / "graders" / "short.py").write_text('"""Short."""\n\ndef grade(run):\n    return True\n')
    result = check_suite(clean)
    assert result.ok, result.render_problems()


def test_runs_below_three_are_named_where_they_are_written(clean):
    case(clean, "few-runs", NOT_FIRE, runs=2)
    folder = clean / "evals" / "md-runs"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text("---\nruns: 1\n---\nHello?\n")
    (folder / "graders" / "g.md").write_text("---\ntype: regex\npattern: x\n---\n")
    assert rendered(clean) == [
        "evals/few-runs/case.yaml: runs: is 2; a case runs at least 3 times per arm (one run cannot tell the "
        "plugin's effect from luck) — use --runs 1 for a quick pilot instead",
        "evals/md-runs/prompt.md: runs: is 1; a case runs at least 3 times per arm (one run cannot tell the "
        "plugin's effect from luck) — use --runs 1 for a quick pilot instead",
    ]


def test_a_single_arm_case_breaks_the_two_arm_floor(clean):
    folder = case(clean, "resumed", NOT_FIRE, context={"history_file": "session.jsonl"})
    (folder / "session.jsonl").write_text("")
    (problem,) = check_suite(clean).problems
    assert (problem.file, problem.key) == (folder / "case.yaml", "context.history_file")
    assert problem.message.startswith("makes the case single-arm")


def test_a_folder_with_nothing_to_load_has_no_with_arm(tmp_path):
    root = tmp_path / "empty"
    (root / "evals").mkdir(parents=True)
    case(root, "says-hello", FIRES)
    case(root, "unrelated", NOT_FIRE)
    (problem,) = check_suite(root).problems
    assert problem.file == root and "nothing for Claude Code to load" in problem.message
    # a folder without a manifest but with a skill is a plugin (Claude Code names it after the folder)
    (root / "skills" / "greet").mkdir(parents=True)
    assert check_suite(root).ok


def test_a_root_skill_md_is_something_to_load(tmp_path):
    """Claude Code loads a root SKILL.md as the folder's one skill when it has no skills/ folder."""
    root = tmp_path / "standalone"
    (root / "evals").mkdir(parents=True)
    case(root, "says-hello", FIRES)
    case(root, "unrelated", NOT_FIRE)
    (root / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nHi.\n")
    assert check_suite(root).ok


def test_ablation_none_in_the_plugins_pytest_configuration(clean):
    (clean / "pytest.ini").write_text("[pytest]\naddopts = --ablation none --trust-plugin\n")
    (problem,) = check_suite(clean).problems
    assert (problem.file, problem.key) == (clean / "pytest.ini", "--ablation")
    (clean / "pytest.ini").write_text("[pytest]\naddopts = --ablation=with-without\n")
    assert check_suite(clean).ok


def test_graders_without_a_case_file_are_not_a_case(clean):
    (clean / "evals" / "half-written" / "graders").mkdir(parents=True)
    (clean / "evals" / "half-written" / "graders" / "g.md").write_text("---\ntype: regex\npattern: x\n---\n")
    (clean / "evals" / "mocks" / "tracker").mkdir(parents=True)  # mocks are not cases
    assert rendered(clean) == [
        "evals/half-written: is not a case (no prompt.md or case.yaml), so its graders never run — write the "
        "prompt in prompt.md"
    ]


def test_an_empty_or_missing_eval_dir(tmp_path):
    root = plugin(tmp_path / "p")
    assert [p.message for p in check_suite(root).problems] == [
        "holds no eval case — a case is a folder with prompt.md or case.yaml (or an evals.json in a skill's evals/ folder)"
    ]
    (root / "evals").rmdir()
    assert check_suite(root).problems[0].message.startswith("does not exist")


def test_the_scope_limits_case_problems_but_not_the_suites(clean):
    case(clean, "few-runs", FIRES, runs=1)
    assert len(check_suite(clean).problems) == 1
    assert check_suite(clean, in_scope=lambda d: d.name != "few-runs").ok
    (clean / "evals" / "unrelated" / "case.yaml").unlink()
    (clean / "evals" / "unrelated").rmdir()
    only = check_suite(clean, in_scope=lambda d: False)
    assert [p.message.split(" —")[0] for p in only.problems] == ["no should-not-fire case"]


def test_the_json_form_and_a_pilots_prediction(clean, capsys):
    results = clean / "evals" / "results"
    results.mkdir()
    pilot = {
        "cases": [
            {"name": "says-hello", "arms": {"with": [{"costUsd": 0.02}], "without": [{"costUsd": 0.01}]}},
            {"name": "unrelated", "arms": {"with": [{"costUsd": 0.01}], "without": [{"costUsd": 0.01}]}},
        ]
    }
    (results / "pilot.json").write_text(json.dumps(pilot))
    assert check([str(clean), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["problems"] == [] and doc["cases"] == ["says-hello", "unrelated"]
    assert doc["prediction"] == {"fullSuiteUsd": pytest.approx(0.15), "pilotCostUsd": pytest.approx(0.05)}
    assert check([str(clean)]) == 0
    assert "From the pilot (evals/results/pilot.json, $0.05): a full suite costs about $0.15" in capsys.readouterr().out


def test_a_target_that_is_not_a_folder(tmp_path, capsys):
    assert check([str(tmp_path / "nope")]) == 1
    assert "not a folder" in capsys.readouterr().err


def shadowing_mocks(root: Path) -> None:
    """The plugin declares a tracker server and the suite mocks it: the mocks all shadow the plugin's servers."""
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "false"}}}))
    (root / "evals" / "mocks" / "tracker").mkdir(parents=True)
    (root / "evals" / "mocks" / "tracker" / "create_issue.md").write_text("Created #1\n")


def test_a_grader_that_will_not_be_scored_is_not_the_cases_outcome_grader(clean):
    """Issue 23 item 2: a regex on mock_calls is a with-only indicator when the case's mocks all shadow the
    plugin's servers — reported, never scored — so it cannot be what makes the case meet the floor."""
    shadowing_mocks(clean)
    calls = {"name": "created", "type": "regex", "target": "mock_calls", "pattern": "create_issue"}
    tracker = {"name": "called", "type": "tool_used", "tool": "mcp__plugin_greeter_tracker__create_issue"}
    case(clean, "files-an-issue", [calls, tracker], runs=3)  # the tool_used grader is scored, the regex not
    result = check_suite(clean)
    [problem] = [p for p in result.render_problems() if "files-an-issue" in p]
    assert "no outcome grader that counts" in problem
    assert 'grader "created"' in problem and "arm: both" in problem


def test_a_grader_that_will_not_be_scored_is_named_beside_one_that_is(clean):
    shadowing_mocks(clean)
    calls = {"name": "created", "type": "regex", "target": "mock_calls", "pattern": "create_issue"}
    case(clean, "files-an-issue", [calls, *FIRES], runs=3)
    result = check_suite(clean)
    assert not [p for p in result.render_problems() if "files-an-issue" in p]
    [warning] = [w for w in result.warnings if "files-an-issue" in w]
    assert 'grader "created"' in warning and "not scored" in warning and "`arm: both`" in warning
    both = {**calls, "arm": "both"}
    (clean / "evals" / "files-an-issue").rename(clean / "old")
    case(clean, "files-an-issue", [both, *FIRES], runs=3)
    result = check_suite(clean)
    assert not [p for p in result.render_problems() if "files-an-issue" in p]
    assert not [w for w in result.warnings if "files-an-issue" in w]


def test_an_indicator_whose_input_match_no_skill_of_the_plugin_can_match_is_warned(tmp_path):
    """Issue 34 item 19: `greeters:` for `greeter:` fails every run, whatever Claude does."""
    root = plugin(tmp_path / "greeter")
    typo = {"name": "skill-fired", "type": "tool_used", "tool": "Skill", "input_match": "greeters:greet"}
    right = {"name": "right", "type": "tool_used", "tool": "Skill", "input_match": '"skill":"greeter:greet"'}
    order = {"name": "order", "type": "tool_order", "before": {"tool": "Skill", "input_match": "gret"}, "after": "Read"}
    case(root, "says-hello", [FIRES[0], typo, right, order])
    case(root, "unrelated", NOT_FIRE)
    warnings = [w for w in check_suite(root).warnings if "input_match" in w]
    assert warnings == [
        'case "says-hello": grader "skill-fired": input_match \'greeters:greet\' matches no Skill call of the '
        'plugin\'s skills (greeter:greet; a call\'s input is {"skill":"greeter:greet"}), so it fails whatever Claude '
        "does — did you mean 'greeter:greet'?",
        'case "says-hello": grader "order": input_match \'gret\' matches no Skill call of the plugin\'s skills '
        '(greeter:greet; a call\'s input is {"skill":"greeter:greet"}), so it fails whatever Claude does',
    ]


def test_on_a_plan_the_estimate_says_it_is_list_price_and_the_plans_usage_is_what_is_spent():
    from pytest_plugin_eval.run.access import Access
    from pytest_plugin_eval.suite_check.suite import plan_cost_line

    line = plan_cost_line(Access("setup-token", "setup token (CLAUDE_CODE_OAUTH_TOKEN)"))
    assert line is not None and "list-price estimates" in line and "plan's usage" in line
    assert plan_cost_line(Access("api-key", "API key (ANTHROPIC_API_KEY)")) is None


def test_a_simulated_user_is_in_the_bound_and_the_estimate_says_its_calls(clean, capsys):
    """A case with `user:` makes up to max_user_turns calls of the user's model per run: the bound left them out."""
    folder = case(clean, "interviews", FIRES)
    plain = check_suite(clean, judge_model="haiku").estimate
    data = yaml.safe_load((folder / "case.yaml").read_text())
    data["execution"]["user"] = {"persona": "A baker who wants a plan.", "max_user_turns": 3, "model": "sonnet"}
    (folder / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    talks = check_suite(clean, judge_model="haiku").estimate
    assert plain is not None and talks is not None and talks.user_calls_in_pilot == 6  # 3 per arm
    replies = 3 * estimate.user_call_cost(resolve_model("sonnet"))  # user.model's price, not the judge's
    assert talks.pilot_bound == pytest.approx(plain.pilot_bound + 2 * replies, abs=0.011)
    assert talks.full_bound == pytest.approx(plain.full_bound + 2 * 3 * replies, abs=0.011)  # runs: 3 per arm
    assert check([str(clean), "--judge-model", "haiku"]) == 0
    out = capsys.readouterr().out
    assert "Cost: a pilot (6 runs, 1 per case and arm, up to 0 judge calls, 6 simulated-user turns)" in out
    assert f"--max-cost-usd {talks.pilot_bound:.2f}" in out


def test_a_trigger_query_that_names_the_skill_is_a_finding_in_text_and_json(clean, capsys):
    named = {
        "skills": {
            "greet": {
                "should_fire": [{"query": "use the greet skill to say hi", "id": "named"}, {"query": "hi there!"}],
                "should_not_fire": [{"query": "what is 2 + 2?"}],
            }
        }
    }
    (clean / "evals" / "triggers.yaml").write_text(yaml.safe_dump(named))
    assert check([str(clean)]) == 0
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith("⚑ trigger query")]
    assert line.startswith('⚑ trigger query "evals/triggers.yaml::greet/named": evals/triggers.yaml: the should_fire')
    assert '"use the greet skill to say hi"' in line and '("greet skill")' in line and "reword it" in line
    assert "⚑ 1 finding(s) in 1 trigger query:" in out
    assert check([str(clean), "--json"]) == 0
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert finding["kind"] == "trigger-query-names-skill" and finding["case"] == "evals/triggers.yaml::greet/named"
    assert "evals/triggers.yaml" in finding["message"] and "user who never heard of the plugin" in finding["fix"]
    assert check([str(clean), "--strict"]) == 1
    capsys.readouterr()
    (clean / "evals" / "triggers.yaml").write_text(TRIGGERS)  # a query that does not name it: nothing said
    assert check_suite(clean).findings == []


def test_the_pilot_runs_the_scaffold_scripts_when_a_case_has_one(clean, capsys):
    """check's pilot left out --scaffold, so a case that needs its scaffold ran in an empty workspace."""
    check([str(clean)])
    assert "--scaffold" not in capsys.readouterr().out
    folder = case(clean, "set-up", FIRES, context={"scaffold_script": "setup.sh"})
    (folder / "setup.sh").write_text("#!/bin/sh\ntouch ready\n")
    check([str(clean)])
    assert "--max-cost-usd" in (out := capsys.readouterr().out) and " --scaffold" in out.split("Pilot (")[1]
