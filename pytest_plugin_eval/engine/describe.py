"""A case and its suite as the results document describes them, before any run: what a run's report carries to
the controller besides the run itself (wire.py)."""

from __future__ import annotations

from pathlib import Path

from ..load.case import Case
from ..load.graders import GraderSpec
from ..load.suite import plugin_at, resolve_plugin
from ..results.model import CaseResult, GraderInfo, PluginInfo, SuiteInfo
from .options import EvalOptions
from .rules import ablation, ablation_for, grant_warnings, runs_for, single_arm_reason


def case_result(case: Case, options: EvalOptions, *, regrading: bool = False) -> CaseResult:
    """The case's header in the results document (no runs yet)."""
    return CaseResult(
        name=case.name,
        dir=case.rel_dir,
        source=case.source,
        prompt=case.prompt,
        runs_per_case=case.runs_per_arm,
        timeout_seconds=case.timeout_seconds,
        max_turns=case.max_turns,
        model=case.model,
        graders=[grader_info(g) for g in case.graders],
        runs_per_arm=runs_for(case, options),
        effective_model=options.model or case.model,
        tags=case.tags,
        description=case.description,
        expected_outcome=case.expected_outcome,
        single_arm_reason=single_arm_reason(case, options),
        warnings=case_warnings(case, options, regrading=regrading),
    )


def case_warnings(case: Case, options: EvalOptions, *, regrading: bool = False) -> list[str]:
    """What keeps a case from passing as written (rules.grant_warnings). Said first wherever the case shows up
    failing."""
    if regrading:
        return []  # regrading stored runs: what they did is done, whatever this session grants
    return grant_warnings(case, options)


def suite_info(case: Case, options: EvalOptions) -> SuiteInfo:
    """The suite a case belongs to (root, ablation, plugins); the controller adds the session's options."""
    plugins = [plugin_info(p) for p in case.plugin_dirs]
    return SuiteInfo(
        root=str(case.plugin_root or case.eval_root.parent), ablation=ablation(case, options), plugins=plugins
    )


def eval_dir_suite_info(eval_root: Path, options: EvalOptions) -> SuiteInfo:
    """The suite of an eval dir none of whose cases loaded: its plugin is known from the folder all the same, as
    its cases would have named it (else its results say no plugin, and compare and history lose it)."""
    plugin = resolve_plugin(eval_root, eval_root)
    return SuiteInfo(root=str(plugin), ablation=ablation_for(options, True), plugins=[plugin_info(plugin)])


def suite_label(eval_root: Path, eval_roots: list[Path]) -> str:
    """The name a suite goes by in JUnit, the terminal and --output-dir: its plugin's name (else its folder's),
    numbered when two suites of the session share it."""

    def name_of(root: Path) -> str:
        plugin = resolve_plugin(root, root)
        return plugin_at(plugin).name if plugin is not None else root.parent.name

    name = name_of(eval_root)
    same = [root for root in eval_roots if name_of(root) == name]
    return f"{name}-{same.index(eval_root) + 1}" if len(same) > 1 and eval_root in same else name


def grader_info(spec: GraderSpec) -> GraderInfo:
    return GraderInfo(name=spec.name, type=spec.type, weight=spec.weight, config=spec.config_json(), markdown=spec.body)


def plugin_info(folder: Path) -> PluginInfo:
    plugin = plugin_at(folder)
    return PluginInfo(name=plugin.name, path=str(plugin.path), version=plugin.version)
