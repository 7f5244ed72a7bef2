"""The floor that makes a suite's Δ worth reading (see suite_check/suite.py): rules over loaded cases and the plugin folder,
each problem naming its file and key. Pure reads of files; nothing runs."""

from __future__ import annotations

import re
from pathlib import Path

from ..core.problems import Problem
from ..core.yamlio import FrontmatterError, YamlError, split_frontmatter
from ..engine.options import EvalOptions
from ..engine.rules import two_arm
from ..grade.engine import UNCOUNTED_WHY, indicators, uncounted
from ..load.case import CASE_FILE, PROMPT_FILE, Case
from ..load.case_template import PLACEHOLDER_PATTERN, PLACEHOLDER_PROMPT, PLACEHOLDER_SKILL
from ..load.graders import GRADERS_DIR, GraderSpec
from ..load.plugin_facts import skills_of
from ..load.stray import stray_folders as stray_folders
from ..load.suite import (
    MANIFEST,
    SKILL_FILE,
    component_paths,
    declared_servers,
    is_plugin_dir,
)

MIN_RUNS = 3
TRAJECTORY_TYPES = frozenset({"tool_used", "tool_order"})
# Graders that say how the run went, not what it produced: a case needs another one (an outcome grader).
NOT_OUTCOME_TYPES = TRAJECTORY_TYPES | {"budget"}
# Folders and files whose presence gives Claude Code something to load from a plugin folder.
COMPONENTS = ("skills", "commands", "agents", "hooks", ".mcp.json", "output-styles", "workflows")
PYTEST_CONFIGS = ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
ABLATION_NONE = re.compile(r"--ablation(?:=|\s+)['\"]?none\b")


# ---- the floor, case by case ----------------------------------------------------------------------------


def is_should_not_fire(case: Case) -> bool:
    """A `tool_used` grader that forbids the plugin's entry point: `Skill` (or an `mcp__` tool) with `max: 0`."""
    for grader in case.graders:
        if grader.type != "tool_used":
            continue
        config = grader.config
        tool = config.call.tool
        if config.max == 0 and (tool == "Skill" or tool.startswith("mcp__")):
            return True
    return False


def has_outcome_grader(case: Case) -> bool:
    """Some grader reads what the run produced and is scored in the arms that run (an indicator is not)."""
    unscored = indicators(case.graders, two_arm(case, EvalOptions()), case.mocks_all_shadow)
    return any(g.type not in NOT_OUTCOME_TYPES and g.name not in unscored for g in case.graders)


def uncounted_graders(case: Case) -> list[GraderSpec]:
    """As a session with the default --mocks record runs the case."""
    return uncounted(case.graders, two_arm(case, EvalOptions()), case.mocks_all_shadow)


def written_in(case: Case, key: str) -> Path:
    """The file that sets `key` for the case: prompt.md when its frontmatter has it, else case.yaml."""
    prompt_md, case_yaml = case.dir / PROMPT_FILE, case.dir / CASE_FILE
    if prompt_md.is_file():
        try:
            meta, _ = split_frontmatter(prompt_md.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, FrontmatterError, YamlError):
            meta = None
        if (meta and key in meta) or not case_yaml.is_file():
            return prompt_md
    return case_yaml


def placeholder_problems(case: Case) -> list[Problem]:
    """What `init --bare` wrote as a placeholder and is still there: a pilot of it would spend money on nothing."""
    out = []
    if case.prompt.strip() == PLACEHOLDER_PROMPT:
        out.append(
            Problem(
                written_in(case, "prompt") if (case.dir / PROMPT_FILE).is_file() else case.dir / CASE_FILE,
                "prompt",
                "is still the placeholder init --bare wrote — replace it with a request a user would make, in their "
                "words, without naming the plugin or the skill",
            )
        )
    for grader in case.graders:
        if grader.type == "regex" and getattr(grader.config, "pattern", None) == PLACEHOLDER_PATTERN:
            out.append(
                Problem(
                    grader_file(case, grader),
                    "pattern",
                    f"'{PLACEHOLDER_PATTERN}' passes any reply (init --bare's placeholder) — match what the answer "
                    "must say, or read it with an llm grader",
                )
            )
        call = getattr(grader.config, "call", None)  # tool_used's CallSpec
        if PLACEHOLDER_SKILL in str(getattr(call, "input_match", None) or ""):
            out.append(
                Problem(
                    grader_file(case, grader),
                    "input_match",
                    f"names {PLACEHOLDER_SKILL} (init --bare's placeholder: the plugin had no skill or command it could name) — "
                    "write the name of the skill this case is about",
                )
            )
    return out


