"""What the agent may do in a run: its tool grants and deny rules, as Claude Code command-line flags and settings.

A case asks for tools with `allowed_tools`; the operator grants the risky ones with `--allow-tools`. Tools
that can change the machine or reach the network are *gated*: a case can only ask for them, the operator
must grant them. Everything not granted stays on the deny list.

The agent's file tools reach the run's own folders, the case's fixture folders and the plugin (read-only), and
nothing else, by two layers that each hold alone:
- grants are scoped: a reader (Read, Grep, Glob) to the run's home and tmp and the plugin, whoever grants it; a
  writer to cwd and tmp; a pattern is anchored at cwd (one that leaves it is refused when options are read). In
  `dontAsk` mode Claude Code refuses whatever no grant covers outside cwd;
- deny rules, which win over every grant: the operator's home, the eval suite (graders and rubrics), the results
  folders, every other run's workspace, the run's own config and trace, credential files, /proc.
Shell commands run in Claude Code's OS sandbox, within the same boundaries (sandbox_settings).

(Claude Code's permissions.blockFileToolReadsOutsideWorkingDirectories would be a third layer, but in its
evaluation mode — CLAUDE_CODE_EVAL_CONFINED, which every run sets — it lets through nothing but cwd and --add-dir
folders: the plugin would have to become a working directory, which the model is told about, in both arms.)
"""

from __future__ import annotations

import re
import shutil
import string
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.tools import FILE_TOOLS, NEVER, is_gated, leaves_workspace, tool_of
from . import credentials

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
PATH_TOOLS = FILE_TOOLS
# Tools that write files: a bare grant is scoped to the run's cwd and tmp.
WRITERS = ("Edit", "Write", "NotebookEdit")
# The names Workspace.create and the session's scratch folder give their temp folders (mkdtemp prefixes), and
# the run's own TMPDIR (in SHORT_TMP, see Workspace.create).
WORKSPACE_PREFIX = "claude-eval-"
SESSION_PREFIX = "plugin-eval-session-"
TMP_PREFIX = "pe-"
SHORT_TMP = Path("/tmp")
# Where a home keeps credentials: denied by name too when the home cannot be hidden whole (the plugin or the run
# lies in it — or is it).
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".gnupg",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".claude",
    ".claude.json",
)
# The characters of a temp folder's name (mkdtemp draws from [a-z0-9_]; `.` and `-` for names made otherwise).
# Lower case only: Claude Code matches path rules case-insensitively, so `[A-Z]` would also match `a`.
NAME_CHARS = "".join(sorted(set(string.ascii_lowercase + string.digits + "_.-")))


def _anchor(entry: str, cwd: Path) -> str:
    """Relative path patterns are anchored at the run's working directory: Edit(src/**) → Edit(//…/cwd/src/**).
    Other patterns (Bash commands, WebFetch domains) pass unchanged; one that leaves cwd is never passed here."""
    tool, _, rest = entry.partition("(")
    if not rest or tool not in PATH_TOOLS:
        return entry
    return f"{tool}(/{cwd}/{rest[:-1]})"


def rule(tool: str, path: Path | str) -> str:
    """A rule on an absolute path, in Claude Code's spelling (`//` starts an absolute path)."""
    return f"{tool}(/{path})"


