"""Which access to the model the operator's Claude Code has, and what of it a run gets.

Claude Code signs in, in this order: a cloud provider (CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY), an auth token
(ANTHROPIC_AUTH_TOKEN), an API key (ANTHROPIC_API_KEY, or what the settings' `apiKeyHelper` prints), a setup token
(CLAUDE_CODE_OAUTH_TOKEN, from `claude setup-token`), and last its login (`claude /login`: on Linux the
`claudeAiOauth` entry of `$CLAUDE_CONFIG_DIR/.credentials.json`, else `~/.claude/.credentials.json`; on macOS the
keychain item "Claude Code-credentials").

A run's throwaway config holds nothing of the operator's. What signs it in is handed over as a variable of the
credential table (run/credentials.py: redacted, withheld from the agent's shell): a login becomes its *access token*
in CLAUDE_CODE_OAUTH_TOKEN. The refresh token never leaves the operator's file — a run cannot rotate it (rotating it
in a copy that is then thrown away would sign the operator out), and this module never writes the operator's file.
An expired login is said before the first run, with its fix (run `claude` once: Claude Code refreshes its own login).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

KEYCHAIN_SERVICE = "Claude Code-credentials"
HELPER_TIMEOUT = 30
PROVIDERS = (
    ("CLAUDE_CODE_USE_BEDROCK", "bedrock", "Amazon Bedrock"),
    ("CLAUDE_CODE_USE_VERTEX", "vertex", "Google Vertex AI"),
    ("CLAUDE_CODE_USE_FOUNDRY", "foundry", "Microsoft Foundry"),
)
# Ways that reach the Messages API directly: the judges ask it themselves (prompt caching, parallel votes).
DIRECT = ("api-key", "auth-token", "api-key-helper")
# Ways that spend a Claude plan rather than an API bill.
PLAN = ("login", "setup-token")

NO_ACCESS_FIX = (
    "sign Claude Code in with `claude` then `/login` (a Pro or Max plan, or a Console account); in CI, "
    "`claude setup-token` and the token as CLAUDE_CODE_OAUTH_TOKEN; or an API key as ANTHROPIC_API_KEY; or a cloud "
    "provider (CLAUDE_CODE_USE_BEDROCK=1, CLAUDE_CODE_USE_VERTEX=1 or CLAUDE_CODE_USE_FOUNDRY=1 with its credentials)"
)


# What to do when a credential that worked is refused in the middle of a session, by the access's kind.
REFUSED_FIX = {
    "login": "a Claude Code login's access token lasts a few hours and a session never refreshes it (a refresh "
    "would rotate your login's refresh token inside a throwaway copy): run `claude` once (it refreshes its own "
    "login) or `claude /login`, then run again",
    "setup-token": "the setup token was revoked or has expired: make a fresh one with `claude setup-token`, set it "
    "as CLAUDE_CODE_OAUTH_TOKEN, then run again",
    "api-key-helper": "the key your apiKeyHelper printed at the start was refused: check the helper, then run again",
}
REFUSED_FIX_OTHERWISE = "check the variables that sign it in (a key, a token, a cloud provider's), then run again"


def refused_mid_session(kind: str | None, answered: int) -> str:
    """What the session says when a credential that signed `answered` runs in is refused by a later one."""
    fix = REFUSED_FIX.get(kind or "", REFUSED_FIX_OTHERWISE)
    return (
        f"the credentials were rejected after {answered} run(s) had been answered — the sign-in may have expired or "
        f"been revoked during the session, and the runs after it are refused the same way until it is fixed (each "
        f"is a run error; the session is partial). Fix: {fix}"
    )


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


@dataclass(frozen=True)
class Access:
    """How the session reaches the model: `kind` (api-key, auth-token, api-key-helper, setup-token, login, bedrock,
    vertex, foundry, scripted, none), said as `label`; `env`, what runs and judges get on top of the operator's
    environment (a login's access token, an apiKeyHelper's key); `notes`, what the operator should know (an expired
    login); `fix`, what to do when there is no access."""

    kind: str
    label: str
    env: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    fix: str | None = None
    source: str | None = None  # where it was found (the login file), for the operator
    checked: str | None = None  # what `claude auth status` said of it in a run's isolated config (verify)

    @property
    def direct(self) -> bool:
        """Whether judges can ask the Messages API themselves (else they ask through Claude Code)."""
        return self.kind in DIRECT or self.kind == "scripted"

    @property
    def plan(self) -> bool:
        """Whether the runs spend a Claude plan's usage (costs are then list-price estimates)."""
        return self.kind in PLAN

    @property
    def judges(self) -> str:
        if self.kind in ("none", "scripted"):
            return self.label
        return f"{self.label}, asked directly" if self.direct else f"{self.label}, through Claude Code"

    def summary(self) -> str:
        """One line: "Claude Code login (max plan) for runs and judges (through Claude Code)"."""
        if self.kind == "none":
            return f"no access to a model: {self.fix}"
        how = "directly" if self.direct else "through Claude Code"
        return f"{self.label} for runs and judges (judges ask {how})"

    def environ(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The operator's environment with what signs in added (the access token of a login)."""
        return {**(dict(os.environ) if base is None else base), **self.env}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "runs": self.kind,
            "judges": "direct" if self.direct else "claude-code",
            "label": self.label,
            "plan": self.plan,
        }
        if self.notes:
            out["notes"] = list(self.notes)
        if self.fix:
            out["fix"] = self.fix
        if self.checked:
            out["checked"] = self.checked
        return out


SCRIPTED = Access("scripted", "the scripted endpoint (--scripted)")


