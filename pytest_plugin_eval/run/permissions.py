"""What the agent may do in a run: its tool grants and deny rules, as Claude Code command-line flags.

A case asks for tools with `allowed_tools`; the operator grants the risky ones with `--allow-tools`. Tools
that can change the machine or reach the network are *gated*: a case can only ask for them, the operator
must grant them. Everything not granted stays on the deny list, and path rules keep the agent away from
the harness's own folders and the eval suite (graders and rubrics stay hidden).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.tools import NEVER, is_gated, tool_of

# Tools that read files: a grant is scoped to the run's own folders and the plugin.
PATH_READERS = ("Read", "Glob", "Grep")
SHELLS = ("Bash", "PowerShell")

# Tools denied in every run unless granted: they write, reach out, or belong to interactive Claude Code.
DENIED_TOOLS = (
    "Bash",
    "PowerShell",
    "Monitor",
    "EnterWorktree",
    "ExitWorktree",
    "ExitPlanMode",
    "Edit",
    "Write",
    "NotebookEdit",
    "memory_list",
    "memory_read",
    "memory_write",
    "WebFetch",
    "ReportFindings",
    "WebSearch",
    "SendFeedback",
    "SendToProject",
    "SendToProjectContext",
    "EnterPlanMode",
    "DesignSync",
    "Projects",
    "Artifact",
    "ArtifactComments",
    "ArtifactData",
    "ArtifactCheck",
    "AppifactRepl",
    "SendMessage",
    "SendFile",
    "ListAgents",
    "ShareOnboardingGuide",
    "Poll",
    "Yield",
    "Workflow",
    "CronCreate",
    "CronDelete",
    "CronList",
    "ScheduleWakeup",
    "RemoteTrigger",
    "SearchMcpRegistry",
    "SuggestConnectors",
    "ShowOnboardingRolePicker",
    "OfferChromeSetup",
    "WrapUp",
    "ReadNotifications",
    "ReadWidgetContext",
    "McpTaskResumePolling",
    "enable__mcp__claude-in-chrome",
    "enable__mcp__remote-devices__Claude_Browser",
    "enable__mcp__remote-devices__computer",
    "request_computer",
    "ListConnectors",
    "SearchPlugins",
    "SearchSkills",
    "SuggestPluginInstall",
    "SuggestSkills",
    "ListPlugins",
    "ListSkills",
    "SendUserMessage",
    "SendUserFile",
    "propose_skills",
    "SetGoal",
    "PauseGoal",
    "GetGoal",
    "PublishPlugin",
    "PushNotification",
    "FetchInboxMessage",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "ReadMcpResourceDirTool",
    "GetTask",
)

# Tools whose (pattern) is a file path.
PATH_TOOLS = frozenset({"Read", "Glob", "Grep", "Edit", "Write", "NotebookEdit"})


def _anchor(entry: str, cwd: Path) -> str:
    """Relative path patterns are anchored at the run's working directory: Edit(src/**) → Edit(//…/cwd/src/**).
    Other patterns (Bash commands, WebFetch domains) pass unchanged."""
    tool, _, rest = entry.partition("(")
    if not rest or tool not in PATH_TOOLS:
        return entry
    pattern = rest[:-1]
    if pattern.startswith(("/", "~")):
        return entry
    return f"{tool}(/{cwd}/{pattern})"


def _outside_run(entry: str) -> bool:
    """A file-reading pattern with an absolute path: a case may not grant itself reads of the machine."""
    tool, _, rest = entry.partition("(")
    return tool in PATH_TOOLS and rest[:-1].startswith(("/", "~"))


@dataclass(frozen=True)
class RunFolders:
    """The folders of one run that the rules refer to."""

    home: Path
    cwd: Path
    tmp: Path
    config: Path
    out: Path
    plugin: Path | None
    case_dir: Path
    eval_root: Path
    add_dirs: tuple[Path, ...] = ()  # fixture folders inside the suite the agent may read

    def hidden(self) -> list[Path]:
        """What of the eval suite the agent must not read: all of it, except the case's fixture folders."""
        return hidden_paths(self.eval_root, self.add_dirs)


def hidden_paths(root: Path, visible: tuple[Path, ...]) -> list[Path]:
    """The fewest paths that cover everything under `root` except the `visible` subtrees (deny rules win over
    grants, so a readable fixture folder inside the suite needs its siblings denied one by one)."""
    if not visible:
        return [root]
    out: list[Path] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            if entry in visible:
                continue
            if any(entry in v.parents for v in visible):
                walk(entry)
            else:
                out.append(entry)

    walk(root)
    return out


