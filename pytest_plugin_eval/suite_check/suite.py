"""`plugin-eval check [TARGET]`: lint an eval suite without running it.

The suite is read by the loader a session uses (every case folder, its graders, mocks and scripted.yaml), so a
case that passes here loads in a session; then the floor that makes a suite's Δ worth reading is checked:

- at least one **should-not-fire** case: a prompt the plugin must leave alone, graded by `tool_used` on `Skill`
  (or on one of the plugin's `mcp__` tools) with `max: 0`;
- every case has an **outcome grader**: a grader that reads what the run produced, not only which tools it
  called (anything but `tool_used` / `tool_order`), and is scored in the arms that run (not an indicator);
- every case runs at least **3 times per arm** (`runs`);
- **two arms**: the folder under test has something for Claude Code to load (a manifest, skills, commands,
  agents, hooks or MCP servers), so the with arm differs from the without arm; no case is single-arm by
  construction (a `context.history_file` carries the plugin into both arms); and no pytest configuration of the
  plugin turns the without arm off (`--ablation none`).

Every problem names its file and key. Then the findings (lint/): cases that load and meet the floor but would
measure less than they seem to — a prompt that names the skill, a grader that passes on text the plugin ships, a
tool the graders need and the pilot would not grant… (docs/findings.md). Exit 0 when the suite loads and meets the
floor, 1 otherwise; with --strict, a finding exits 1 too. The same check runs in `plugin-eval init` after every
file the model writes and before its session may end.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.paths import display_path
from ..core.prices import resolve_model
from ..core.problems import Problem
from ..core.tools import covers, is_gated
from ..engine.notices import allowed_tools_notices
from ..engine.option_values import parse_models
from ..engine.options import EvalOptions
from ..engine.rules import arms_for
from ..grade.engine import UNCOUNTED_WHY
from ..grade.judge import resolve_judge_model
from ..grade.skill_patterns import skill_pattern_warnings
from ..grade.types import grader_types
from ..lint.grants import Grants
from ..lint.suite import lint_cases, lint_trigger_sets
from ..load.case import CASE_FILE, PROMPT_FILE, Case
from ..load.manifest_rules import manifest_problems
from ..load.on_disk import SuiteOnDisk, read_suite
from ..load.skill_suites import skill_folder_suite
from ..load.skills import components_of
from ..load.suite import is_plugin_dir, plugin_eval_dir
from ..load.triggers import TriggerSet
from ..results.check import CheckDocument, CheckedTriggerSet, CostBounds, CostPrediction, FileProblem
from ..results.findings import Finding
from ..results.matrix import case_models
from ..results.store import read_suites
from ..results.triggers import undecidable_notice
from ..run.access import Access
from ..run.stand_ins import mocked_tools
from .arms import arm_problems
from .cost import CaseShape, Estimate, Prediction, estimate, known_price, predict_from_pilot, priced_as, trigger_key
from .floor import case_problems, has_outcome_grader, stray_folders, suite_problems, uncounted_graders
from .hints import mechanical_hints

PILOT_JSON = "pilot.json"


@dataclass
class CheckResult:
    root: Path  # the plugin folder
    eval_root: Path
    cases: list[Case] = field(default_factory=list)
    trigger_sets: list[TriggerSet] = field(default_factory=list)
    load_problems: list[Problem] = field(default_factory=list)  # what keeps a case from loading
    case_floor_problems: list[Problem] = field(default_factory=list)  # loading cases below the floor
    suite_problems: list[Problem] = field(default_factory=list)  # the floor of the suite as a whole
    warnings: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # what would make a case measure less than it seems
    estimate: Estimate | None = None
    prediction: Prediction | None = None  # from a pilot's results, when there is one
    against: bool = False  # priced with --against: the trigger queries run on both versions

    @property
    def problems(self) -> list[Problem]:
        return self.load_problems + self.case_floor_problems + self.suite_problems

    @property
    def ok(self) -> bool:
        return not self.problems

    def render_problems(self, limit: int | None = None) -> list[str]:
        lines = [p.render(self.root) for p in self.problems]
        if limit is not None and len(lines) > limit:
            lines = [*lines[:limit], f"… and {len(lines) - limit} more (run the check again once these are fixed)"]
        return lines


# ---- the whole check --------------------------------------------------------------------------------------


TRIGGER_QUERY = "trigger-query-names-skill"  # lint/prompt.py's finding of a trigger query, named as one


def check_triggers(result: CheckResult, suite: SuiteOnDisk) -> None:
    """The trigger files' load problems; a set with no near-miss (or no should-fire query) gets a warning."""
    for _, e in suite.trigger_errors:
        result.load_problems.extend(e.problems)
    for path, sets in suite.trigger_files:
        result.trigger_sets += sets
        for trigger_set in sets:
            result.warnings.extend(f.removeprefix("⚠ ") for f in trigger_set.findings)
            notice = undecidable_notice(trigger_set.name, trigger_set.runs, trigger_set.threshold)
            if notice is not None:
                result.warnings.append(f"{display_path(path, suite.root)}: {notice.removeprefix('⚠ ')}")
            labels = {q.should_fire for q in trigger_set.queries}
            if labels != {True, False}:
                missing = "should_not_fire near-misses" if True in labels else "should_fire queries"
                result.warnings.append(
                    f"{display_path(path, suite.root)}: {trigger_set.name} has no {missing}: its recall and "
                    f"false-fire rate cannot both be measured"
                )


