"""One run of the agent: stage the workspace, start `claude -p` as the child, read what it produced.

Starting and running are two steps (`start_agent`, then `StartedAgent.finish`), so that a child can load itself
before its prompt is given; `run_agent` does both at once.

Grading and recording the run are the next stages' business; this module ends with an AgentRun whose workspace
is still on disk.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import prices
from ..core.clock import now_iso
from ..core.kinds import Arm, ablated_component, loads_plugin
from ..load.case import Case
from ..load.suite import declared_servers, plugin_at
from . import conversation, partial, permissions, trigger
from .agent import AgentCommand, AgentStartError, Child, RunError, classify, silence_limit
from .output import RunOutput
from .plugin_load import plugin_load_fault
from .redact import Redactor
from .stand_ins import MockPlan, first_abort, grader_view, plan_mocks, read_calls, run_summary, write_configs
from .transcript import Transcript
from .workspace import (
    MODEL_NAMES,
    Snapshot,
    Workspace,
    credential_files,
    credential_names,
    operator_env,
    run_label,
)


@dataclass(frozen=True)
class RunSettings:
    """The session's options that shape every run."""

    model: str | None = None  # --model: overrides the case's
    allow_tools: tuple[str, ...] = ()  # --allow-tools
    disallow_tools: tuple[str, ...] = ()  # --disallow-tools
    scaffold: bool = False  # --scaffold
    mocks: str = "record"  # --mocks
    allow_real_servers: bool = False  # --allow-real-servers
    keep_temp: bool = False  # --keep-temp
    strict_tools: bool = False  # --strict-tools: a run refused a tool is a run error


@dataclass(frozen=True)
class RunPlan:
    case: Case
    arm: Arm
    index: int  # 1-based
    settings: RunSettings
    claude: Path
    base_url: Callable[[Path], str] | None = None  # cwd → this run's model endpoint (scripted); None: inherited
    mock_agent: dict | None = None  # model settings for agent mocks: {model, baseUrl}
    record_dir: Path | None = None  # where agent mocks record their answers
    stop: threading.Event | None = None  # set when the session stops: the child is stopped at once
    tag: str | None = None  # the session's tag: every process of the run carries it (SESSION_TAG)
    hidden: tuple[Path, ...] = ()  # folders the agent must not see, such as the session's results folders
    environ: dict = field(default_factory=lambda: dict(os.environ))
    # the plugin folders this run's arm has (another version, a copy minus a component: engine/versions.py);
    # None: the case's own
    plugins: tuple[Path, ...] | None = None
    user: conversation.UserModel | None = None  # the case's simulated user (user:), asked on the judge's client
    may_spend: Callable[[float], bool] | None = None  # the cost ceiling, given what the run has spent so far

    @property
    def talks(self) -> bool:
        """A conversation (turns, answers, a simulated user) rather than one prompt; never a trigger run, which
        stops at the first skill the agent picks."""
        return self.case.conversation.active and self.case.trigger is None

    @property
    def model(self) -> str | None:
        return self.settings.model or self.case.model

    @property
    def plugin_dirs(self) -> tuple[Path, ...]:
        """The plugin folders of this run: loaded with --plugin-dir in every arm but without."""
        return self.case.plugin_dirs if self.plugins is None else self.plugins


def run_folders(plan: RunPlan, ws: Workspace) -> permissions.RunFolders:
    case = plan.case
    return permissions.RunFolders(
        home=ws.home,
        cwd=ws.cwd,
        tmp=ws.tmp,
        config=ws.config,
        out=ws.out,
        plugin=plan.plugin_dirs[0] if plan.plugin_dirs else None,
        case_dir=case.dir,
        eval_root=case.eval_root,
        add_dirs=case.context.add_dirs,
        root=ws.root,
        plugins=tuple(plan.plugin_dirs),
        results=tuple(Path(p).absolute() for p in plan.hidden),
        caller_homes=caller_homes(plan.environ),
        temp_dir=Path(tempfile.gettempdir()).absolute(),
        credential_files=tuple(credential_files(operator_env(plan.environ))),
    )


def caller_homes(environ: dict) -> tuple[Path, ...]:
    """The operator's home as HOME names it, and the account's own (HOME may have been pointed elsewhere)."""
    homes = [environ.get("HOME"), os.path.expanduser("~")]
    try:
        import pwd

        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, AttributeError):
        pass
    return tuple(dict.fromkeys(Path(h).absolute() for h in homes if h and os.path.isabs(h)))