def allowed_tools(case_tools: tuple[str, ...], grants: tuple[str, ...], folders: RunFolders) -> list[str]:
    """The child's --allowed-tools list: the case's ungated tools (file readers scoped to the run and the
    plugin), then the operator's grants (writers scoped to cwd and tmp)."""
    out: list[str] = []
    for entry in case_tools:
        if is_gated(entry) or tool_of(entry) in NEVER or _outside_run(entry):
            continue  # only the operator can grant these; the start-up notice says so
        if entry in PATH_READERS:
            roots = [folders.home, folders.tmp]
            if folders.plugin is not None:
                roots += [p for p in sorted(folders.plugin.iterdir()) if p.name != folders.eval_root.name]
            out += [f"{entry}(/{root}/**)" if root.is_dir() else f"{entry}(/{root})" for root in roots]
        else:
            out.append(_anchor(entry, folders.cwd))
    # A bare Write or Edit grant is scoped to the run's cwd and tmp; Write brings Edit along (as Claude Code's own
    # acceptEdits does), Edit alone does not bring Write.
    writers = ("Edit", "Write") if "Write" in grants else ("Edit",) if "Edit" in grants else ()
    out += [_anchor(entry, folders.cwd) for entry in grants if entry not in ("Write", "Edit")]
    out += [f"{tool}(/{root}/**)" for root in (folders.cwd, folders.tmp) for tool in writers]
    return list(dict.fromkeys(out))


def disallowed_tools(granted: tuple[str, ...], removed: tuple[str, ...], folders: RunFolders) -> list[str]:
    """The child's --disallowed-tools: path rules, then every denied tool not granted, then removals."""
    rules: list[str] = []

    def both(root: Path, tools=("Read", "Edit")):
        for tool in tools:
            rules.append(f"{tool}(/{root}/**)")

    both(folders.config)
    both(folders.out)
    if folders.plugin is not None:
        rules.append(f"Edit(/{folders.plugin}/**)")
    rules.append(f"Edit(/{folders.case_dir}/**)")
    for name in (".git", ".eval-artifacts"):
        rules += [f"Edit(/{folders.cwd}/{name})", f"Edit(/{folders.cwd}/{name}/**)"]
    for hidden in folders.hidden():
        for tool in ("Read", "Edit"):
            rules += [f"{tool}(/{hidden})", f"{tool}(/{hidden}/**)"]
    rules.append("Read(//proc/**)")
    granted_tools = {tool_of(g) for g in granted}
    if "Write" in granted_tools:
        granted_tools.add("Edit")
    rules += [t for t in DENIED_TOOLS if t not in granted_tools]
    rules += [t for t in removed if t not in rules]
    return rules


# Shell commands run inside Claude Code's OS sandbox: these credentials never reach them.
SANDBOX_SECRET_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "GITHUB_TOKEN",
    "GH_TOKEN",
)
# System places that hold secrets, unreadable from the sandbox whatever else is allowed.
SANDBOX_DENY_READ = ("/run/secrets", "/run/credentials", "/etc/kubernetes/pki", "/var/lib/kubelet/pki")


def shell_granted(grants: tuple[str, ...]) -> bool:
    return any(tool_of(g) in SHELLS for g in grants)


def sandbox_settings(folders: RunFolders, plugins: tuple[Path, ...], operator_home: Path) -> dict:
    """Claude Code's `sandbox` settings for a run whose shell is granted: commands may write in the run's
    working directory and tmp only, read the run's home, tmp and the plugin, never the operator's home or the
    eval suite (graders and rubrics), and reach no network host."""
    path = lambda p: f"/{p}"  # noqa: E731  (an absolute path in settings: //abs)
    return {
        "enabled": True,
        "failIfUnavailable": True,  # no backend → the run refuses to start, never runs unconfined
        "autoAllowBashIfSandboxed": False,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": []},
        "filesystem": {
            "allowWrite": [path(folders.cwd), path(folders.tmp)],
            "denyWrite": [
                path(p)
                for p in (
                    folders.config,
                    folders.out,
                    *plugins,
                    folders.case_dir,
                    folders.eval_root,
                    folders.cwd / ".git" / "hooks",
                    folders.cwd / ".git" / "config",
                )
            ],
            "denyRead": [path(p) for p in (operator_home, *folders.hidden(), folders.config, folders.out)]
            + [f"/{p}" for p in SANDBOX_DENY_READ],
            "allowRead": [path(p) for p in (folders.home, folders.tmp, *plugins, *folders.add_dirs)],
        },
        "credentials": {"envVars": [{"name": name, "mode": "deny"} for name in SANDBOX_SECRET_VARS]},
    }


def sandbox_missing() -> str | None:
    """Why a granted shell cannot be confined on this machine, or None."""
    if sys.platform == "linux":
        missing = [tool for tool, exe in (("bubblewrap", "bwrap"), ("socat", "socat")) if not shutil.which(exe)]
        if missing:
            return (
                f"a shell tool (Bash) was granted, but this machine cannot confine it: {' and '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} not installed — install them (apt install bubblewrap "
                f"socat), or drop the Bash grant; the run was not started rather than run unconfined"
            )
    return None
