"""One run's throwaway folders and environment.

Each run gets a fresh root holding `home/` (the agent's HOME), `home/cwd/` (its working directory, a fresh git
repository), `config/` (CLAUDE_CONFIG_DIR), `tmp` (TMPDIR) and `out/` (the trace). Nothing of the
operator's environment reaches the agent except an allow-list: what it needs to run and to reach the model.

`tmp` is a link to a private folder of its own in /tmp (`/tmp/pe-XXXXXXXX`, 0700) wherever the root is: Claude
Code's sandbox puts its bridge sockets in TMPDIR (`claude-socks-<16 hex>.sock`), and a unix socket path holds
at most 107 bytes — a root under the operator's TMPDIR and the session's scratch folder is already longer than
the rest allows. (Where /tmp cannot be written, `tmp` is a folder in the root.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..core.paths import code_units
from . import credentials
from .agent import AgentStartError
from .artefacts import CHANGES, STDERR, TRACE
from .output import Changes, tree_files
from .permissions import SHORT_TMP, TMP_PREFIX, WORKSPACE_PREFIX

# Operator variables passed through by exact name: what the child needs to run.
PASS_NAMES = frozenset(
    {
        "PATH",
        "SHELL",
        "TERM",
        "LANG",
        "LANGUAGE",
        "TZ",
        "USER",
        "LOGNAME",
        "CI",
        "FORCE_COLOR",
        "DO_NOT_TRACK",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "CURL_CA_BUNDLE",
        "REQUESTS_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "GIT_SSL_CAINFO",
        "MAX_THINKING_TOKENS",
        "BASH_DEFAULT_TIMEOUT_MS",
        "MCP_TIMEOUT",
        "API_TIMEOUT_MS",
        "ENABLE_TOOL_SEARCH",
        "USE_BUILTIN_RIPGREP",
        "IS_DEMO",
        "IS_SANDBOX",
        "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS",
        "CLAUDE_STREAM_IDLE_TIMEOUT_MS",
    }
)
# What each way of reaching the model needs, named one by one: a provider prefix (`AWS_*`, `AZURE_*`, …) would also
# hand over whatever else of that provider the operator's shell holds.
MODEL_ACCESS = {
    "anthropic": (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
        "ANTHROPIC_BETAS",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_DEFAULT_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL",
    ),
    "bedrock": (
        "ANTHROPIC_BEDROCK_BASE_URL",
        "ANTHROPIC_BEDROCK_MANTLE_BASE_URL",
        "ANTHROPIC_BEDROCK_REGION_PREFIX",
        "ANTHROPIC_BEDROCK_SERVICE_TIER",
        "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_PROFILE",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_ROLE_ARN",
        "AWS_ROLE_SESSION_NAME",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "AWS_EC2_METADATA_DISABLED",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_BEDROCK",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "AWS_ENDPOINT_URL_STS",
        "AWS_STS_REGIONAL_ENDPOINTS",
        "AWS_CA_BUNDLE",
    ),
    "claude-platform-on-aws": ("ANTHROPIC_AWS_API_KEY", "ANTHROPIC_AWS_BASE_URL", "ANTHROPIC_AWS_WORKSPACE_ID"),
    "vertex": (
        "ANTHROPIC_VERTEX_BASE_URL",
        "ANTHROPIC_VERTEX_PROJECT_ID",
        "CLOUD_ML_REGION",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "GOOGLE_CLOUD_QUOTA_PROJECT",
        "CLOUDSDK_CORE_PROJECT",
        "CLOUDSDK_AUTH_ACCESS_TOKEN",
    ),
    "claude-platform-on-google-cloud": (
        "ANTHROPIC_GOOGLE_CLOUD_BASE_URL",
        "ANTHROPIC_GOOGLE_CLOUD_LOCATION",
        "ANTHROPIC_GOOGLE_CLOUD_PROJECT",
        "ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID",
    ),
    "foundry": (
        "ANTHROPIC_FOUNDRY_API_KEY",
        "ANTHROPIC_FOUNDRY_AUTH_TOKEN",
        "ANTHROPIC_FOUNDRY_BASE_URL",
        "ANTHROPIC_FOUNDRY_RESOURCE",
        "AZURE_CLIENT_ID",
        "AZURE_TENANT_ID",
        "AZURE_CLIENT_SECRET",
        "AZURE_CLIENT_CERTIFICATE_PATH",
        "AZURE_CLIENT_CERTIFICATE_PASSWORD",
        "AZURE_FEDERATED_TOKEN_FILE",
        "AZURE_AUTHORITY_HOST",
    ),
}
MODEL_NAMES = frozenset(name for names in MODEL_ACCESS.values() for name in names)
# Credentials (their values are secrets) and the credential files named by path: one table, run/credentials.py.
CREDENTIALS = credentials.SECRETS
CREDENTIAL_FILES = credentials.FILES
# Operator variables passed through by prefix: Claude Code's own switches, locale, model aliases, EVAL_*.
PASS_PREFIXES = ("CLAUDE_CODE_", "DISABLE_", "ANTHROPIC_DEFAULT_", "VERTEX_REGION_", "LC_")
EVAL_VAR = re.compile(r"^EVAL_[A-Z0-9_]*$")
# ...except Claude Code variables that describe the operator's own session, or point at its files.
DROP = re.compile(
    r"^CLAUDE_CODE_(?:SESSION_|HOST_|SDK_|SUBSCRIPTION_TYPE$|EVAL_ALLOW_FLAG_OVERRIDES$|.*_(?:DIR|PATH|FILE)$)"
)
# A name that looks like it holds a secret: passed by a prefix only when named above (CLAUDE_CODE_OAUTH_TOKEN).
SECRET_SHAPED = re.compile(r"(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIALS?|COOKIE|HEADERS)(?:_|$)")
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
# Provider config files live in HOME: point them at the run's home, never at the operator's.
HOME_FILES = {
    "AWS_CONFIG_FILE": ".aws/config",
    "AWS_SHARED_CREDENTIALS_FILE": ".aws/credentials",
    "CLOUDSDK_CONFIG": ".config/gcloud",
    "AZURE_CONFIG_DIR": ".azure",
}
# Git must not run hooks, pagers, editors or credential helpers from anywhere.
GIT_HARDENING = (
    ("core.fsmonitor", ""),
    ("core.hooksPath", "/dev/null"),
    ("core.askPass", ""),
    ("protocol.ext.allow", "never"),
    ("submodule.recurse", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("credential.helper", ""),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
SCAFFOLD_TIMEOUT = 600


class ScaffoldFailed(AgentStartError):
    """The case's scaffold_script failed: the run has nothing to work on."""


