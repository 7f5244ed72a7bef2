"""`tool-not-granted`: a grader needs a tool the run is not given, so the case cannot pass as written.

Decided from the case and the session's grants alone: a grader whose `required_tools` (a `tool_used` with
`min >= 1`, a `tool_order`) names a tool the case removes (`disallowed_tools`, --disallow-tools) or a gated tool
nobody granted (--allow-tools; mocked tools are granted to every run); a grader that reads the files the agent
writes (`file_exists`, a `files` target) while no tool that writes files is granted; a `scaffold_script` that
is not run without --scaffold. `plugin-eval check` asks with nothing granted, a session with its options.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.tools import covers, is_gated, tool_of
from ..load.case import Case
from ..results.findings import Finding
from ..run.stand_ins import mocked_tools

KIND = "tool-not-granted"
WRITERS = {"Write", "Edit", "NotebookEdit", "Bash", "PowerShell"}


@dataclass(frozen=True)
class Grants:
    """What the operator grants every run: --allow-tools, --disallow-tools, whether mocks answer (--mocks
    record), --scaffold."""

    allow_tools: tuple[str, ...] = ()
    disallow_tools: tuple[str, ...] = ()
    mocks: bool = True
    scaffold: bool = False


def grant_findings(case: Case, grants: Grants) -> list[Finding]:
    out: list[Finding] = []
    granted = {tool_of(g) for g in grants.allow_tools} | {tool_of(t) for t in case.allowed_tools if not is_gated(t)}
    if grants.mocks:
        granted |= set(mocked_tools(case.mocks, case.plugin_dirs))
    removed = set(case.disallowed_tools) | set(grants.disallow_tools)
    writers = WRITERS & (granted - removed)

    def add(grader: str | None, message: str, fix: str) -> None:
        out.append(Finding(case.name, grader=grader, kind=KIND, message=message, fix=fix))

    for spec in case.graders:
        for tool in spec.kind.required_tools(spec.config):
            if tool in removed:
                add(
                    spec.name,
                    f"needs the {tool} tool, which this case removes (disallowed_tools)",
                    f"take {tool} out of disallowed_tools, or grade something else",
                )
            elif is_gated(tool) and not covers(granted, tool):
                add(spec.name, f"needs the {tool} tool, which only you can grant", f"pass --allow-tools {tool}")
        if spec.kind.reads_created_files(spec.config) and not writers:
            add(
                spec.name,
                "checks files the agent writes, but no tool that writes files is granted",
                "pass --allow-tools Write (or Edit, Bash)",
            )
    if case.context.scaffold_script is not None and not grants.scaffold:
        add(
            None,
            "the case's scaffold_script is not run without --scaffold: the runs start from an empty workspace",
            "pass --scaffold",
        )
    return list({(f.grader, f.message): f for f in out}.values())


def warning_text(finding: Finding) -> str:
    """The finding as the one-line warning a session gives (the case's `warnings`): `grader "g" message: fix`."""
    return f'grader "{finding.grader}" {finding.message}: {finding.fix}' if finding.grader else finding.message
