"""The one table of the variables that sign a run in to the model, and what each use of it takes from it.

Each entry says how the variable is treated: `child` — Claude Code gets it (it reaches the model with it);
`secret` — its value is redacted from everything a run keeps; `file` — its value is the path of a file that holds
a secret, which the agent's tools may not read. Every entry, whatever its flags, is withheld from the commands the
agent's shell runs (the sandbox's credentials.envVars).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Credential:
    name: str
    child: bool = True  # handed to Claude Code, which reaches the model with it
    secret: bool = True  # the value is a secret: redacted from traces, files and stderr
    file: bool = False  # the value names a file holding a secret: unreadable for the agent's tools


TABLE = (
    Credential("ANTHROPIC_API_KEY"),
    Credential("ANTHROPIC_AUTH_TOKEN"),
    Credential("CLAUDE_CODE_OAUTH_TOKEN"),  # a setup token, or the access token of the operator's login
    Credential("ANTHROPIC_CUSTOM_HEADERS"),
    Credential("ANTHROPIC_AWS_API_KEY"),
    Credential("ANTHROPIC_FOUNDRY_API_KEY"),
    Credential("ANTHROPIC_FOUNDRY_AUTH_TOKEN"),
    Credential("AWS_ACCESS_KEY_ID"),
    Credential("AWS_SECRET_ACCESS_KEY"),
    Credential("AWS_SESSION_TOKEN"),
    Credential("AWS_BEARER_TOKEN_BEDROCK"),
    Credential("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
    Credential("CLOUDSDK_AUTH_ACCESS_TOKEN"),
    Credential("AZURE_CLIENT_SECRET"),
    Credential("AZURE_CLIENT_CERTIFICATE_PASSWORD"),
    Credential("GOOGLE_APPLICATION_CREDENTIALS", secret=False, file=True),
    Credential("AWS_WEB_IDENTITY_TOKEN_FILE", secret=False, file=True),
    Credential("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", secret=False, file=True),
    Credential("AZURE_CLIENT_CERTIFICATE_PATH", secret=False, file=True),
    Credential("AZURE_FEDERATED_TOKEN_FILE", secret=False, file=True),
    # Never handed to a run (they reach no model), withheld from its shell all the same should Claude Code hold one.
    Credential("GITHUB_TOKEN", child=False),
    Credential("GH_TOKEN", child=False),
)

# Secrets Claude Code gets: redacted from what a run keeps.
SECRETS = frozenset(c.name for c in TABLE if c.child and c.secret)
# Paths of credential files: the files are denied to the agent's tools.
FILES = frozenset(c.name for c in TABLE if c.file)
# Withheld from every command the agent's shell runs.
SANDBOX_WITHHELD = tuple(c.name for c in TABLE)