def both(tool: str, path: Path | str) -> list[str]:
    """A folder (or file) and everything below it."""
    return [rule(tool, path), rule(tool, f"{path}/**")]


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
    root: Path | None = None  # the run's workspace: every other folder beside it is another run's
    plugins: tuple[Path, ...] = ()  # every plugin of the case (read-only for the agent)
    results: tuple[Path, ...] = ()  # results folders: earlier runs' traces and files
    caller_homes: tuple[Path, ...] = ()  # the operator's home folder(s)
    temp_dir: Path | None = None  # the system temp folder, where other sessions keep their workspaces
    credential_files: tuple[Path, ...] = ()  # files named by the credential variables the child got

    @property
    def visible(self) -> tuple[Path, ...]:
        """What the agent may read, wherever it lies (carved out of the folders hidden around it)."""
        return (self.root or self.home, self.home, self.tmp, *self.plugins, *self.add_dirs)

    def hidden(self) -> list[Path]:
        """What of the eval suite the agent must not read — all of it, except the case's fixture folders — and the
        results folders (except what the agent may read, should one hold it)."""
        out = hidden_paths(self.eval_root, self.add_dirs)
        for folder in self.results:
            out += [p for p in deny_except(folder, self.visible) if p not in out]
        return out

    def homes(self) -> list[Path]:
        """The operator's home folders, never a filesystem root (that would hide the machine from the shell)."""
        return list(dict.fromkeys(h for h in self.caller_homes if h != Path(h.anchor)))

    def hidden_in_homes(self) -> list[Path]:
        """What of the operator's homes no tool may read: each whole, less what the agent may read in it — and then
        its credential folders by name all the same."""
        out: list[Path] = []
        for home in self.homes():
            hidden = deny_except(home, self.visible)
            if hidden != [home]:
                hidden += [
                    home / rel
                    for rel in HOME_SECRETS
                    if not any(h == home / rel or h in (home / rel).parents for h in hidden)
                ]
            out += [p for p in hidden if p not in out]
        return out

    def sandbox_hidden_homes(self) -> list[Path]:
        """The homes for the sandbox's denyRead (its allowRead carves the visible folders back out), or a home's
        credential folders when the home itself is a visible folder (a plugin checked out as HOME)."""
        out: list[Path] = []
        for home in self.homes():
            if any(home == v or v in home.parents for v in self.visible):
                out += [home / rel for rel in HOME_SECRETS]
            else:
                out.append(home)
        return list(dict.fromkeys(out))


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


def deny_except(root: Path, visible: Iterable[Path]) -> list[Path]:
    """`root`, less the `visible` paths inside it (hidden_paths); nothing when `root` itself is visible."""
    inside = tuple(v for v in visible if v == root or root in v.parents)
    if root in inside:
        return []
    if not inside:
        return [root]
    try:
        return hidden_paths(root, inside)
    except OSError:
        return [root]


def other_than(name: str) -> list[str]:
    """Name patterns (Claude Code's gitignore-style globs) that match every name but `name`: for each position i,
    the names equal to `name` before i and different at i; and the names longer than `name` that start with it.
    The classes are written out in lower case: the matcher has no `[!x]` and ignores case. (Names shorter than
    `name` that it starts with are left out: mkdtemp never makes one, and no agent can write beside the run's root.)"""
    out = []
    for i, char in enumerate(name):
        others = "".join(c for c in NAME_CHARS if c != char)
        out.append(glob_escape(name[:i]) + "[" + char_class(others) + "]*")
    out.append(glob_escape(name) + "?*")
    return out


def char_class(chars: str) -> str:
    """`abcdxyz` → `a-dx-z`, with `-` last (a literal there)."""
    dash = "-" in chars
    codes = sorted({ord(c) for c in chars if c != "-"})
    parts, start = [], None
    for i, code in enumerate(codes):
        start = code if start is None else start
        if i + 1 == len(codes) or codes[i + 1] != code + 1:
            parts.append(chr(start) if code == start else f"{chr(start)}-{chr(code)}")
            start = None
    return "".join(parts) + ("-" if dash else "")


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]\\" else c for c in text)


def other_runs(root: Path, temp_dir: Path | None) -> list[str]:
    """Path patterns for every other run's workspace: the run root's siblings named like it, and — in the system temp
    folder — every workspace and session scratch folder but the ones holding this run."""
    out = []
    if root.name.startswith(WORKSPACE_PREFIX) and root.parent != Path(root.anchor):
        out += [
            f"{glob_escape(str(root.parent))}/{WORKSPACE_PREFIX}{p}"
            for p in other_than(root.name[len(WORKSPACE_PREFIX) :])
        ]
    if temp_dir is not None:
        for prefix in (WORKSPACE_PREFIX, SESSION_PREFIX):
            own = next((a for a in (root, *root.parents) if a.parent == temp_dir and a.name.startswith(prefix)), None)
            if own is None:
                out.append(f"{glob_escape(str(temp_dir))}/{prefix}*")
            elif own != root:
                suffix = own.name[len(prefix) :]
                out += [f"{glob_escape(str(temp_dir))}/{prefix}{p}" for p in other_than(suffix)]
    return list(dict.fromkeys(out))


