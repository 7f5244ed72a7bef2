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

Every problem names its file and key. Exit 0 when the suite loads and meets the floor, 1 otherwise. The same
check runs in `plugin-eval init` after every file the model writes and before its session may end.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.paths import display_path
from ..core.problems import Problem
from ..core.tools import covers, is_gated
from ..grade.engine import UNCOUNTED_WHY
from ..grade.judge import resolve_judge_model
from ..grade.types import grader_types
from ..load.case import CASE_FILE, PROMPT_FILE, Case, CaseLoadError, find_case_dirs, load_case
from ..load.skill_evals import eval_cases, evals_files, read_evals
from ..load.suite import eval_dir_name, is_plugin_dir
from ..load.trigger_files import find_trigger_files
from ..load.triggers import TriggerLoadError, TriggerSet, load_trigger_file
from ..results.matrix import case_models
from ..run.access import Access
from ..run.access import detect as detect_access
from ..run.stand_ins import mocked_tools
from ..session.options import EvalOptions
from ..session.rules import grant_warnings, two_arm
from .estimate import (
    CaseShape,
    Estimate,
    Prediction,
    estimate,
    known_price,
    predict_from_pilot,
    priced_as,
    trigger_key,
)
from .floor import case_problems, has_outcome_grader, stray_folders, suite_problems, uncounted_graders
from .import_evals import mechanical_hints
from .plugin_args import add_plugin_arguments, plugin_folder

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
    estimate: Estimate | None = None
    prediction: Prediction | None = None  # from a pilot's results, when there is one

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


def check_triggers(result: CheckResult, root: Path, eval_root: Path) -> None:
    """Load the trigger files; a set with no near-miss (or no should-fire query) gets a warning."""
    for path in find_trigger_files(root, eval_root):
        try:
            sets = load_trigger_file(path, eval_root)
        except TriggerLoadError as e:
            result.load_problems.extend(e.problems)
            continue
        result.trigger_sets += sets
        for trigger_set in sets:
            labels = {q.should_fire for q in trigger_set.queries}
            if labels != {True, False}:
                missing = "should_not_fire near-misses" if True in labels else "should_fire queries"
                result.warnings.append(
                    f"{display_path(path, root)}: {trigger_set.name} has no {missing}: its recall and "
                    f"false-fire rate cannot both be measured"
                )


def eval_root_of_plugin(root: Path, eval_dir: str | None = None) -> Path:
    return root / eval_dir_name(root if is_plugin_dir(root) else None, eval_dir)


def agent_models(model: str | None) -> tuple[str | None, ...]:
    """--model as a session reads it: one model (None: the case's own, else the environment's), or A,B,… (a
    model matrix: each case on each model its `models:` allows)."""
    if model is None or "," not in model:
        return (model,)
    return tuple(dict.fromkeys(name.strip() for name in model.split(",") if name.strip())) or (None,)


def shape(case: Case, model: str | None) -> CaseShape:
    return CaseShape(
        name=case.name,
        runs=case.runs_per_arm,
        max_turns=case.max_turns,
        judged_graders=sum(1 for g in case.graders if getattr(g.kind, "paid", False)),
        arms=2 if two_arm(case, EvalOptions()) else 1,  # as a session with no options runs it
        model=model or case.model or os.environ.get("ANTHROPIC_MODEL") or None,
    )