def stage(plan: RunPlan, ws: Workspace) -> None:
    """Prepare the workspace before the child starts: the case's context (its files, a resumed history, the
    scaffold script with --scaffold), and the OS sandbox for a granted shell."""
    context = plan.case.context
    for source, rel in context.files:  # the case's input files, where its prompt says they are
        (ws.cwd / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, ws.cwd / rel)
    if context.history_file is not None:
        shutil.copyfile(context.history_file, ws.history)
    if context.scaffold_script is not None and plan.settings.scaffold:
        ws.run_scaffold(context.scaffold_script)
    settings: dict = {}
    if permissions.shell_granted(plan.settings.allow_tools):
        problem = permissions.sandbox_missing()
        if problem:
            raise AgentStartError(problem)
        folders = run_folders(plan, ws)
        secrets = credential_names(operator_env(plan.environ))  # the operator's; not the harness's GIT_CONFIG_KEY_n
        settings["sandbox"] = permissions.sandbox_settings(folders, plan.plugin_dirs, secrets)
    if plan.case.trigger is not None:  # the agent is held at the call that decides the run (run/trigger.py)
        settings["hooks"] = trigger.hold_hooks(plan.case.trigger, ws.out)
    if settings:
        ws.write_settings(**settings)


MOCK_MODEL_ENV = "mock-model-env.json"


def mock_agent_settings(plan: RunPlan, ws: Workspace) -> dict | None:
    """The agent mocks' model settings. The stand-in asks its model as the session's judges do, signed in by what
    signs the run in — which Claude Code hands no MCP server (it blanks CLAUDE_CODE_OAUTH_TOKEN even in a server's
    env): it is written to a file in the run's out/ (0600; denied to the agent's tools and shell, never kept) that
    the stand-in reads. The scripted endpoint (a base URL of the mock's own) needs none."""
    agent = plan.mock_agent
    if not agent or agent.get("baseUrl"):
        return agent
    env = operator_env(plan.environ)
    access = {n: v for n, v in env.items() if n in MODEL_NAMES or n.startswith("CLAUDE_CODE_USE_")}
    path = ws.out / MOCK_MODEL_ENV
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(access, handle)
    return {**agent, "modelEnv": str(path)}


def stand_ins(plan: RunPlan, ws: Workspace) -> MockPlan | None:
    """The run's MCP stand-ins (None with --mocks off: every real server starts), their configs written."""
    if plan.settings.mocks != "record":
        return None
    # The plugins' declared servers matter in both arms: without the plugin, their mocks are simply not served.
    # An ablation's copy no longer declares the server it leaves out: its mock is not served either (it would be
    # served standalone, and the component would still be there).
    ablation = ablated_component(plan.arm) is not None
    plugins = {plugin_at(folder).name: folder for folder in (plan.case.plugin_dirs if ablation else plan.plugin_dirs)}
    mock_plan = plan_mocks(plan.case.mocks, plugins, plan.arm, allow_real_servers=plan.settings.allow_real_servers)
    if ablation:
        kept = {server for folder in plan.plugin_dirs for server in declared_servers(folder)}
        gone = {server for folder in plan.case.plugin_dirs for server in declared_servers(folder)} - kept
        mock_plan.stand_ins = [s for s in mock_plan.stand_ins if s.server not in gone]
    if mock_plan.active:
        write_configs(mock_plan, ws.out, mock_agent_settings(plan, ws), plan.record_dir, env={})
    return mock_plan


def mock_calls_with_only(plan: RunPlan) -> bool:
    """Whether the case's mock_calls graders are plugin-fired indicators in this session: only when stand-ins are
    served (not --mocks off) and they all shadow plugin servers, i.e. none is served in the without arm."""
    return plan.settings.mocks == "record" and plan.case.mocks_all_shadow