# Before the run, every file's size and mtime_ns — and, for small files, a hash of its content. File timestamps
# are coarse (Linux stamps writes with the clock tick, not the nanosecond), so a scaffold file the agent rewrites
# within the same tick at the same size would look untouched by stat alone; hashing small files decides those by
# content, and the large ones (rarely edited in place, costly to read twice) keep to size and mtime.
HASHED_FILE_BYTES = 1024 * 1024
HASHED_TOTAL_BYTES = 64 * 1024 * 1024  # past this, a huge scaffold is compared by size and mtime only


@dataclass(frozen=True)
class FileState:
    size: int
    mtime_ns: int
    digest: str | None = None  # content hash (small files); a symlink's target for links


Snapshot = dict[str, FileState]


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.blake2b(handle.read(), digest_size=16).hexdigest()


GITCONFIG = "[user]\n\tname = Plugin Eval\n\temail = eval@example.invalid\n[init]\n\tdefaultBranch = main\n"


def passed(name: str) -> bool:
    """Whether an operator variable reaches the child."""
    if name in PASS_NAMES or name in MODEL_NAMES or EVAL_VAR.match(name):
        return True
    return name.startswith(PASS_PREFIXES) and not DROP.match(name) and not SECRET_SHAPED.search(name)


def operator_env(environ: dict[str, str]) -> dict[str, str]:
    """The part of the operator's environment the child gets (Claude Code itself; what it starts gets less)."""
    return {name: value for name, value in environ.items() if passed(name) and name not in HOME_FILES}


def is_credential(name: str) -> bool:
    """A variable whose value is a secret (EVAL_* values are the case's, meant for the agent; the credential files'
    variables hold paths)."""
    if name in CREDENTIALS:
        return True
    return not EVAL_VAR.match(name) and name not in CREDENTIAL_FILES and SECRET_SHAPED.search(name) is not None


def credential_names(env: dict[str, str]) -> list[str]:
    """The variables of `env` that no process the child starts may see: credentials, and the paths of credential
    files."""
    return sorted(name for name in env if is_credential(name) or name in CREDENTIAL_FILES)


def credential_files(env: dict[str, str]) -> list[Path]:
    """The credential files `env` names (absolute paths only)."""
    return [Path(env[name]) for name in sorted(CREDENTIAL_FILES & env.keys()) if os.path.isabs(env[name])]