def config_dir(environ: dict[str, str]) -> Path:
    """The operator's Claude Code config folder."""
    explicit = environ.get("CLAUDE_CONFIG_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".claude"


def read_login(environ: dict[str, str]) -> tuple[dict | None, str | None]:
    """The operator's `claudeAiOauth` login and where it was found, or (None, None)."""
    path = config_dir(environ) / ".credentials.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        found, where = data.get("claudeAiOauth"), str(path)
    except (OSError, ValueError, AttributeError):
        found, where = None, None
    if found is None and sys.platform == "darwin":  # untested here: what Claude Code reads on macOS
        found, where = keychain_login(environ), f"the macOS keychain ({KEYCHAIN_SERVICE})"
    if isinstance(found, dict) and isinstance(found.get("accessToken"), str) and found["accessToken"]:
        return found, where
    return None, None


def keychain_login(environ: dict[str, str]) -> dict | None:
    user = environ.get("USER") or ""
    try:
        done = subprocess.run(
            ["security", "find-generic-password", "-a", user, "-w", "-s", KEYCHAIN_SERVICE],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        found = json.loads(done.stdout).get("claudeAiOauth") if done.returncode == 0 else None
    except (OSError, ValueError, AttributeError, subprocess.TimeoutExpired):
        return None
    return found if isinstance(found, dict) else None


def api_key_helper(environ: dict[str, str]) -> str | None:
    """The `apiKeyHelper` command of the operator's user settings, if any."""
    try:
        settings = json.loads((config_dir(environ) / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    helper = settings.get("apiKeyHelper") if isinstance(settings, dict) else None
    return helper if isinstance(helper, str) and helper.strip() else None


def run_helper(command: str, environ: dict[str, str]) -> tuple[str | None, str | None]:
    """The key an apiKeyHelper prints (run once, in the parent, as the operator), or why there is none."""
    try:
        done = subprocess.run(
            command, shell=True, capture_output=True, text=True, timeout=HELPER_TIMEOUT, env=environ, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"apiKeyHelper `{command}` did not run: {e}"
    key = done.stdout.strip()
    if done.returncode != 0 or not key:
        return None, f"apiKeyHelper `{command}` printed no key (exit {done.returncode})"
    return key, None


def detect(environ: dict[str, str] | None = None, now_ms: int | None = None) -> Access:
    """The access Claude Code would use with `environ` (the operator's environment), in its own order."""
    environ = dict(os.environ) if environ is None else environ
    for flag, kind, label in PROVIDERS:
        if truthy(environ.get(flag)):
            return Access(kind, label)
    if environ.get("ANTHROPIC_AUTH_TOKEN"):
        return Access("auth-token", "auth token (ANTHROPIC_AUTH_TOKEN)")
    if environ.get("ANTHROPIC_API_KEY"):
        return Access("api-key", "API key (ANTHROPIC_API_KEY)")
    helper = api_key_helper(environ)
    if helper:
        key, problem = run_helper(helper, environ)
        if key is not None:
            return Access("api-key-helper", "API key from apiKeyHelper", env={"ANTHROPIC_API_KEY": key})
        return Access("none", "no access", fix=f"{problem}: fix the helper in your Claude Code settings")
    if environ.get("CLAUDE_CODE_OAUTH_TOKEN"):
        return Access("setup-token", "setup token (CLAUDE_CODE_OAUTH_TOKEN)")
    login, where = read_login(environ)
    if login is not None:
        plan = login.get("subscriptionType")
        label = f"Claude Code login ({plan} plan)" if isinstance(plan, str) and plan else "Claude Code login"
        notes: tuple[str, ...] = ()
        expires = login.get("expiresAt")
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        if isinstance(expires, (int, float)) and expires <= now_ms:
            notes = (
                "your Claude Code login has expired and this session does not refresh it (a refresh would rotate "
                "your login's refresh token): if the runs are refused, run `claude` once (it refreshes its own "
                "login) or `claude /login`, then run again",
            )
        return Access("login", label, env={"CLAUDE_CODE_OAUTH_TOKEN": login["accessToken"]}, notes=notes, source=where)
    return Access("none", "no access", fix=NO_ACCESS_FIX)


def verify(access: Access, claude: Path, environ: dict[str, str] | None = None) -> Access:
    """`access` with what Claude Code's own `auth status` says of it in an isolated config made as a run's is (no
    model call, nothing spent): whether a run will be signed in, and how. A problem becomes a note with its fix."""
    from .workspace import operator_env  # the run's own allow-list of the operator's variables

    with tempfile.TemporaryDirectory(prefix="pe-auth-") as root:
        home, config = Path(root, "home"), Path(root, "config")
        home.mkdir()
        config.mkdir()
        env = {**operator_env(access.environ(environ)), "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)}
        env["DISABLE_AUTOUPDATER"] = env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        try:
            done = subprocess.run(
                [str(claude), "auth", "status"], capture_output=True, text=True, env=env, cwd=root, timeout=30
            )
            status = json.loads(done.stdout)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return access  # an older Claude Code without `auth status`: the first run tells
    if not isinstance(status, dict):
        return access
    if status.get("loggedIn"):
        how = status.get("authMethod") or "signed in"
        provider = status.get("apiProvider")
        said = f"{how}, {provider}" if provider and provider != "firstParty" else str(how)
        return replace(access, checked=f"`claude auth status` in a run's config: signed in ({said})")
    note = f"`claude auth status` in a run's config says it is not signed in: {NO_ACCESS_FIX}"
    return replace(access, checked="`claude auth status` in a run's config: not signed in", notes=(*access.notes, note))