def other_tmps(tmp: Path) -> list[str]:
    """Path patterns for every other run's TMPDIR beside this run's own in /tmp (Workspace.create)."""
    if not tmp.name.startswith(TMP_PREFIX):
        return []
    suffix = tmp.name[len(TMP_PREFIX) :]
    return [f"{glob_escape(str(tmp.parent))}/{TMP_PREFIX}{p}" for p in other_than(suffix)]


def reader_roots(folders: RunFolders) -> list[Path]:
    """Where a granted reader may read: the run's home (cwd inside it) and tmp, and the plugin's files but its
    eval folder."""
    roots = [folders.home, folders.tmp]
    if folders.plugin is not None:
        roots += [p for p in sorted(folders.plugin.iterdir()) if p.name != folders.eval_root.name]
    return roots


def allowed_tools(case_tools: tuple[str, ...], grants: tuple[str, ...], folders: RunFolders) -> list[str]:
    """The child's --allowed-tools list: the case's ungated tools, then the operator's grants. A reader (Read, Grep,
    Glob) is scoped to the run and the plugin, a writer to cwd and tmp, whoever grants it; a pattern is anchored at
    cwd, and one that leaves it is dropped (the options refuse an operator's; a case's is dropped silently)."""
    out: list[str] = []
    for entry in case_tools:
        if is_gated(entry) or tool_of(entry) in NEVER or leaves_workspace(entry):
            continue  # only the operator can grant these; the start-up notice says so
        out += reader_rules(entry, folders) if entry in PATH_READERS else [_anchor(entry, folders.cwd)]
    # A bare Write or Edit grant is scoped to the run's cwd and tmp; Write brings Edit along (as Claude Code's own
    # acceptEdits does), Edit alone does not bring Write.
    writers: tuple[str, ...] = ("Edit", "Write") if "Write" in grants else ("Edit",) if "Edit" in grants else ()
    if "NotebookEdit" in grants:
        writers += ("NotebookEdit",)
    for entry in grants:
        if entry in WRITERS or leaves_workspace(entry):
            continue
        out += reader_rules(entry, folders) if entry in PATH_READERS else [_anchor(entry, folders.cwd)]
    out += [f"{tool}(/{root}/**)" for root in (folders.cwd, folders.tmp) for tool in writers]
    return list(dict.fromkeys(out))


def reader_rules(tool: str, folders: RunFolders) -> list[str]:
    return [rule(tool, f"{root}/**") if root.is_dir() else rule(tool, root) for root in reader_roots(folders)]


def disallowed_tools(granted: tuple[str, ...], removed: tuple[str, ...], folders: RunFolders) -> list[str]:
    """The child's --disallowed-tools: path rules, then every denied tool not granted, then removals."""
    rules: list[str] = []

    def both_tools(root: Path, tools=("Read", "Edit")):
        for tool in tools:
            rules.append(f"{tool}(/{root}/**)")

    both_tools(folders.config)
    both_tools(folders.out)
    if folders.plugin is not None:
        rules.append(f"Edit(/{folders.plugin}/**)")
    rules.append(f"Edit(/{folders.case_dir}/**)")
    for name in (".git", ".eval-artifacts"):
        rules += [f"Edit(/{folders.cwd}/{name})", f"Edit(/{folders.cwd}/{name}/**)"]
    for hidden in folders.hidden():
        for tool in ("Read", "Edit"):
            rules += both(tool, hidden)
    rules.append("Read(//proc/**)")
    rules += elsewhere_rules(folders)
    granted_tools = {tool_of(g) for g in granted}
    if "Write" in granted_tools:
        granted_tools.add("Edit")
    rules += [t for t in DENIED_TOOLS if t not in granted_tools]
    rules += [t for t in removed if t not in rules]
    return list(dict.fromkeys(rules))