def build_argv(plan: RunPlan, ws: Workspace, mock_plan: MockPlan | None = None) -> list[str]:
    case, settings = plan.case, plan.settings
    argv = [
        str(plan.claude),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        partial.FLAG,
        "--max-turns",
        str(case.max_turns),
        "--permission-mode",
        "dontAsk",
        *(conversation.FLAGS if plan.talks else ()),
        "--setting-sources",
        "user",
    ]
    if plan.model:
        argv.append(f"--model={plan.model}")
    if loads_plugin(plan.arm):
        for folder in plan.plugin_dirs:
            argv += ["--plugin-dir", str(folder)]
    folders = run_folders(plan, ws)
    allowed = permissions.allowed_tools(case.allowed_tools, settings.allow_tools, folders)
    allowed += [f"{tool}(/{folder}/**)" for folder in case.context.add_dirs for tool in permissions.PATH_READERS]
    if mock_plan is not None and mock_plan.active:
        allowed += mock_plan.granted_tools()  # mocked tools are safe: they only answer from the mock files
    if allowed:
        argv.append("--allowed-tools=" + ",".join(allowed))
    removed = tuple(dict.fromkeys(case.disallowed_tools + settings.disallow_tools))
    argv.append("--disallowed-tools=" + ",".join(permissions.disallowed_tools(settings.allow_tools, removed, folders)))
    for folder in case.context.add_dirs:
        argv += ["--add-dir", str(folder)]  # the agent is told where its fixture folders are
    if case.context.history_file is not None:
        argv += ["--resume", str(ws.history)]
    if mock_plan is not None and mock_plan.active:
        argv.append(f"--mcp-config={ws.out / 'mcp-config.json'}")
    if case.append_system_prompt:
        argv.append(f"--append-system-prompt={case.append_system_prompt}")
    return argv


def agent_cost(transcript: Transcript, model: str | None) -> float:
    """Claude Code's own total when the child finished; otherwise priced from the usage it streamed."""
    result = transcript.result
    if result is not None and isinstance(result.get("total_cost_usd"), (int, float)):
        return float(result["total_cost_usd"])
    return sum(prices.price(model, usage) for usage in transcript.usage_by_model().values())


def unpriced_models(transcript: Transcript) -> list[str]:
    """Models Claude Code had no list price for (it prices them as its default model)."""
    usage = (transcript.result or {}).get("modelUsage") or {}
    return [model for model, data in usage.items() if isinstance(data, dict) and data.get("costBasis") == "unknown"]


def skill_failures(transcript: Transcript) -> list[str]:
    """The agent picked a skill that Claude Code could not give it (an unknown name, a skill that did not load):
    the indicator still counts the call, so say it, with the fix that fits Claude Code's answer."""
    out = []
    for call, error in transcript.failed_calls("Skill"):
        text = " ".join(re.sub(r"</?tool_use_error>", "", error).split())  # one line: stderr comes in several
        out.append(
            f'the agent called Skill "{call.get("skill") or call.get("command") or "?"}" and Claude Code answered '
            f'"{text[:160]}" — {_skill_failure_fix(text)}'
        )
    return out


# Claude Code runs a SKILL.md's !`command` lines as it loads the skill, under the run's permissions: a refused one
# fails the whole Skill call, although the name was right (a skill that documents that syntax meets it too).
_SHELL_REFUSED = re.compile(r"Shell command permission check failed|Permission to use \w+ has been denied")
# The Skill call itself refused: a skill or command with `allowed-tools` in its frontmatter needs Skill pre-approved.
_SKILL_REFUSED = re.compile(r"Permission to use Skill has been denied")
# A granted !`command` that exits non-zero fails the call too: mostly the workspace lacks what it reads (a run's
# working directory is a fresh git repository with no commit, so `git diff HEAD` or `git log` fail there).
_SHELL_FAILED = re.compile(r"Shell command failed for pattern")


def _skill_failure_fix(answer: str) -> str:
    if _SKILL_REFUSED.search(answer):
        return (
            "Claude Code asks before it runs a skill or command whose frontmatter has allowed-tools, and nobody can "
            "answer in a run: list Skill in the case's allowed_tools (granted by default, but not pre-approved)"
        )
    if _SHELL_REFUSED.search(answer):
        return (
            "the skill's SKILL.md runs a !`command` as it loads, and this run does not grant that tool: grant it "
            "(the case's allowed_tools, or --allow-tools) or take the command out of the SKILL.md"
        )
    if _SHELL_FAILED.search(answer):
        return (
            "the name was right, but a !`command` its file runs as it loads failed in the run's workspace (a fresh "
            "git repository with no commit): give the case what the command reads (context files, or a "
            "scaffold_script run with --scaffold)"
        )
    return "check that the skill's folder and the name in its SKILL.md match what Claude calls"


