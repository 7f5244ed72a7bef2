"""The GitHub REST calls of a sticky pull request comment: find the comment that starts with a marker (every page
of the pull request's comments), then update it in place, or create it when there is none.

Where to post comes from the environment GitHub Actions sets — and any CI can set the same four variables:
`GITHUB_API_URL` (default https://api.github.com; a GitHub Enterprise server's API otherwise), `GITHUB_REPOSITORY`
(owner/name), `GITHUB_EVENT_PATH` (the event's JSON, which names the pull request) and `GITHUB_TOKEN`. Every refusal
becomes a `GitHubError` whose message says what GitHub answered and the likely cause."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import UsageError

DEFAULT_API_URL = "https://api.github.com"
PAGE_SIZE = 100  # the most GitHub lists in one page
TIMEOUT_SECONDS = 30
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')
FORK_HINT = (
    "a pull request from a fork gets a read-only GITHUB_TOKEN, whatever the workflow's `permissions:` say; on a "
    "pull request from a branch of this repository, give the job `permissions: pull-requests: write` "
    "(see the docs' CI page, 'Pull requests from forks')"
)


class GitHubError(UsageError):
    """The environment does not name a pull request, or GitHub refused a call: the message says why and what
    to do."""


@dataclass(frozen=True)
class PullRequest:
    api_url: str
    repository: str  # owner/name
    number: int
    token: str

    @property
    def comments_url(self) -> str:
        return f"{self.api_url}/repos/{self.repository}/issues/{self.number}/comments"

    def comment_url(self, comment_id: int) -> str:
        return f"{self.api_url}/repos/{self.repository}/issues/comments/{comment_id}"


@dataclass(frozen=True)
class Posted:
    action: str  # created | updated
    url: str  # the comment on GitHub's site (html_url)
    comment_id: int


def _event_number(path: str) -> int | None:
    """The pull request an event is about: `pull_request` and `pull_request_target` events name it, and so does
    an `issue_comment` on a pull request."""
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GitHubError(f"GITHUB_EVENT_PATH={path}: not a readable event file ({e})") from None
    if not isinstance(event, dict):
        return None
    for key in ("pull_request", "issue"):
        number = (event.get(key) or {}).get("number") if isinstance(event.get(key), dict) else None
        if isinstance(number, int) and (key == "pull_request" or "pull_request" in event[key]):
            return number
    return None


def pull_request_from_env(env: Mapping[str, str], number: int | None = None) -> PullRequest:
    """The pull request to comment on, named by the environment (or `number`, from --pr)."""
    token = env.get("GITHUB_TOKEN", "")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not token:
        raise GitHubError(
            "GITHUB_TOKEN is not set: give the step the job's token (env: GITHUB_TOKEN: ${{ github.token }}) and "
            "the job `permissions: pull-requests: write`"
        )
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        raise GitHubError(
            f"GITHUB_REPOSITORY={repository!r}: set it to the repository as owner/name (GitHub Actions sets it)"
        )
    if number is None:
        path = env.get("GITHUB_EVENT_PATH", "")
        number = _event_number(path) if path else None
        if number is None:
            event = env.get("GITHUB_EVENT_NAME") or "unknown"
            raise GitHubError(
                f"this is not a pull request's run (event: {event}): there is no pull request to comment on — run "
                "pr-comment in a job triggered by pull_request, or name one with --pr NUMBER"
            )
    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    return PullRequest(api_url, repository, number, token)


def run_url(env: Mapping[str, str]) -> str | None:
    """The link to this workflow run (its attempt, when it was rerun), or None outside GitHub Actions."""
    server, repository, run_id = (env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if not (server and repository and run_id):
        return None
    url = f"{server.rstrip('/')}/{repository}/actions/runs/{run_id}"
    attempt = env.get("GITHUB_RUN_ATTEMPT", "1")
    return url if attempt in ("", "1") else f"{url}/attempts/{attempt}"


def _refusal(status: int, method: str, url: str, answer: str) -> str:
    try:
        said = json.loads(answer).get("message") or answer
    except (ValueError, AttributeError):
        said = answer
    said = " ".join(str(said).split())[:300]
    what = f"GitHub refused {method} {url} ({status}{': ' + said if said else ''})"
    if status == 401:
        return f"{what} — the token is not valid: give the job's token (GITHUB_TOKEN: ${{{{ github.token }}}})"
    if status == 403 and "rate limit" in said.lower():
        return f"{what} — the API's rate limit: run the step again later"
    if status in (403, 404) and method != "GET":
        return f"{what} — the token may not write comments here: {FORK_HINT}"
    if status in (403, 404):
        return (
            f"{what} — the token cannot read this pull request's comments: check GITHUB_REPOSITORY, the pull "
            "request's number and the token's access"
        )
    return what


Opener = Callable[[urllib.request.Request], Any]


class Client:
    """JSON over HTTPS with the token, as GitHub's REST API asks for it. `opener`: the call that sends a request
    (urlopen with a timeout; a test may pass another)."""

    def __init__(self, pr: PullRequest, opener: Opener | None = None):
        self.pr = pr
        self.host = urllib.parse.urlsplit(pr.api_url).netloc
        self.opener = opener or (lambda request: urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS))

    def call(self, method: str, url: str, body: dict | None = None) -> tuple[Any, str | None]:
        """(the JSON answer, the next page's URL from the Link header)."""
        if urllib.parse.urlsplit(url).netloc != self.host:  # never send the token anywhere but the API
            raise GitHubError(f"GitHub's answer linked to {url}, outside GITHUB_API_URL ({self.pr.api_url})")
        request = urllib.request.Request(
            url,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.pr.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "pytest-plugin-eval",
                **({"Content-Type": "application/json"} if body is not None else {}),
            },
        )
        try:
            with self.opener(request) as response:
                answer = response.read().decode("utf-8", "replace")
                link = response.headers.get("Link") or ""
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace") if e.fp is not None else ""
            raise GitHubError(_refusal(e.code, method, url, text)) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", None) or e
            raise GitHubError(
                f"cannot reach GitHub's API at {self.pr.api_url} ({reason}) — check GITHUB_API_URL and the network"
            ) from None
        try:
            data = json.loads(answer) if answer.strip() else None
        except ValueError:
            raise GitHubError(f"GitHub's answer to {method} {url} is not JSON: {answer[:200]!r}") from None
        found = _NEXT.search(link)
        return data, found.group(1) if found else None

    def find(self, marker: str) -> dict | None:
        """The oldest comment of the pull request whose body starts with `marker` (reading every page)."""
        url: str | None = f"{self.pr.comments_url}?per_page={PAGE_SIZE}"
        while url:
            comments, url = self.call("GET", url)
            for comment in comments if isinstance(comments, list) else ():
                if isinstance(comment, dict) and str(comment.get("body") or "").startswith(marker):
                    return comment
        return None

    def upsert(self, marker: str, body: str) -> Posted:
        """Update the comment that starts with `marker` to `body` (which starts with it too), or create it."""
        existing = self.find(marker)
        if existing is not None:
            comment, _ = self.call("PATCH", self.pr.comment_url(int(existing["id"])), {"body": body})
            action = "updated"
        else:
            comment, _ = self.call("POST", self.pr.comments_url, {"body": body})
            action = "created"
        comment = comment if isinstance(comment, dict) else {}
        return Posted(action, str(comment.get("html_url") or ""), int(comment.get("id") or 0))
