"""An authoring session of `plugin-eval init`: what the model is told, what it may do, and the checks on it.

The session is the real Claude Code, started in the plugin folder with an appended system prompt of ours and
a settings file (`--settings`) that carries two kinds of guarantee:

- **permission rules**: Write/Edit are allowed under the eval dir and denied (deny rules win over any allow rule,
  in every permission mode) on everything else of the plugin folder that exists when the session starts — the
  component folders and the manifest by name, even when absent — with `blockWritesOutsideWorkingDirectories`
  for the rest of the machine; Bash is allowed for our own commands only;
- **hooks** running this package (`python -m pytest_plugin_eval.cli.hooks KIND CONFIG`):
  - `PreToolUse` on file writes and Bash (`guard`): refuses what a path rule cannot express (a new file beside
    the eval dir, overwriting an existing case in a draft) and every shell command but ours — the pilot only
    with a bound no higher than the estimate and only on a suite that passes the check;
  - `PostToolUse` on file writes (`post`): loads the case just written with the session's loader and feeds
    the loader's messages back to the model (exit 2: Claude Code shows the hook's stderr to the model);
  - `Stop` (`stop`): blocks the end of a turn while a case written in the session does not load, and — at the
    end (a draft, or the interview's last message) — while the suite misses the floor.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

from ..core.paths import inside
from ..core.problems import Problem
from ..lint.prompt import named_queries
from ..load.case import find_case_dirs, is_case_dir
from ..load.suite import RESERVED_DIR, component_paths, plugin_at, read_manifest
from ..load.trigger_files import is_trigger_file
from ..load.triggers import TriggerLoadError, load_trigger_file
from ..results.findings import Finding
from ..run.permissions import hidden_paths
from ..suite_check.suite import CheckResult, check_suite, pilot_argv, plugin_eval_argv, requested_grants

READY = "EVAL SUITE READY"
FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
# Named in the deny rules whether they exist or not: a session must not create a skill either.
PROTECTED = (".claude-plugin", ".claude", "skills", "commands", "agents", "hooks", "output-styles", ".mcp.json")
SHELL_METACHARACTERS = re.compile(r"[;&|<>$`\\\n\r*?(){}\[\]!#~]")
PROBLEM_LINES = 40
HOOK_TIMEOUT_SECONDS = 120
PLUMBING_JSON = "plumbing.json"
FIRST_TURN = {
    "interview": "Let's write the eval suite for this plugin, step by step.",
    "draft": "Draft the eval suite for this plugin now, in one go, without asking me anything.",
}


@dataclass
class AuthoringConfig:
    """Everything the hooks need to know about the session, written to a JSON file the hook commands name."""

    root: str  # the plugin folder (absolute)
    eval_dir: str  # the eval dir, relative to root
    mode: str  # "interview" or "draft"
    started: float = field(default_factory=time.time)
    eval_dir_option: bool = False  # pass --eval-dir to our commands (not the default eval dir)
    existing_cases: list[str] = field(default_factory=list)  # case folders at the start, relative to root
    existing_files: list[str] = field(default_factory=list)  # files of the eval dir at the start, relative to root
    scripted: bool = False  # the pilot is answered from scripted.yaml (a rehearsal of the interview)
    model: str | None = None
    judge_model: str | None = None
    notes: str = ""  # the draft's notes file, relative to root
    denied: list[str] = field(default_factory=list)  # absolute paths the deny rules cover
    pe: list[str] = field(default_factory=lambda: plugin_eval_argv(short=False))  # how to start plugin-eval

    @property
    def root_path(self) -> Path:
        return Path(self.root)

    @property
    def eval_root(self) -> Path:
        return self.root_path / self.eval_dir

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> AuthoringConfig:
        return cls(**json.loads(path.read_text(encoding="utf-8")))

    # -- our commands, exactly as the model is to type them ----------------------------------------------

    def _eval_dir_args(self) -> list[str]:
        return ["--eval-dir", self.eval_dir] if self.eval_dir_option else []

    def _model_args(self) -> list[str]:
        out = []
        if self.model:
            out += ["--model", self.model]
        if self.judge_model:
            out += ["--judge-model", self.judge_model]
        return out

    def check_argv(self) -> list[str]:
        return [*self.pe, "check", ".", *self._eval_dir_args(), *self._model_args()] + (
            ["--scripted"] if self.scripted else []
        )

    def plumbing_argv(self, grants: list[str] | None = None) -> list[str]:
        argv = [*self.pe, ".", "--trust-plugin", *self._eval_dir_args(), "--scripted", "--runs", "1"]
        argv += ["--json", f"{self.eval_dir}/results/{PLUMBING_JSON}"]
        return argv + ([f"--allow-tools={','.join(grants)}"] if grants else [])

    def pilot_argv(self, bound: float, grants: list[str] | None = None) -> list[str]:
        return pilot_argv(
            self.pe, self.eval_dir, bound, grants or [], self.scripted, self._eval_dir_args(), self._model_args()
        )

    def pilot_template(self) -> str:
        """The pilot command as the model is told it, `<BOUND>` standing for the check's bound."""
        argv = self.pilot_argv(0.0)
        bound = argv.index("--max-cost-usd") + 1
        return " ".join("<BOUND>" if i == bound else shlex.quote(a) for i, a in enumerate(argv))

    def run_argv(self) -> list[str]:
        """The full suite (the interview's last step adds --allow-tools and --max-cost-usd)."""
        return [*self.pe, ".", "--trust-plugin", *self._eval_dir_args(), *self._model_args()]

    def check(self, *, session_only: bool) -> CheckResult:
        return check_suite(
            self.root_path,
            self.eval_dir,
            in_scope=self.in_session if session_only else None,
            model=self.model,
            judge_model=self.judge_model,
        )

    def in_session(self, case_dir: Path) -> bool:
        """A case folder the session wrote: new since it started, or (in an interview) changed since."""
        rel = os.path.relpath(case_dir, self.root)
        if rel not in self.existing_cases:
            return True
        if self.mode == "draft":
            return False
        files = (p for p in Path(case_dir).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        return any(p.stat().st_mtime >= self.started - 1 for p in files)


def new_config(
    root: Path,
    eval_dir: str,
    mode: str,
    *,
    eval_dir_option: bool = False,
    scripted: bool = False,
    model: str | None = None,
    judge_model: str | None = None,
) -> AuthoringConfig:
    root = root.absolute()
    eval_root = root / eval_dir
    cfg = AuthoringConfig(
        root=str(root),
        eval_dir=eval_dir,
        mode=mode,
        eval_dir_option=eval_dir_option,
        scripted=scripted,
        model=model,
        judge_model=judge_model,
    )
    if eval_root.is_dir():
        cfg.existing_cases = [os.path.relpath(d, root) for d in find_case_dirs(eval_root)]
        cfg.existing_files = sorted(
            os.path.relpath(p, root) for p in eval_root.rglob("*") if p.is_file() and "results" not in p.parts
        )
    if mode == "draft":
        n, name = 1, "DRAFT.md"
        while (eval_root / name).exists():
            n += 1
            name = f"DRAFT-{n}.md"
        cfg.notes = f"{eval_dir}/{name}"
    cfg.denied = [str(p) for p in denied_paths(root, eval_root)]
    return cfg


# ---- Claude Code settings -------------------------------------------------------------------------------


def denied_paths(root: Path, eval_root: Path) -> list[Path]:
    """Everything of the plugin folder but the eval dir (as it is now), the component folders and manifest by
    name, and the component paths the manifest declares."""
    paths = hidden_paths(root, (eval_root,)) if inside(eval_root, root) and eval_root.is_dir() else [root]
    paths += [root / name for name in PROTECTED]
    for written in (p for ps in component_paths(root).values() for p in ps):
        declared = Path(os.path.normpath(root / written))
        if not inside(eval_root, declared):  # a path that holds the eval dir is covered by the rules above
            paths.append(declared)
    servers = read_manifest(root).get("mcpServers")
    if isinstance(servers, str):
        paths.append(Path(os.path.normpath(root / servers)))
    return list(dict.fromkeys(p for p in paths if p != eval_root))


def rule(tool: str, path: Path, tree: bool = False) -> str:
    """A permission rule on an absolute path (`//` starts one)."""
    return f"{tool}(/{path}{'/**' if tree else ''})"


def bash_rule(argv: list[str], wildcard: bool = False) -> str:
    return f"Bash({shlex.join(argv)}{' *' if wildcard else ''})"


def permission_settings(cfg: AuthoringConfig) -> dict:
    allow = [rule("Edit", cfg.eval_root, tree=True), bash_rule(cfg.check_argv())]
    if cfg.mode == "interview":
        allow += [bash_rule(cfg.plumbing_argv()), bash_rule(cfg.plumbing_argv(), wildcard=True)]
        prefix = cfg.pilot_argv(0.0)
        allow.append(bash_rule(prefix[: prefix.index("--max-cost-usd") + 1], wildcard=True))
    deny = []
    for path in map(Path, cfg.denied):
        deny += [rule("Edit", path), rule("Edit", path, tree=True)]
    return {
        "allow": allow,
        "deny": deny,
        "blockWritesOutsideWorkingDirectories": True,
        "disableBypassPermissionsMode": "disable",
    }


def hook_command(kind: str, config_path: Path) -> str:
    # -B: importing a Python grader to check it must not leave __pycache__ in the suite
    return shlex.join([sys.executable, "-B", "-m", "pytest_plugin_eval.cli.hooks", kind, str(config_path)])


def settings(cfg: AuthoringConfig, config_path: Path) -> dict:
    def hook(kind: str) -> list[dict]:
        return [{"type": "command", "command": hook_command(kind, config_path), "timeout": HOOK_TIMEOUT_SECONDS}]

    writers = "|".join(FILE_TOOLS)
    return {
        "permissions": permission_settings(cfg),
        "disableAllHooks": False,  # these settings outrank the user's own: the checks always run
        "hooks": {
            "PreToolUse": [{"matcher": f"{writers}|Bash", "hooks": hook("guard")}],
            "PostToolUse": [{"matcher": writers, "hooks": hook("post")}],
            "Stop": [{"hooks": hook("stop")}],
        },
    }


# ---- what the model is told -----------------------------------------------------------------------------


def template(name: str) -> str:
    return resources.files(__package__).joinpath("prompts").joinpath(name).read_text(encoding="utf-8")


def system_prompt(cfg: AuthoringConfig) -> str:
    existing = (
        f"The suite already has these cases, which stay as they are: {', '.join(cfg.existing_cases)}."
        if cfg.existing_cases
        else f"`{cfg.eval_dir}/` holds no case yet."
    )
    values = {
        "PLUGIN": plugin_at(cfg.root_path).name,
        "ROOT": cfg.root,
        "EVAL_DIR": cfg.eval_dir,
        "CHECK": shlex.join(cfg.check_argv()),
        "PLUMBING": shlex.join(cfg.plumbing_argv()),
        "PILOT": cfg.pilot_template(),
        "RUN": shlex.join(cfg.run_argv()),
        "READY": READY,
        "NOTES": cfg.notes,
        "EXISTING": existing,
    }
    text = template("interview.md" if cfg.mode == "interview" else "draft.md") + "\n" + template("case-format.md")
    return re.sub(r"@@([A-Z_]+)@@", lambda m: values.get(m.group(1), m.group(0)), text)


def first_turn(cfg: AuthoringConfig, traffic: list[str], sources: list[str]) -> str:
    text = FIRST_TURN[cfg.mode]
    if traffic:
        listing = "\n".join(f"{i}. {json.dumps(p, ensure_ascii=False)}" for i, p in enumerate(traffic, 1))
        text += (
            f"\n\nReal traffic — {len(traffic)} prompt(s) users actually sent, from {', '.join(sources)} "
            f"(JSON strings, one a line):\n{listing}"
        )
    return text


# ---- the hooks --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HookAnswer:
    code: int  # 0: go on; 2: block, and show `message` to the model
    message: str = ""


ALLOW = HookAnswer(0)


def block(message: str) -> HookAnswer:
    return HookAnswer(2, message)


def event_path(event: dict, cfg: AuthoringConfig) -> Path | None:
    tool_input = event.get("tool_input") or {}
    written = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(written, str) or not written:
        return None
    return Path(os.path.normpath(Path(event.get("cwd") or cfg.root) / written))


def rel(path: Path, cfg: AuthoringConfig) -> str:
    return os.path.relpath(path, cfg.root)


def in_eval_dir(path: Path, cfg: AuthoringConfig) -> Path | None:
    """`path` as a path below the eval dir (symlinks followed: a link out of it is not in it), or None."""
    real, evals = Path(os.path.realpath(path)), Path(os.path.realpath(cfg.eval_root))
    if real != evals and not real.is_relative_to(evals):
        return None
    return cfg.eval_root / real.relative_to(evals)


def guard(event: dict, cfg: AuthoringConfig) -> HookAnswer:
    tool = event.get("tool_name")
    if tool == "Bash":
        return guard_shell(str((event.get("tool_input") or {}).get("command") or ""), cfg)
    if tool not in FILE_TOOLS:
        return ALLOW
    path = event_path(event, cfg)
    if path is None:
        return ALLOW  # nothing to write; Claude Code refuses the call itself
    target = in_eval_dir(path, cfg)
    if target is not None:
        where = rel(target, cfg)
        if Path(where).parts[1:2] == ("results",):
            return block(f"{where}: {cfg.eval_dir}/results/ holds what the runner writes — write cases elsewhere")
        if cfg.mode == "draft":
            if where in cfg.existing_files:
                return block(f"{where} existed before this draft: a draft adds cases and never overwrites a file")
            owner = next((c for c in cfg.existing_cases if Path(where).is_relative_to(c)), None)
            if owner is not None:
                return block(
                    f"{where} is inside the existing case {owner}: a draft adds new cases only — pick a new folder name"
                )
        return ALLOW
    if any(path == Path(d) or path.is_relative_to(d) for d in cfg.denied):
        return ALLOW  # the deny rules of the session's settings refuse it (and say so)
    return block(
        f"{path} is outside {cfg.eval_dir}/: in this session the plugin and everything around it are read-only — "
        f"write only under {cfg.eval_dir}/"
    )


def number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and value == value and value != float("inf") else None


def guard_shell(command: str, cfg: AuthoringConfig) -> HookAnswer:
    ours = [shlex.join(cfg.check_argv())]
    if cfg.mode == "interview":
        ours += [shlex.join(cfg.plumbing_argv()), cfg.pilot_template()]
    refusal = block(
        "only these commands run in this session: "
        + " · ".join(ours)
        + " — use Read, Glob and Grep to look at files"
        + ("" if cfg.mode == "interview" else "; a draft runs no pilot")
    )
    if SHELL_METACHARACTERS.search(command):
        return refusal
    try:
        argv = shlex.split(command)
    except ValueError:
        return refusal
    if argv == cfg.check_argv():
        return ALLOW
    if cfg.mode != "interview":
        return refusal
    grants = [a.split("=", 1)[1] for a in argv if a.startswith("--allow-tools=")]
    listed = [g for value in grants for g in value.split(",") if g]
    if argv == cfg.plumbing_argv(listed or None):
        return ALLOW
    try:
        bound = number(argv[argv.index("--max-cost-usd") + 1])
    except (ValueError, IndexError):
        bound = None
    if bound is None or argv != cfg.pilot_argv(bound, listed or None) or len(grants) > 1:
        return refusal
    result = cfg.check(session_only=False)
    if not result.ok:
        return block(
            "the pilot runs only on a suite that passes the check — fix these first:\n"
            + "\n".join(f"  ✗ {line}" for line in result.render_problems(PROBLEM_LINES))
        )
    estimate = result.estimate.pilot_bound if result.estimate else 0.0
    if bound > estimate + 1e-9:
        return block(
            f"--max-cost-usd {bound:.2f} is above the pilot's bound for this suite, ${estimate:.2f} (what "
            f"`{shlex.join(cfg.check_argv())}` prints): run the pilot with that bound, once the author accepted it"
        )
    unasked = [g for g in listed if g not in requested_grants(result.cases)]
    if unasked:
        return block(
            f"--allow-tools grants {', '.join(unasked)}, which no case asks for in allowed_tools — grant only "
            f"what the cases need"
        )
    return ALLOW


def case_of(path: Path, cfg: AuthoringConfig) -> Path | None:
    """The case folder holding `path`: the nearest folder at or above it, below the eval dir, with a case file."""
    folder = path.parent
    while folder != cfg.eval_root and folder.is_relative_to(cfg.eval_root):
        if folder.name == RESERVED_DIR:
            return None
        if is_case_dir(folder):
            return folder
        folder = folder.parent
    return None


def finding_lines(findings: list[Finding]) -> str:
    lines = [f'case "{f.case}": {f.line()}' for f in findings]
    if len(lines) > PROBLEM_LINES:
        lines = [*lines[:PROBLEM_LINES], f"… and {len(lines) - PROBLEM_LINES} more"]
    return "\n".join(f"  ⚑ {line}" for line in lines)


FINDINGS_ADVICE = (
    "A case with a finding would measure less than it seems (docs/findings.md): fix each as it says — do not "
    "leave the case as it is"
)


NAMED_QUERIES_ADVICE = (
    "a query that names what Claude should pick measures nothing about the description (docs/findings.md): reword "
    "each as a user who never heard of the plugin would"
)


def problem_lines(problems: list[Problem], cfg: AuthoringConfig) -> str:
    lines = [p.render(cfg.root_path) for p in problems]
    if len(lines) > PROBLEM_LINES:
        lines = [*lines[:PROBLEM_LINES], f"… and {len(lines) - PROBLEM_LINES} more"]
    return "\n".join(f"  ✗ {line}" for line in lines)


def post(event: dict, cfg: AuthoringConfig) -> HookAnswer:
    """After a write under the eval dir: load what it belongs to and say what does not load."""
    written = event_path(event, cfg)
    path = in_eval_dir(written, cfg) if written is not None else None
    if path is None:
        return ALLOW
    case_dir = case_of(path, cfg)
    in_mocks = RESERVED_DIR in path.relative_to(cfg.eval_root).parts
    if case_dir is None and is_trigger_file(path):  # a trigger set: it loads on its own
        try:
            sets = load_trigger_file(path, cfg.eval_root)
        except TriggerLoadError as e:
            return block(
                f"{rel(path, cfg)}: the trigger set loader says\n{problem_lines(e.problems, cfg)}\nFix this before "
                "moving on."
            )
        named = [
            f'  ⚑ {s.name} · {qid}: names {label} ("{words}")' for s in sets for qid, (label, words) in named_queries(s)
        ]
        if named:  # what `plugin-eval tune` would refuse
            return block(f"{rel(path, cfg)}: {NAMED_QUERIES_ADVICE}\n" + "\n".join(named))
        return ALLOW
    if case_dir is None and not in_mocks:
        return ALLOW  # not part of a case yet (a grader written before its prompt): the end-of-turn check sees it
    scope = (lambda d: d == case_dir) if case_dir is not None and not in_mocks else cfg.in_session
    result = check_suite(cfg.root_path, cfg.eval_dir, in_scope=scope, model=cfg.model, judge_model=cfg.judge_model)
    problems = result.load_problems + (result.case_floor_problems if case_dir is not None else [])
    if not problems and case_dir is not None and result.findings:
        return block(
            f"{rel(case_dir, cfg)}: {FINDINGS_ADVICE}\n{finding_lines(result.findings)}\n"
            "(If you are still writing this case's files, write the rest first.)"
        )
    if not problems:
        return ALLOW
    what = rel(case_dir, cfg) if case_dir is not None and not in_mocks else f"the cases that use {rel(path, cfg)}"
    return block(
        f"{what}: the suite loader says\n{problem_lines(problems, cfg)}\n"
        f"Fix this before moving on (if you are still writing this case's files, write the rest first)."
    )


def stop(event: dict, cfg: AuthoringConfig) -> HookAnswer:
    """At the end of a turn: the cases written in the session must load; at the end of the session the suite
    must also meet the floor."""
    final = cfg.mode == "draft" or READY in str(event.get("last_assistant_message") or "")
    result = cfg.check(session_only=True)
    problems = list(result.load_problems)
    if final:
        problems += result.case_floor_problems + result.suite_problems
        if cfg.mode == "draft" and not any(cfg.in_session(c.dir) for c in result.cases):
            problems.append(
                Problem(cfg.eval_root, "", "the draft holds no new case yet — write the cases, each in a new folder")
            )
    if not problems and final and result.findings:
        return block(f"{FINDINGS_ADVICE}, then finish again.\n{finding_lines(result.findings)}")
    if not problems:
        return ALLOW
    ending = (
        "The suite must pass the check before the session ends: fix these, then finish again."
        if final
        else "Fix these before you end your turn: a case you wrote does not load."
    )
    return block(f"{ending}\n{problem_lines(problems, cfg)}")