def trigger_shape(trigger_set: TriggerSet, query_id: str, model: str | None) -> CaseShape:
    """A trigger query as the estimate prices it: its set's runs of one arm, no judge."""
    return CaseShape(
        name=trigger_key(trigger_set.name, query_id),
        runs=trigger_set.runs,
        max_turns=trigger_set.max_turns,
        judged_graders=0,
        arms=1,
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
) -> CheckResult:
    """Load every case under the plugin's eval dir and check the floor. `in_scope(case_dir)` limits the
    problems of individual cases to some of them (those a session wrote); the suite-wide ones always count."""
    root = root.absolute()
    eval_root = eval_root_of_plugin(root, eval_dir)
    result = CheckResult(root, eval_root)
    if not eval_root.is_dir():
        result.load_problems.append(
            Problem(eval_root, "", "does not exist — write cases in <eval dir>/<case>/ (plugin-eval init)")
        )
        return result
    kinds = grader_types()
    scope = in_scope or (lambda _dir: True)
    unloaded = False  # some case does not load (a stray graders folder is no case)

    def checked(case: Case, where: Path) -> None:
        result.cases.append(case)
        result.warnings.extend(w for w in case.warnings if w not in result.warnings)
        if scope(where):
            result.warnings.extend(mechanical_hints(case))  # a judged expectation a regex or tool grader checks
            result.case_floor_problems.extend(case_problems(case))
            # As written, with nothing granted on the command line: what a session would say first.
            result.warnings.extend(
                f'case "{case.name}": {w}, or it cannot pass as written' for w in grant_warnings(case, EvalOptions())
            )
            if has_outcome_grader(case):  # else the floor problem says it
                result.warnings.extend(
                    f'case "{case.name}": grader "{g.name}" counts in no score: it {UNCOUNTED_WHY}'
                    for g in uncounted_graders(case)
                )

    for case_dir in find_case_dirs(eval_root):
        try:
            case = load_case(case_dir, eval_root, kinds)
        except CaseLoadError as e:
            unloaded = True
            if scope(case_dir):
                result.load_problems.extend(e.problems)
            continue
        checked(case, case_dir)
    # skill-creator's evals.json files in the skill folders are cases of the suite too, as a session collects them.
    for path in evals_files(root):
        try:
            skill_cases = eval_cases(read_evals(path, root), eval_root, kinds)
        except CaseLoadError as e:
            unloaded = True
            if scope(path):
                result.load_problems.extend(e.problems)
            continue
        for case in skill_cases:
            checked(case, path)
    folders = {c.name: c for c in result.cases if c.source != "skill_creator"}
    for case in result.cases:
        twin = folders.get(case.name.replace("/", "-"))
        if case.source == "skill_creator" and twin is not None and twin.prompt.strip() == case.prompt.strip():
            result.warnings.append(
                f'case "{case.name}" of an evals.json and the case folder "{twin.name}" (plugin-eval import\'s) '
                "run the same prompt: every session runs it twice — remove the eval from the evals.json (or the file)"
            )
    result.load_problems.extend(p for p in stray_folders(eval_root) if p.file is None or scope(p.file))
    check_triggers(result, root, eval_root)
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
    models = agent_models(model)
    shapes = [shape(c, m) for c in result.cases for m in (case_models(c.models, models) if len(models) > 1 else models)]
    shapes += [  # a session (and the pilot) runs the trigger sets too
        trigger_shape(t, query.id, m)
        for t in result.trigger_sets
        for query in t.queries
        for m in (case_models(t.models, models) if len(models) > 1 else models)
    ]
    judge = resolve_judge_model(judge_model)
    result.estimate = estimate(shapes, judge, len(models))
    result.warnings.extend(unpriced_warnings([*(s.model for s in shapes), judge]))
    pilot = eval_root / "results" / PILOT_JSON
    try:
        document = json.loads(pilot.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = None
    if isinstance(document, dict):
        runs = {c.name: c.runs_per_arm for c in result.cases}
        runs |= {trigger_key(t.name, q.id): t.runs for t in result.trigger_sets for q in t.queries}
        result.prediction = predict_from_pilot(document, runs)
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
) -> list[str]:
    """The pilot, run from the plugin folder: one run per case and arm, both arms, at most `bound` dollars."""
    argv = [*pe, ".", "--trust-plugin", *(eval_dir_args or []), "--runs", "1"]
    argv += ["--json", f"{eval_dir}/results/{PILOT_JSON}", *(model_args or [])]
    argv += ["--max-cost-usd", f"{bound:.2f}"]
    if grants:
        argv.append("--allow-tools=" + ",".join(grants))
    if scripted:
        argv.append("--scripted")
    return argv


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
    if result.estimate and result.cases:
        e = result.estimate
        each = f" on each of {e.models} models" if e.models > 1 else ""
        trigger_runs = f", {e.trigger_runs_in_pilot} trigger runs, 1 per query" if e.trigger_runs_in_pilot else ""
        lines.append(
            f"Cost: a pilot ({e.runs_in_pilot} runs, 1 per case and arm{each}{trigger_runs}, up to "
            f"{e.judge_calls_in_pilot} judge calls) is bounded at {usd(e.pilot_bound)}; the full suite at {usd(e.full_bound)} (list prices, every "
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


def to_json(result: CheckResult) -> dict:
    out: dict = {
        "ok": result.ok,
        "evalDir": str(result.eval_root),
        "cases": [c.name for c in result.cases],
        "triggerSets": [
            {"skill": t.skill.qualified_name, "file": t.rel_file, "queries": len(t.queries)}
            for t in result.trigger_sets
        ],
        "problems": [p.to_json(result.root) for p in result.problems],
        "warnings": list(result.warnings),
    }
    if result.estimate:
        out["estimate"] = {"pilotBoundUsd": result.estimate.pilot_bound, "fullBoundUsd": result.estimate.full_bound}
    if result.prediction:
        out["prediction"] = {"fullSuiteUsd": result.prediction.total, "pilotCostUsd": result.prediction.pilot_cost}
    return out


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval check",
        description="Load an eval suite and check its floor (a should-not-fire case, an outcome grader per case, "
        "runs >= 3, two arms) without running anything. Exit 0 when it passes, 1 otherwise.",
    )
    add_plugin_arguments(parser)
    parser.add_argument(
        "--model", default=None, metavar="MODEL", help="the agent's model (A,B: a model matrix), for the cost estimate"
    )
    parser.add_argument("--judge-model", default=None, metavar="MODEL", help="the judge model, for the cost estimate")
    parser.add_argument("--scripted", action="store_true", help="print the pilot command for the scripted endpoint")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def check(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    root = plugin_folder(args.target, "check")
    if root is None:
        return 1
    result = check_suite(root, args.eval_dir, model=args.model, judge_model=args.judge_model)
    if args.json:
        print(json.dumps(to_json(result), indent=1))
        return 0 if result.ok else 1
    for line in result.render_problems():
        print(f"✗ {line}")
    for warning in result.warnings:
        print(warning)
    for line in summary(result):
        print(line)
    if result.estimate and result.cases and not args.scripted:
        print(plan_cost_line(detect_access()) or "", end="")
    if result.ok and result.estimate:
        models = (["--model", args.model] if args.model else []) + (
            ["--judge-model", args.judge_model] if args.judge_model else []
        )
        pilot = pilot_argv(
            plugin_eval_argv(),
            os.path.relpath(result.eval_root, result.root),
            result.estimate.pilot_bound,
            requested_grants(result.cases),
            args.scripted,
            ["--eval-dir", args.eval_dir] if args.eval_dir else [],
            models,
        )
        print(f"Pilot (from the plugin folder): {shell(pilot)}")
    return 0 if result.ok else 1