def shape(case: Case, model: str | None, options: EvalOptions | None = None) -> CaseShape:
    """`options`: what decides the case's arms (--against, --ablate); None: a session with no options."""
    user = case.conversation.user
    return CaseShape(
        name=case.name,
        runs=case.runs_per_arm,
        max_turns=case.max_turns,
        judged_graders=sum(1 for g in case.graders if getattr(g.kind, "paid", False)),
        arms=len(arms_for(case, options or EvalOptions())),
        model=model or case.model or os.environ.get("ANTHROPIC_MODEL") or None,
        user_turns=user.max_user_turns if user else 0,
        user_model=resolve_model(user.model) if user and user.model else None,
    )


def trigger_shape(trigger_set: TriggerSet, query_id: str, model: str | None, against: bool = False) -> CaseShape:
    """A trigger query as the estimate prices it: its set's runs of one arm (two with --against: the session runs
    each query on the other version too), no judge."""
    return CaseShape(
        name=trigger_key(trigger_set.name, query_id),
        runs=trigger_set.runs,
        max_turns=trigger_set.max_turns,
        judged_graders=0,
        arms=2 if against else 1,
        model=model or trigger_set.model or os.environ.get("ANTHROPIC_MODEL") or None,
        trigger=True,
    )


def check_suite(
    root: Path,
    eval_dir: str | None = None,
    *,
    in_scope: Callable[[Path], bool] | None = None,
    model: str | None = None,
    judge_model: str | None = None,
    arms: EvalOptions | None = None,
) -> CheckResult:
    """Load every case under the plugin's eval dir and check the floor. `in_scope(case_dir)` limits the
    problems of individual cases to some of them (those a session wrote); the suite-wide ones always count."""
    root = root.absolute()
    eval_root = plugin_eval_dir(root, eval_dir)
    result = CheckResult(root, eval_root)
    if is_plugin_dir(root):  # what Claude Code would refuse: the with-plugin arm would have no plugin
        result.load_problems.extend(manifest_problems(root))
    if not eval_root.is_dir() and not skill_folder_suite(root):
        result.load_problems.append(
            Problem(eval_root, "", "does not exist — write cases in <eval dir>/<case>/ (plugin-eval init)")
        )
        return result
    suite = read_suite(root, eval_root, grader_types())
    scope = in_scope or (lambda _dir: True)
    components = components_of(root)
    linted: list[Case] = []  # the cases in scope, linted once all are loaded
    unloaded = bool(suite.case_errors)  # some case does not load (a stray graders folder is no case)
    for where, e in suite.case_errors:
        if scope(where):
            result.load_problems.extend(e.problems)
    for case, where in suite.cases:
        result.cases.append(case)
        result.warnings.extend(w for w in case.warnings if w not in result.warnings)
        if scope(where):
            result.warnings.extend(mechanical_hints(case))  # a judged expectation a regex or tool grader checks
            result.warnings.extend(skill_pattern_warnings(case, components))  # an indicator that cannot match
            result.case_floor_problems.extend(case_problems(case))
            linted.append(case)
            # what a session says of the case's allowed_tools (a typo, a tool only the operator grants), said here
            result.warnings.extend(w for w in allowed_tools_notices(case, EvalOptions()) if w not in result.warnings)
            if has_outcome_grader(case):  # else the floor problem says it
                result.warnings.extend(
                    f'case "{case.name}": grader "{g.name}" counts in no score: it {UNCOUNTED_WHY}'
                    for g in uncounted_graders(case)
                )
    folders = {c.name: c for c in result.cases if c.source != "skill_creator"}
    for case in result.cases:
        twin = folders.get(case.name.replace("/", "-"))
        if case.source == "skill_creator" and twin is not None and twin.prompt.strip() == case.prompt.strip():
            result.warnings.append(
                f'case "{case.name}" of an evals.json and the case folder "{twin.name}" (plugin-eval import\'s) '
                "run the same prompt: every session runs it twice — remove the eval from the evals.json (or the file)"
            )
    result.load_problems.extend(p for p in stray_folders(eval_root) if p.file is None or scope(p.file))
    # As the pilot this check prints would run them: with the gated tools the cases ask for granted.
    result.findings = lint_cases(linted, Grants(allow_tools=tuple(requested_grants(result.cases))))
    check_triggers(result, suite)
    if in_scope is None:  # the whole suite (the interview checks each trigger file as it is written)
        result.findings += lint_trigger_sets(result.trigger_sets)
    if result.trigger_sets and not result.cases:
        return result  # a suite of trigger sets alone: the cases' floor is not asked of it
    if not result.cases and not result.load_problems:
        result.suite_problems.append(
            Problem(
                eval_root,
                "",
                f"holds no eval case — a case is a folder with {PROMPT_FILE} or {CASE_FILE} (or an evals.json in a skill's evals/ folder)",
            )
        )
    result.suite_problems.extend(suite_problems(root, eval_root, result.cases, unloaded=unloaded))
    result.suite_problems.extend(arm_problems(root, arms or EvalOptions()))
    one, matrix = parse_models(model, None)  # as a session reads --model (A,B: a matrix); refused alike
    models: tuple[str | None, ...] = matrix or (one,)
    shapes = [
        shape(c, m, arms) for c in result.cases for m in (case_models(c.models, models) if len(models) > 1 else models)
    ]
    shapes += [  # a session (and the pilot) runs the trigger sets too
        trigger_shape(t, query.id, m, against=bool(arms and arms.against))
        for t in result.trigger_sets
        for query in t.queries
        for m in (case_models(t.models, models) if len(models) > 1 else models)
    ]
    judge = resolve_judge_model(judge_model)
    result.against = bool(arms and arms.against)
    result.estimate = estimate(shapes, judge, len(models))
    result.warnings.extend(unpriced_warnings([*(s.model for s in shapes), judge]))
    pilot = eval_root / "results" / PILOT_JSON
    try:
        suites = read_suites(pilot) if pilot.is_file() else None
    except (OSError, ValueError) as e:  # InvalidDocument names the file and the bad field
        suites = None
        result.warnings.append(f"{e} — no prediction from the pilot; run it again to have one")
    if suites is not None:
        runs = {c.name: c.runs_per_arm for c in result.cases}
        runs |= {trigger_key(t.name, q.id): t.runs for t in result.trigger_sets for q in t.queries}
        result.prediction = predict_from_pilot(suites, runs)
    return result


