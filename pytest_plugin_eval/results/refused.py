"""Refused tools rolled up per case: how many runs of each arm Claude Code refused a tool, which tools, why, and
the fix — "with-plugin runs 3/3: Write refused ×3 (not granted: --allow-tools Write)". Read from the runs'
`refusedTools` (run/refusals.py), so a stored document says the same on `--regrade` and in every report."""

from __future__ import annotations

from collections import Counter

from ..core.kinds import ARMS, Arm
from .findings import Finding
from .model import CaseResult, RunResult

ARM_LABEL = {"with": "with-plugin", "without": "without-plugin"}
KIND = "tool-refused"


def fix_for(tool: str, why: str) -> str:
    """What to change so that the run is given the tool (said in a few words, for the note)."""
    if why == "not granted":
        return f"pass --allow-tools {tool} (a tool the case's disallowed_tools removes: take it out of that list)"
    if why == "permission denied" and tool == "Skill":
        return (
            "a skill or command whose frontmatter has allowed-tools needs Skill pre-approved: list Skill in the "
            "case's allowed_tools"
        )
    if why == "permission denied":
        # Claude Code guards some folders even inside a granted working directory (hookify writes its rules to
        # .claude/): in a `-p` run nobody can approve the write, so it is refused like one outside.
        return (
            "the call reached outside what the grant covers (the run's working directory), or into a folder Claude "
            "Code guards even there (.claude/, .git/, .vscode/, at any depth): keep the task inside the working "
            "directory and out of those"
        )
    if why == "sandbox":
        return "the OS sandbox refused the command: keep its effects inside the run's working directory"
    if why == "unanswerable":
        return (
            "nobody answered it: give the case answers: (a question pattern → its answer) or a simulated user:, "
            "or say in the prompt what the agent would ask"
        )
    return "see the run's trace"


def refused_runs(runs: list[RunResult]) -> list[RunResult]:
    return [run for run in runs if run.refused_tools]


def arm_text(case: CaseResult, arm: Arm) -> str | None:
    """`with-plugin runs 3/3: Write refused ×3 (not granted: --allow-tools Write)` (None: no refusal). The option
    that grants a tool is named in the note; the other reasons' fixes are in the finding."""
    runs = case.runs(arm)
    refused = refused_runs(runs)
    if not refused:
        return None
    counts = Counter((r["tool"], r["why"]) for run in refused for r in run.refused_tools)
    what = ", ".join(
        f"{tool} refused ×{n} ({why}: --allow-tools {tool})" if why == "not granted" else f"{tool} refused ×{n} ({why})"
        for (tool, why), n in counts.items()
    )
    return f"{ARM_LABEL[arm]} runs {len(refused)}/{len(runs)}: {what}"


def refusal_note(case: CaseResult) -> str | None:
    """The case's refusals over both arms, one clause per arm (None: no run was refused a tool)."""
    parts = [text for arm in ARMS if (text := arm_text(case, arm))]
    return "; ".join(parts) or None


def refusal_explains_failures(case: CaseResult) -> bool:
    """Every failing with-plugin run (scored below 1, or made a run error by --strict-tools) was refused a tool:
    the refusal is the first thing to read about the case."""
    failing = [run for run in case.runs("with") if not run.passed and (run.score is not None or run.error_kind)]
    return bool(failing) and all(run.refused_tools for run in failing)


def refusal_findings(case: CaseResult) -> list[Finding]:
    """One finding per refused tool and reason of the case: in how many runs of each arm."""
    pairs = list(dict.fromkeys((r["tool"], r["why"]) for run in case.runs() for r in run.refused_tools))
    out = []
    for tool, why in pairs:
        where = []
        for arm, runs in case.arms.items():  # --against's and --ablate's arms too: their Δs measured it as well
            hit = sum(1 for run in runs if any((r["tool"], r["why"]) == (tool, why) for r in run.refused_tools))
            if hit:
                where.append(f"{ARM_LABEL.get(arm, arm)} runs {hit}/{len(runs)}")
        out.append(
            Finding(
                case.name,
                kind=KIND,
                message=f"Claude Code refused the agent {tool} ({why}) in {' and '.join(where)}: those runs "
                "measured the refusal, not the plugin",
                fix=fix_for(tool, why),
            )
        )
    return out