# Bounded retries (the child's own, then a whole run again) instead of Claude Code's ten retries over
# minutes: a throttled API becomes an infrastructure error in seconds, not a regression after an hour.
CHILD_DEFAULTS = {
    "CLAUDE_CODE_MAX_RETRIES": "3",  # per request; Claude Code honours retry-after
}
# A stream silent this long (no byte, not even a ping) is dropped and asked again, and the trace says so: the
# evidence that tells a stalled API from a slow model when the run's time limit strikes (agent.silence_limit).
IDLE_LIMIT = "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS"


SESSION_TAG = "PLUGIN_EVAL_SESSION"


def child_env(plan: RunPlan, ws: Workspace) -> dict[str, str]:
    env = ws.agent_env(plan.environ, dict(plan.case.env))
    for name, value in CHILD_DEFAULTS.items():
        env.setdefault(name, value)
    env.setdefault(IDLE_LIMIT, str(round(silence_limit(plan.case.timeout_seconds) * 1000)))
    if plan.base_url:
        env["ANTHROPIC_BASE_URL"] = plan.base_url(ws.cwd)
        env.setdefault("ANTHROPIC_API_KEY", "scripted")
    if plan.tag:
        env[SESSION_TAG] = plan.tag  # inherited by everything the child starts, so the session can find it
    return env


@dataclass(frozen=True)
class AgentRun(RunOutput):
    """A finished agent run whose workspace is still on disk: what graders read, and what the `eval_agent`
    fixture hands to a Python test (error, cost and the workspace besides the RunOutput views)."""

    error: RunError | None = None
    cost_usd: float = 0.0
    workspace: Workspace | None = None
    started_at: str = ""
    duration_seconds: float = 0.0
    judge: Any = None  # for assert_llm/assert_baseline on runs of the eval_agent fixture
    aborted: dict | None = None  # {server, tool, reason}: a mock stopped the run
    mocks: dict | None = None  # the run's mock summary (servers, warnings, calls)
    notes: tuple[str, ...] = ()
    said: tuple[conversation.Said, ...] = ()  # a conversation's user messages, and who wrote each
    asked: tuple[conversation.Asked, ...] = ()  # the questions the agent asked (AskUserQuestion), and their answers
    user_cost_usd: float = 0.0  # what the simulated user's replies cost
    user_capped: bool = False  # the simulated user reached its max_user_turns

    @property
    def trace_path(self) -> Path | None:
        return self.workspace.trace if self.workspace else None


TRIGGER_POLL = 0.05  # seconds between looks at a trigger run's trace


def run_agent(plan: RunPlan, ws: Workspace) -> AgentRun:
    """Run the child in `ws` and read what it produced. Raises AgentStartError when it cannot start."""
    return start_agent(plan, ws).finish()


def start_agent(plan: RunPlan, ws: Workspace) -> StartedAgent:
    """Stage the workspace and start the child, which loads itself and then waits for its prompt (given by
    `finish`). Raises AgentStartError when it cannot start."""
    case = plan.case
    ws.run_file.write_text(run_label(case.dir, plan.arm, plan.index), encoding="utf-8")
    stage(plan, ws)
    mock_plan = stand_ins(plan, ws)
    before = ws.snapshot()  # after staging: scaffold files are the run's starting point, not its work
    command = AgentCommand(
        tuple(build_argv(plan, ws, mock_plan)), child_env(plan, ws), ws.cwd, case.prompt, case.timeout_seconds
    )
    try:
        child = (
            conversation.ConversationChild(command, ws.trace, ws.stderr)
            if plan.talks
            else Child(command, ws.trace, ws.stderr)
        )
    except OSError as e:
        raise AgentStartError(f"could not start {plan.claude}: {e}") from None
    if isinstance(child, conversation.ConversationChild):
        child.dialogue = conversation.Dialogue(
            case.conversation,
            child.send,
            child.close_input,
            case.max_turns,
            user=plan.user,
            may_spend=plan.may_spend or (lambda _spent: True),
        )
    return StartedAgent(plan, ws, mock_plan, before, child)


