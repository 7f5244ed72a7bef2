"""A local stand-in for GitHub's REST API of issue comments, on 127.0.0.1 in a thread: list (paginated, with the
Link header GitHub sends), create and update, each checking the token; `refuse_writes` answers a write with the
403 a fork's read-only token gets. For the tests of `plugin-eval pr-comment`."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghs_test_token"
REPOSITORY = "octo/plugins"


@dataclass
class FakeGitHub:
    url: str = ""
    comments: list[dict] = field(default_factory=list)  # of every pull request: id, pr, body, user
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path with query)
    refuse_writes: bool = False
    next_id: int = 1000

    def add(self, pr: int, body: str, user: str = "someone") -> dict:
        self.next_id += 1
        comment = {"id": self.next_id, "pr": pr, "body": body, "user": {"login": user}}
        self.comments.append(comment)
        return comment

    def on(self, pr: int) -> list[dict]:
        return [c for c in self.comments if c["pr"] == pr]

    def shown(self, comment: dict) -> dict:
        html = f"https://github.example/{REPOSITORY}/pull/{comment['pr']}#issuecomment-{comment['id']}"
        return {"id": comment["id"], "body": comment["body"], "user": comment["user"], "html_url": html}


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    list_path = re.compile(rf"^/repos/{REPOSITORY}/issues/(\d+)/comments$")
    one_path = re.compile(rf"^/repos/{REPOSITORY}/issues/comments/(\d+)$")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def answer(self, status: int, data, headers: dict | None = None) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def authorised(self) -> bool:
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self.answer(401, {"message": "Bad credentials"})
                return False
            return True

        def body(self) -> dict:
            return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")

        def refused(self) -> bool:
            if fake.refuse_writes:
                self.answer(403, {"message": "Resource not accessible by integration", "status": "403"})
            return fake.refuse_writes

        def do_GET(self) -> None:
            fake.requests.append(("GET", self.path))
            if not self.authorised():
                return
            parts = urlsplit(self.path)
            found = list_path.match(parts.path)
            if not found:
                return self.answer(404, {"message": "Not Found"})
            query = parse_qs(parts.query)
            per_page, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
            comments = fake.on(int(found.group(1)))
            shown = comments[(page - 1) * per_page : page * per_page]
            headers = {}
            if page * per_page < len(comments):
                headers["Link"] = f'<{fake.url}{parts.path}?per_page={per_page}&page={page + 1}>; rel="next"'
            self.answer(200, [fake.shown(c) for c in shown], headers)

        def do_POST(self) -> None:
            fake.requests.append(("POST", self.path))
            found = list_path.match(self.path)
            if not self.authorised() or self.refused():
                return
            if not found:
                return self.answer(404, {"message": "Not Found"})
            comment = fake.add(int(found.group(1)), self.body()["body"], user="github-actions[bot]")
            self.answer(201, fake.shown(comment))

        def do_PATCH(self) -> None:
            fake.requests.append(("PATCH", self.path))
            found = one_path.match(self.path)
            if not self.authorised() or self.refused():
                return
            comment = next((c for c in fake.comments if found and c["id"] == int(found.group(1))), None)
            if comment is None:
                return self.answer(404, {"message": "Not Found"})
            comment["body"] = self.body()["body"]
            self.answer(200, fake.shown(comment))

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def environment(fake: FakeGitHub, tmp_path, pr: int = 5, event: str = "pull_request") -> dict[str, str]:
    """The variables a GitHub Actions job of a pull request's event sets, pointed at the fake."""
    event_file = tmp_path / "event.json"
    payload = {"pull_request": {"number": pr}} if event.startswith("pull_request") else {"ref": "refs/heads/main"}
    event_file.write_text(json.dumps(payload), encoding="utf-8")
    return {
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "77",
    }