def grader_file(case: Case, grader: GraderSpec) -> Path:
    own = case.dir / GRADERS_DIR / f"{grader.name}.md"
    return own if own.is_file() else case.dir / CASE_FILE


def case_problems(case: Case) -> list[Problem]:
    """What keeps a loading case below the floor."""
    out = []
    if not has_outcome_grader(case):
        silent = uncounted_graders(case)
        out.append(
            Problem(
                case.prompt_file,
                GRADERS_DIR,
                (
                    f'the case has no outcome grader that counts — grader "{silent[0].name}" {UNCOUNTED_WHY}, or '
                    f"add a grader on what the run produced"
                )
                if silent
                else "the case has no outcome grader — tool_used and tool_order only say which tools ran, budget "
                "what the run spent; add a grader on what the run produced (regex, file_exists, llm, baseline, or "
                "graders/<name>.py)",
            )
        )
    out += placeholder_problems(case)
    if case.runs_per_arm < MIN_RUNS:
        out.append(
            Problem(
                written_in(case, "runs"),
                "runs",
                f"is {case.runs_per_arm}; a case runs at least {MIN_RUNS} times per arm (one run cannot tell the "
                f"plugin's effect from luck) — use --runs 1 for a quick pilot instead",
            )
        )
    if case.context.history_file is not None:
        out.append(
            Problem(
                case.dir / CASE_FILE,
                "context.history_file",
                "makes the case single-arm (the resumed history carries the plugin into both arms), so it has no Δ — "
                "put what the history sets up into the prompt or a scaffold instead",
            )
        )
    return out


# ---- the floor, suite-wide --------------------------------------------------------------------------------


def has_components(root: Path) -> bool:
    if is_plugin_dir(root) or declared_servers(root):
        return True
    if any((root / name).exists() for name in COMPONENTS):
        return True
    if (root / SKILL_FILE).is_file() and skills_of(root):  # a root SKILL.md, the plugin's one skill
        return True
    return any(paths for paths in component_paths(root).values())


def ablation_none(root: Path, eval_root: Path) -> list[Problem]:
    out = []
    for folder in dict.fromkeys((root, eval_root)):
        for name in PYTEST_CONFIGS:
            path = folder / name
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if ABLATION_NONE.search(text):
                out.append(
                    Problem(
                        path,
                        "--ablation",
                        "turns the without arm off (--ablation none), so no case has a Δ — remove it: both arms run "
                        "by default",
                    )
                )
    return out


def suite_problems(root: Path, eval_root: Path, cases: list[Case], unloaded: bool = False) -> list[Problem]:
    """The suite's floor. `unloaded`: some case does not load — it may be the missing kind, so say so."""
    out = []
    if not has_components(root):
        out.append(
            Problem(
                root,
                "",
                f"has nothing for Claude Code to load ({MANIFEST.as_posix()}, a root SKILL.md, skills/, commands/, agents/, hooks/ or "
                f".mcp.json), so the with arm would be the without arm",
            )
        )
    if cases and not any(is_should_not_fire(case) for case in cases):
        out.append(
            Problem(
                eval_root,
                "",
                (
                    "no should-not-fire case among the cases that load — if one of those that do not load is meant to "
                    "be it, fix it first; otherwise add"
                    if unloaded
                    else "no should-not-fire case — add"
                )
                + " a case whose prompt the plugin must leave alone, graded by `type: tool_used`, `tool: Skill`, "
                "`min: 0`, `max: 0` (a `tool_used` grader with `max: 0` on one of the plugin's `mcp__…` tools counts "
                "too) and an outcome grader; without one, a plugin that fires on everything scores as well as one "
                "that fires when it should",
            )
        )
    return out + ablation_none(root, eval_root)