@dataclass
class StartedAgent:
    """A run whose child has been started and waits for its prompt."""

    plan: RunPlan
    workspace: Workspace
    mock_plan: MockPlan | None
    before: Snapshot
    child: Child

    def finish(self) -> AgentRun:
        """Give the child its prompt, supervise it to the end, and read what it produced."""
        plan, ws, mock_plan, case = self.plan, self.workspace, self.mock_plan, self.plan.case
        active = mock_plan is not None and mock_plan.active
        started_at, started = now_iso(), time.monotonic()

        decided = trigger.watcher(case.trigger, ws.trace) if case.trigger is not None else None
        dialogue = self.child.dialogue if isinstance(self.child, conversation.ConversationChild) else None
        tail = conversation.TraceTail(ws.trace) if dialogue is not None else None

        def watch() -> bool:
            if dialogue is not None and tail is not None:  # the user's side: answer what the agent said since
                for event in tail.events():
                    dialogue.on_event(event)
            # The session stopping, or a mock's expect: violation (or an agent mock's ABORT:), stops the run at once;
            # a trigger run stops as soon as its trace decides it.
            return (
                (plan.stop is not None and plan.stop.is_set())
                or (active and first_abort(read_calls(ws.out)) is not None)
                or (decided is not None and decided())
            )

        if decided is None:
            exit_ = self.child.run(watch)
        else:  # nothing is left to do once decided (the agent is held), so it is looked for often and stopped hard
            exit_ = self.child.run(watch, poll=TRIGGER_POLL, stop_grace=0)
        # Before anything reads what the run produced, the operator's credentials are taken out of it.
        (ws.out / MOCK_MODEL_ENV).unlink(missing_ok=True)  # the mocks' sign-in: gone with the run, even --keep-temp
        redactor = Redactor.of(operator_env(plan.environ))
        redactor.names(ws.cwd)
        redactor.run_output(ws.out)
        exit_ = dataclasses.replace(exit_, stderr=redactor.text(exit_.stderr))
        # A time limit is judged on the whole stream (were bytes still coming?), graders read the trace without it.
        streamed = Transcript.from_file(ws.trace) if exit_.timed_out else None
        transcript = Transcript(partial.take_out(ws.trace))
        changes = ws.record_changes(self.before)
        redactor.tree(ws.cwd, (*changes.created, *changes.modified))
        calls = read_calls(ws.out) if active else []
        warnings = mock_warnings(mock_plan)
        summary = run_summary(mock_plan, calls, transcript.tool_calls, warnings) if mock_plan and active else None
        mock_cost = summary["calls"]["costUsd"] if summary else 0.0
        return AgentRun(
            transcript=transcript,
            cwd=ws.cwd,
            created_files=changes.created,
            arm=plan.arm,
            mock_calls=grader_view(calls) if active else None,
            error=RunError("interrupted", "interrupted: the session was stopped")
            if plan.stop is not None and plan.stop.is_set()
            else sandbox_fault(plan, ws, transcript, exit_.stderr)
            or (plugin_load_fault(plan.plugin_dirs, transcript) if loads_plugin(plan.arm) else None)
            or classify(exit_, transcript if streamed is None else streamed, case.timeout_seconds)
            or (dialogue.error if dialogue is not None else None),
            cost_usd=agent_cost(transcript, plan.model) + mock_cost,
            workspace=ws,
            started_at=started_at,
            duration_seconds=time.monotonic() - started,
            aborted=first_abort(calls),
            mocks=summary,
            notes=tuple(warnings) + (tuple(dialogue.notes) if dialogue is not None else ()),
            said=tuple(dialogue.said) if dialogue is not None else (),
            asked=tuple(dialogue.asked) if dialogue is not None else (),
            user_cost_usd=dialogue.user_cost_usd if dialogue is not None else 0.0,
            user_capped=dialogue.user_capped if dialogue is not None else False,
        )

    def discard(self) -> None:
        """The run will not be made: stop the child and remove its workspace."""
        self.child.kill()
        self.workspace.remove()


def sandbox_fault(plan: RunPlan, ws: Workspace, transcript: Transcript, stderr: str) -> RunError | None:
    """A granted shell whose sandbox did not start: the machine's fault, not the plugin's (see permissions)."""
    if not permissions.shell_granted(plan.settings.allow_tools):
        return None
    texts = [error for shell in permissions.SHELLS for _, error in transcript.failed_calls(shell)] + [stderr]
    why = permissions.sandbox_failure(texts, ws.tmp)
    return RunError("sandbox", why) if why else None


def mock_warnings(mock_plan: MockPlan | None) -> list[str]:
    if mock_plan is None:
        return []
    return list(mock_plan.notes)  # tools without a _tools.json entry: the session says it once (case_notices)
