"""What a case becomes under a session's options: which arms and how many runs it gets, whether --case/--tag
select it, and what keeps it from passing as written. Pure functions of (case, options), so that the session and
`plugin-eval check` (which asks with no options) read a case the same way."""

from __future__ import annotations

import fnmatch

from ..core.kinds import Ablation, Arm, ablated
from ..lint.grants import Grants, grant_findings, warning_text
from ..load.case import Case
from ..load.triggers import TriggerSet
from ..run.stand_ins import mocked_tools
from .options import EvalOptions


def ablation_for(options: EvalOptions, has_plugin: bool) -> Ablation:
    """--ablation, else with-without when there is a plugin to strip, else none."""
    return options.ablation or ("with-without" if has_plugin else "none")


def ablation(case: Case, options: EvalOptions) -> Ablation:
    return ablation_for(options, bool(case.plugin_dirs))


def two_arm(case: Case, options: EvalOptions) -> bool:
    # A resumed history carries the plugin into both arms, so such a case runs single-arm.
    return ablation(case, options) == "with-without" and bool(case.plugin_dirs) and case.context.history_file is None


def single_arm_reason(case: Case, options: EvalOptions) -> str | None:
    """Why a case that the ablation would run in two arms runs in one (None: it runs as the ablation says)."""
    if two_arm(case, options) or ablation(case, options) != "with-without":
        return None
    if case.context.history_file:
        return "a resumed history_file carries the plugin into both arms"
    return "no plugin to strip"


def arms_for(case: Case, options: EvalOptions) -> tuple[Arm, ...]:
    """with, without (when the case runs in two arms), then --against's and --ablate's arms (when it has a plugin
    whose other version or parts they can load)."""
    arms: tuple[Arm, ...] = ("with", "without") if two_arm(case, options) else ("with",)
    return arms + other_arms(case, options)


def other_arms(case: Case, options: EvalOptions) -> tuple[Arm, ...]:
    if not case.plugin_dirs or case.context.history_file is not None:
        return ()
    against: tuple[Arm, ...] = ("against",) if options.against else ()
    return against + tuple(ablated(component) for component in options.ablate)


def runs_for(case: Case, options: EvalOptions) -> int:
    """Runs per arm to collect: --runs, else the case's; with --runs auto, the most it may take."""
    if options.auto_runs is not None:
        return options.auto_runs.most
    return options.runs or case.runs_per_arm


def selected(name: str, tags: tuple[str, ...], options: EvalOptions) -> bool:
    """The --case globs (on the case name; * and ? only) and --tag filters."""
    if options.case_globs and not any(glob(name, g) for g in options.case_globs):
        return False
    if options.tags and not set(options.tags) & set(tags):
        return False
    return True


def glob(name: str, pattern: str) -> bool:
    # Only * and ? are wildcards; [ ] are literal.
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))


def granted_mocks(case: Case, options: EvalOptions) -> list[str]:
    """The mocked tools every run of the case is granted (none with --mocks off: the real servers answer)."""
    return mocked_tools(case.mocks, case.plugin_dirs) if options.mocks == "record" else []


def grants_of(options: EvalOptions) -> Grants:
    return Grants(options.allow_tools, options.disallow_tools, options.mocks == "record", options.scaffold)


def grant_warnings(case: Case, options: EvalOptions) -> list[str]:
    """What keeps a case from passing as written with these options (lint/grants.py): a grader that needs a tool
    the run is not given, or files only a tool that writes, or the scaffold, can make. (`plugin-eval check` asks
    with no options.)"""
    return [warning_text(f) for f in grant_findings(case, grants_of(options))]


def trigger_runs(trigger_set: TriggerSet, options: EvalOptions) -> int:
    """Runs per trigger query to collect: --runs, else the set's; with --runs auto, the most a query may take."""
    if options.auto_runs is not None:
        return options.auto_runs.most
    return options.runs or trigger_set.runs
