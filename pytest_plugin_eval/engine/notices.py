"""What the operator is told about how a session runs: the header above the tests, and each case's notices
(nothing about how a case runs is silent). Pure functions of the cases and the options."""

from __future__ import annotations

from pathlib import Path

from ..core import prices
from ..core.tools import NEVER, covers, is_gated, leaves_workspace, misspelling_of, tool_of
from ..grade.engine import UNCOUNTED_WHY, uncounted
from ..grade.judge import resolve_judge_model
from ..load.case import Case
from ..load.suite import plugin_at, resolve_plugin
from ..run.access import Access
from .options import EvalOptions
from .rules import ablation, ablation_for, granted_mocks


def header_lines(eval_roots: list[Path], options: EvalOptions) -> list[str]:
    """pytest's report header: what is evaluated, from where, how, and by which judge."""
    lines = []
    judge = resolve_judge_model(options.judge_model)
    for root in eval_roots:
        plugin = resolve_plugin(root, root)
        info = plugin_at(plugin) if plugin else None
        under_test = f"{info.name}{' ' + info.version if info.version else ''} ({plugin})" if info else "no plugin"
        lines.append(
            f"plugin-eval: {under_test} · cases in {root} · ablation {ablation_for(options, plugin is not None)} · "
            f"judge {judge}"
        )
    others = ([f"against ({options.against})"] if options.against else []) + [f"ablate:{c}" for c in options.ablate]
    if others:  # each as costly as the with arm: said before anything is spent (plugin-eval check prices them)
        lines.append(
            f"plugin-eval: more arms: {', '.join(others)} — each runs every case as often as the with arm "
            f"(docs/arms.md)"
        )
    if options.scripted:
        lines.append(
            "plugin-eval: model = the scripted endpoint (offline: answers come from each case's "
            "scripted.yaml; no real model is asked)"
        )
    return lines


def access_lines(access: Access) -> list[str]:
    """Which access the runs and the judges use, said before anything is spent, with what the operator should know
    (an expired login, the fix when there is none)."""
    if access.kind == "scripted":
        return []
    lines = [f"plugin-eval: access = {access.summary()}"]
    if access.checked:
        lines.append(f"plugin-eval: checked with {access.checked}")
    if access.plan:
        lines.append(
            "plugin-eval: costs shown are list-price estimates; what a plan really spends is its usage "
            "(--max-cost-usd caps the estimate)"
        )
    lines += [f"plugin-eval: ⚠ {note}" for note in access.notes]
    return lines


def case_notices(case: Case, options: EvalOptions, *, regrading: bool = False) -> list[str]:
    """What the operator should know about how this case runs."""
    notes = list(case.warnings)
    notes += self_judging_notices(case, options)
    if regrading:
        return notes  # regrading: nothing runs, so how it would run (tools, scaffold, servers) does not matter
    if case.context.scaffold_script is not None:
        notes.append(
            "Note: --scaffold runs each case's scaffold_script as you, outside the agent's sandbox"
            if options.scaffold
            else f'⚠ case "{case.name}": its scaffold_script is not run without --scaffold; the case runs '
            f"against an unstaged workspace"
        )
    notes += allowed_tools_notices(case, options)
    if options.mocks == "record":
        notes += [n for s in case.mocks.servers.values() if (n := s.unlisted_notice()) is not None]
    if options.mocks == "record" and ablation(case, options) == "with-without":
        notes += [
            f'⚠ case "{case.name}": grader "{g.name}" counts in no score: it {UNCOUNTED_WHY}'
            for g in uncounted(case.graders, True, case.mocks_all_shadow)
        ]
    if case.disallowed_tools:
        notes.append(
            f"{case.name}: removed from Claude's tools by the case's disallowed_tools: "
            f"{', '.join(case.disallowed_tools)}"
        )
    if options.disallow_tools:
        notes.append(
            f"Removed from Claude's tools in every case (--disallow-tools): {', '.join(options.disallow_tools)}"
        )
    if options.mocks == "off" and case.plugin_dirs:
        notes.append(
            "⚠ --mocks off: the plugins' real MCP servers start, as you, outside the sandbox "
            "(their tools still need --allow-tools)"
        )
    if case.context.history_file is not None and ablation(case, options) == "with-without":
        notes.append(f'case "{case.name}" runs single-arm (no Δ): its history_file carries the plugin into both arms')
    return notes


def self_judging_notices(case: Case, options: EvalOptions) -> list[str]:
    """A judged grader whose judge is the very model under test: it shares the agent's blind spots."""
    agent = options.model or case.model
    judged = [g.name for g in case.graders if g.type in ("llm", "baseline")]
    if not agent or not judged:
        return []
    judge = resolve_judge_model(options.judge_model)
    if prices.resolve_model(agent) != prices.resolve_model(judge):
        return []
    return [
        f'⚠ case "{case.name}": its judge ({judge}) is the model under test — a model grading its own kind of '
        f"answer shares its blind spots ({', '.join(judged)}); judge with another model (--judge-model), and see "
        "plugin-eval calibrate"
    ]


def allowed_tools_notices(case: Case, options: EvalOptions) -> list[str]:
    """The case's allowed_tools entries a run will not get as written: misspelt, never available, reaching outside
    the workspace, or only the operator's to grant."""
    granted = [*options.allow_tools, *granted_mocks(case, options)]
    notes = []
    for entry in case.allowed_tools:
        tool = tool_of(entry)
        if meant := misspelling_of(entry):
            notes.append(
                f'⚠ case "{case.name}": allowed_tools entry {entry} is no tool of Claude Code\'s — did you mean '
                f"{meant}?"
            )
        elif tool in NEVER:
            notes.append(
                f'⚠ case "{case.name}": allowed_tools asks for {entry}, which is never available in an evaluation'
            )
        elif leaves_workspace(entry):
            notes.append(
                f'⚠ case "{case.name}": allowed_tools entry {entry} reaches outside the run\'s workspace and is '
                f"left out — grant {tool} (scoped to the run's folders and the plugin) or a pattern relative to "
                f"the working directory, such as {tool}(src/**)"
            )
        elif is_gated(entry) and not covers(granted, tool):
            notes.append(
                f'⚠ case "{case.name}": allowed_tools asks for {entry}, which only the operator can '
                f"grant — the agent runs without it unless you pass --allow-tools {tool}"
            )
    return notes