def unpriced_warnings(models: list[str | None]) -> list[str]:
    """A model the price table does not know is priced as its default: say so, since a misspelled --model
    (`claude-haiku-45`) would otherwise pass with a plausible but wrong estimate."""
    unknown = [m for m in dict.fromkeys(models) if m is not None and not known_price(m)]
    return [
        f'model "{m}" is not in the price table: the cost estimate prices it as {priced_as(m)} — check its name'
        for m in unknown
    ]


# ---- the commands an author (or the interview) runs next ---------------------------------------------------


def plugin_eval_argv(short: bool = True) -> list[str]:
    """How to start this very plugin-eval from a shell: `plugin-eval` when that is the one on PATH (and `short`),
    else the script beside this interpreter, else `python -m`."""
    script = Path(sys.executable).parent / "plugin-eval"
    if not (script.is_file() and os.access(script, os.X_OK)):
        return [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
    on_path = shutil.which("plugin-eval")
    if short and on_path and os.path.realpath(on_path) == os.path.realpath(script):
        return ["plugin-eval"]
    return [str(script)]


def requested_grants(cases: list[Case]) -> list[str]:
    """The gated tools the cases ask for (`allowed_tools`), which only the operator's --allow-tools grants — not
    the mocked ones, which every run is granted."""
    return list(
        dict.fromkeys(
            t
            for case in cases
            for t in case.allowed_tools
            if is_gated(t) and not covers(mocked_tools(case.mocks, case.plugin_dirs), t)
        )
    )


def pilot_argv(
    pe: list[str],
    eval_dir: str,
    bound: float,
    grants: list[str],
    scripted: bool = False,
    eval_dir_args: list[str] | None = None,
    model_args: list[str] | None = None,
    scaffold: bool = False,
) -> list[str]:
    """The pilot, run from the plugin folder: one run per case and arm, both arms, at most `bound` dollars; with
    `--scaffold` when a case has a scaffold script (its runs would otherwise start without what it sets up)."""
    argv = [*pe, ".", "--trust-plugin", *(eval_dir_args or []), "--runs", "1"]
    argv += ["--json", f"{eval_dir}/results/{PILOT_JSON}", *(model_args or [])]
    argv += ["--max-cost-usd", f"{bound:.2f}"]
    if grants:
        argv.append("--allow-tools=" + ",".join(grants))
    if scaffold:
        argv.append("--scaffold")
    if scripted:
        argv.append("--scripted")
    return argv


def pilot_line(result: CheckResult, eval_dir: str | None, scripted: bool, passed_on: list[str]) -> str:
    """The pilot `check` prints for a suite with an estimate: run from the plugin folder, with the options check
    was given that a session takes too (`passed_on`: --model, --judge-model, --against, --ablate)."""
    assert result.estimate is not None
    pilot = pilot_argv(
        plugin_eval_argv(),
        os.path.relpath(result.eval_root, result.root),
        result.estimate.pilot_bound,
        requested_grants(result.cases),
        scripted,
        ["--eval-dir", eval_dir] if eval_dir else [],
        passed_on,
        scaffold=any(case.context.scaffold_script is not None for case in result.cases),
    )
    return f"Pilot (from the plugin folder): {shell(pilot)}"


def shell(argv: list[str]) -> str:
    return shlex.join(argv)


def usd(value: float) -> str:
    return f"${value:.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def summary(result: CheckResult) -> list[str]:
    graders = sum(len(c.graders) for c in result.cases)
    judged = sum(1 for c in result.cases for g in c.graders if getattr(g.kind, "paid", False))
    where = display_path(result.eval_root, result.root) + "/"
    lines = []
    queries = sum(len(t.queries) for t in result.trigger_sets)
    triggers = f"; {len(result.trigger_sets)} trigger set(s) with {queries} queries load" if result.trigger_sets else ""
    if result.ok and not result.cases:
        lines.append(f"✓ {where}: {triggers.removeprefix('; ')} (no cases)")
    elif result.ok:
        lines.append(
            f"✓ {where}: {len(result.cases)} case(s) load and meet the floor ({graders} graders, {judged} judged)"
            + triggers
        )
    else:
        lines.append(f"✗ {where}: {len(result.problems)} problem(s); {len(result.cases)} case(s) load")
    if result.findings:
        queries = len({f.case for f in result.findings if f.kind == TRIGGER_QUERY})
        cases = len({f.case for f in result.findings if f.kind != TRIGGER_QUERY})
        where = " and ".join(
            [f"{cases} case(s)"] * bool(cases)
            + [f"{queries} trigger quer{'y' if queries == 1 else 'ies'}"] * bool(queries)
        )
        lines.append(
            f"⚑ {len(result.findings)} finding(s) in {where}: they may measure less than they seem "
            "(each says its fix; docs/findings.md)"
        )
    if result.estimate and result.cases:
        e = result.estimate
        each = f" on each of {e.models} models" if e.models > 1 else ""
        per = "1 per query and version" if result.against else "1 per query"
        trigger_runs = f", {e.trigger_runs_in_pilot} trigger runs, {per}" if e.trigger_runs_in_pilot else ""
        user_calls = f", {e.user_calls_in_pilot} simulated-user turns" if e.user_calls_in_pilot else ""
        lines.append(
            f"Cost: a pilot ({e.runs_in_pilot} runs, 1 per case and arm{each}{trigger_runs}, up to "
            f"{e.judge_calls_in_pilot} judge calls{user_calls}) is bounded at {usd(e.pilot_bound)}; the full suite at {usd(e.full_bound)} (list prices, every "
            "turn used)"
        )
    if result.prediction:
        p = result.prediction
        lines.append(
            f"From the pilot ({display_path(result.eval_root / 'results' / PILOT_JSON, result.root)}, "
            f"{usd(p.pilot_cost)}): a full suite costs about {usd(p.total)} (each case's cost per run × its runs"
            + (", each trigger query's likewise)" if result.trigger_sets else ")")
            + (f"; not in the pilot: {', '.join(p.missing)}" if p.missing else "")
        )
    return lines


def plan_cost_line(access: Access) -> str | None:
    """On a Claude plan, what the estimate means (a line, with its newline), else None."""
    if not access.plan:
        return None
    return (
        f"On a plan ({access.label}): these are list-price estimates; what the runs really spend is the plan's "
        "usage (--max-cost-usd caps the estimate)\n"
    )


def check_document(result: CheckResult) -> CheckDocument:
    """What `check --json` prints of a check."""
    estimate, prediction = result.estimate, result.prediction
    return CheckDocument(
        ok=result.ok,
        eval_dir=str(result.eval_root),
        cases=[c.name for c in result.cases],
        trigger_sets=[
            CheckedTriggerSet(t.skill.qualified_name, t.rel_file, len(t.queries)) for t in result.trigger_sets
        ],
        problems=[FileProblem(**p.to_json(result.root)) for p in result.problems],
        warnings=list(result.warnings),
        findings=list(result.findings),
        estimate=CostBounds(estimate.pilot_bound, estimate.full_bound) if estimate else None,
        prediction=CostPrediction(prediction.total, prediction.pilot_cost) if prediction else None,
    )


def to_json(result: CheckResult) -> dict:
    return check_document(result).to_json()


def finding_lines(findings: list[Finding]) -> list[str]:
    """The findings under their case: `⚑ case "c": grader "g": message — fix [kind]` (a trigger query's:
    `⚑ trigger query "file::skill/id": …`)."""
    return [f'⚑ {"trigger query" if f.kind == TRIGGER_QUERY else "case"} "{f.case}": {f.line()}' for f in findings]