def elsewhere_rules(folders: RunFolders) -> list[str]:
    """Deny rules for what lies outside the run that the agent must never read, whatever it is granted: the
    operator's home (less the run, the plugin and the fixture folders, should they lie in it), every other run's
    workspace, the files the credential variables name. (A Read deny rule also refuses writes there.)"""
    rules: list[str] = []
    for path in folders.hidden_in_homes():
        rules += both("Read", path) + both("Edit", path)
    if folders.root is not None:
        for pattern in other_runs(folders.root, folders.temp_dir) + other_tmps(folders.tmp):
            rules += both("Read", pattern)
    for path in folders.credential_files:
        rules.append(rule("Read", path))
    return rules


# Shell commands run inside Claude Code's OS sandbox: no credential of the table (run/credentials.py) reaches them.
SANDBOX_SECRET_VARS = credentials.SANDBOX_WITHHELD
# System places that hold secrets, unreadable from the sandbox whatever else is allowed.
SANDBOX_DENY_READ = ("/run/secrets", "/run/credentials", "/etc/kubernetes/pki", "/var/lib/kubelet/pki")


def shell_granted(grants: tuple[str, ...]) -> bool:
    return any(tool_of(g) in SHELLS for g in grants)


def sandbox_settings(folders: RunFolders, plugins: tuple[Path, ...], secret_vars: Iterable[str] = ()) -> dict:
    """Claude Code's `sandbox` settings for a run whose shell is granted: commands may write in the run's
    working directory and tmp only; may read the run's home and tmp, the plugins and the fixture folders, but not
    the operator's home, the system temp folder (other runs' workspaces), the folder of the run's workspace, the
    eval suite (graders and rubrics), the results folders or credential files; reach no network host; and see
    none of the credentials the child holds (`secret_vars`, besides a fixed list)."""
    path = lambda p: f"/{p}"  # noqa: E731  (an absolute path in settings: //abs)
    around = [folders.temp_dir] if folders.temp_dir is not None else []
    if folders.root is not None and folders.root.parent != Path(folders.root.anchor):
        around.append(folders.root.parent)
    if folders.root is not None and folders.root not in folders.tmp.parents:
        around.append(folders.tmp.parent)  # /tmp, where every other run keeps its TMPDIR too
    around = list(dict.fromkeys(p for p in around if p != Path(p.anchor)))
    secrets = list(dict.fromkeys((*SANDBOX_SECRET_VARS, *sorted(secret_vars))))
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
            "denyRead": list(
                dict.fromkeys(
                    path(p)
                    for p in (
                        *folders.sandbox_hidden_homes(),
                        *around,
                        *folders.hidden(),
                        folders.config,
                        folders.out,
                        *folders.credential_files,
                    )
                )
            )
            + [f"/{p}" for p in SANDBOX_DENY_READ],
            "allowRead": [path(p) for p in (folders.home, folders.tmp, *plugins, *folders.add_dirs)],
        },
        "credentials": {"envVars": [{"name": name, "mode": "deny"} for name in secrets]},
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


# What Claude Code answers every shell command with when its sandbox could not start (bubblewrap cannot make its
# namespaces, socat cannot open the bridge sockets, …).
SANDBOX_FAILED = re.compile(r"Sandbox is (?:required|enabled) but failed to initialize(?:: ([^\n]*?))?\.(?: |$)")


def sandbox_failure(texts: Iterable[str], tmp: Path) -> str | None:
    """Why the run's sandbox did not start, with the fix, when one of `texts` (the errors the shell's calls got,
    Claude Code's stderr) says so; or None. Not the plugin's doing: its shell never ran."""
    for text in texts:
        found = SANDBOX_FAILED.search(text)
        if found:
            cause = found.group(1) or "no reason given"
            return (
                f"harness fault: Claude Code's sandbox failed to start ({cause}), so none of the agent's shell "
                f"commands ran and the run is not graded — check that `bwrap --unshare-all --dev-bind / / true` and "
                f"`socat -V` work for this user and that the run's TMPDIR ({tmp}) can hold its sockets, then run "
                f"again (or drop the Bash grant)"
            )
    return None