def secret_values(env: dict[str, str]) -> dict[str, str]:
    """Secret value → the name it is redacted as: every credential of `env`, and the password of a proxy URL."""
    out: dict[str, str] = {}
    for name in sorted(env):
        value = env[name]
        if is_credential(name):
            out.setdefault(value, name)
        elif name in PROXY_VARS:
            try:
                password = urlsplit(value).password
            except ValueError:
                password = None
            if password:
                out.setdefault(unquote(password), f"{name} password")
                out.setdefault(password, f"{name} password")
    return out


def git_env() -> dict[str, str]:
    env = {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_PROXY_COMMAND": "",
        "GIT_CONFIG_COUNT": str(len(GIT_HARDENING)),
    }
    for i, (key, value) in enumerate(GIT_HARDENING):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cwd(self) -> Path:
        # Inside home, as in the reference tool (graders that match absolute paths see the same shape).
        return self.home / "cwd"

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def tmp(self) -> Path:
        link = self.root / "tmp"
        return Path(os.readlink(link)) if link.is_symlink() else link

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def trace(self) -> Path:
        return self.out / TRACE

    @property
    def stderr(self) -> Path:
        return self.out / STDERR

    @property
    def history(self) -> Path:
        """A copy of the case's history_file, resumed by the child (the case's own file stays untouched)."""
        return self.tmp / "history.jsonl"

    @classmethod
    def create(cls, base: Path | None = None) -> Workspace:
        root = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX, dir=base))
        ws = cls(root)
        short = short_tmp()
        if short is not None:
            (root / "tmp").symlink_to(short, target_is_directory=True)
        for folder in (ws.home, ws.cwd, ws.config, ws.out):  # home before cwd
            folder.mkdir()
        ws.tmp.mkdir(exist_ok=True)
        (ws.home / ".gitconfig").write_text(GITCONFIG)
        ws.write_settings()
        (ws.config / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
        subprocess.run(
            ["git", "init", "-q", str(ws.cwd)],
            env=ws.harness_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return ws

    def write_settings(self, **extra) -> None:
        """The run's own Claude Code settings (the only settings source it reads)."""
        settings = {"env": {"DISABLE_AUTOUPDATER": "1"}, **extra}
        (self.config / "settings.json").write_text(json.dumps(settings, indent=1))

    def base_env(self) -> dict[str, str]:
        """What the harness sets for every process of the run, whatever the operator's environment."""
        home, tmp = str(self.home), str(self.tmp)
        env = {
            "HOME": home,
            "USERPROFILE": home,
            "TMPDIR": tmp,
            "TMP": tmp,
            "TEMP": tmp,
            "XDG_CONFIG_HOME": f"{home}/.config",
            "XDG_DATA_HOME": f"{home}/.local/share",
            "XDG_CACHE_HOME": f"{home}/.cache",
            "XDG_STATE_HOME": f"{home}/.local/state",
        }
        env.update({name: str(self.home / rel) for name, rel in HOME_FILES.items()})
        env.update(git_env())
        return env

    def harness_env(self) -> dict[str, str]:
        """What the harness's own helpers in the run get (git init, the scaffold): the run's folders and
        the operator's PATH, nothing else."""
        return {**self.base_env(), "PATH": os.environ.get("PATH", "")}

    def agent_env(self, environ: dict[str, str], case_env: dict[str, str]) -> dict[str, str]:
        """The child's whole environment: the allow-listed operator variables, the case's EVAL_* values
        (which win over the shell's), and the run's own folders and switches."""
        env = operator_env(environ)
        env.update(case_env)
        env.update(self.base_env())
        env.update(
            {
                "CLAUDE_CONFIG_DIR": str(self.config),
                "CLAUDE_CODE_MANAGED_SETTINGS_PATH": str(self.config),
                "CLAUDE_CODE_TMPDIR": str(self.tmp),
                "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "ENABLE_CLAUDEAI_MCP_SERVERS": "false",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_EVAL_CONFINED": "1",
                "CLAUDE_CODE_ENTRYPOINT": "sdk-cli",
            }
        )
        return env

    def run_scaffold(self, script: Path) -> None:
        """Run the scaffold script in the workspace, as the operator, with a minimal environment (no EVAL_*)."""
        env = {
            **self.harness_env(),
            "PWD": str(self.cwd),
            "TERM": "dumb",
            "NODE_ENV": "production",
            "USER_TYPE": "external",
        }
        try:
            done = subprocess.run(
                [str(script)],
                cwd=self.cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=SCAFFOLD_TIMEOUT,
                check=False,
            )
        except OSError as e:
            raise ScaffoldFailed(
                f"scaffold could not start: {e} (is {script.name} executable, with a #! line?)"
            ) from None
        except subprocess.TimeoutExpired:
            raise ScaffoldFailed(f"scaffold timed out after {SCAFFOLD_TIMEOUT}s") from None
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", errors="replace")[:500]
            raise ScaffoldFailed(f"scaffold failed (exit {done.returncode}): {stderr}")

    def files(self) -> set[str]:
        """Every file under cwd (relative paths, `.git/` excluded)."""
        return tree_files(self.cwd)

    def created_files(self, before: Iterable[str]) -> list[str]:
        """Files present now that were not there before the run, in code-unit order."""
        return sorted(self.files() - set(before), key=code_units)

    @property
    def changes_file(self) -> Path:
        """What the run changed (changes.json), recorded beside its trace and kept with it."""
        return self.out / CHANGES

    def snapshot(self) -> Snapshot:
        """Every file under cwd (as `files()`) with what tells a later change apart (see FileState)."""
        out: Snapshot = {}
        budget = HASHED_TOTAL_BYTES
        for rel in sorted(self.files(), key=code_units):
            path = os.path.join(self.cwd, rel)
            try:
                st = os.lstat(path)
                if os.path.islink(path):
                    out[rel] = FileState(st.st_size, st.st_mtime_ns, "link:" + os.readlink(path))
                elif stat.S_ISREG(st.st_mode) and st.st_size <= min(HASHED_FILE_BYTES, budget):  # never a FIFO
                    out[rel] = FileState(st.st_size, st.st_mtime_ns, _digest(path))
                    budget -= st.st_size
                else:
                    out[rel] = FileState(st.st_size, st.st_mtime_ns)
            except OSError:
                continue  # vanished or unreadable: it was not a file the run could build on
        return out

    def changes(self, before: Snapshot) -> Changes:
        """What the run created, modified and deleted since `before`, each in code-unit order."""
        now = self.files()
        modified = [rel for rel in now & before.keys() if self._changed(rel, before[rel])]
        return Changes(
            created=tuple(sorted(now - before.keys(), key=code_units)),
            modified=tuple(sorted(modified, key=code_units)),
            deleted=tuple(sorted(before.keys() - now, key=code_units)),
        )

    def _changed(self, rel: str, was: FileState) -> bool:
        path = os.path.join(self.cwd, rel)
        try:
            st = os.lstat(path)
            if os.path.islink(path) or (was.digest or "").startswith("link:"):
                return not os.path.islink(path) or was.digest != "link:" + os.readlink(path)
            if st.st_size != was.size:
                return True
            if was.digest is not None:
                return _digest(path) != was.digest  # same size: the content decides, whatever the clock says
            return st.st_mtime_ns != was.mtime_ns
        except OSError:
            return True

    def record_changes(self, before: Snapshot) -> Changes:
        """The run's changes, also written to changes.json beside the trace (RunFolder.keep keeps it)."""
        changes = self.changes(before)
        self.changes_file.write_text(json.dumps(changes.to_json()))
        return changes

    @property
    def run_file(self) -> Path:
        """Which run the workspace is for (`run_label`), for a controller that must clean up after a dead worker.
        In out/, which the agent cannot read: it must not learn its arm."""
        return self.out / "run"

    @classmethod
    def of_run(cls, base: Path, label: str) -> list[Workspace]:
        """The workspaces in `base` made for the run `label`."""
        found = []
        for root in base.glob(f"{WORKSPACE_PREFIX}*"):
            try:
                if (cls(root).run_file).read_text(encoding="utf-8") == label:
                    found.append(cls(root))
            except OSError:
                continue
        return found

    def remove(self) -> None:
        tmp = self.tmp
        if tmp.parent == SHORT_TMP and tmp.name.startswith(TMP_PREFIX):  # the link's target, never another folder
            remove_tree(tmp)
        remove_tree(self.root)


def run_label(case_dir: Path, arm: str, index: int) -> str:
    return f"{case_dir.resolve()}\n{arm}\n{index}\n"


def short_tmp() -> Path | None:
    """A new private folder in /tmp for a run's TMPDIR, or None where /tmp cannot be written."""
    try:
        return Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=SHORT_TMP))
    except OSError:
        return None


def remove_tree(path: Path) -> None:
    # The agent may have left read-only files or folders behind.
    for folder, subdirs, _files in os.walk(path):
        for name in subdirs:
            try:
                os.chmod(os.path.join(folder, name), 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)
