"""The review page of `plugin-eval review RESULTS`, where a person labels the grader verdicts of a results folder.

The page (report.review, laid out by templates/review.html.j2) is served by the standard library's http.server on
127.0.0.1, on a free port unless `--port` names one; its address is printed, and it is opened in a browser when
there is one. Each label the person gives is sent to the server, which writes the folder's labels.json at once
(results.labels, atomically). Ctrl-C stops the server; nothing else is ever stopped or touched.

The server answers only this page: `GET /` (rendered afresh, with labels.json as it is now), `GET /api/labels`,
and `POST /api/labels` with `{"label": {...}}` or `{"remove": {case, arm, run, grader}}`. A POST must be JSON
(which a page of another site cannot send without asking first) from this page's own address, so that no other
site open in the browser can write labels.

`--export DIR` writes the page as DIR/index.html instead: one self-contained file (transcripts and files inside,
no network). It keeps the labels in the browser and saves them with its "Download labels.json" button; put the
downloaded file in the results folder as labels.json.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..analysis.regrade import StoredResults
from ..core.problems import SpecError
from ..core.run_id import RunId
from ..results.labels import Labels, labels_from_json, labels_path, read_labels, write_labels
from ..results.model import CaseResult, RunResult

HOST = "127.0.0.1"
MAX_BODY = 1_000_000


class Review:
    """A results folder under review: the page made from it, and its labels file."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.stored = StoredResults(folder)
        self.labels_file = labels_path(folder)
        self.lock = threading.Lock()

    def folder_of(self, case: CaseResult, run: RunResult):
        kept = self.stored.runs.get(RunId(case.dir, run.arm, run.index))
        return kept.folder if kept else None

    def page(self, mode: str = "server") -> str:
        from ..report.html import review_html
        from ..report.review import review_page

        labels = read_labels(self.labels_file)
        shown = review_page(self.stored.document, self.folder, labels, self.folder_of, mode)  # type: ignore[arg-type]
        return review_html(shown)

    def change(self, body: Any) -> Labels:
        """Apply one change the page sent; raises SpecError for a label that is not one."""
        if not isinstance(body, dict) or not ({"label", "remove"} & body.keys()):
            raise SpecError("", 'must be {"label": {...}} or {"remove": {case, arm, run, grader}}')
        with self.lock:  # one change at a time: each reads the file as it is and writes it whole
            labels = read_labels(self.labels_file)
            if "label" in body:
                (label,) = labels_from_json({"labels": [body["label"]]}).labels
                labels = labels.put(label)
            else:
                gone = body["remove"] if isinstance(body["remove"], dict) else {}
                labels = labels.remove(gone.get("case"), gone.get("arm"), gone.get("run"), gone.get("grader"))
            write_labels(self.labels_file, labels)
            return labels


def handler_for(review: Review) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "plugin-eval-review"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the terminal shows the address and what is saved, not every request

        def _send(self, status: int, body: str, content_type: str) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def _json(self, status: int, body: dict) -> None:
            self._send(status, json.dumps(body, ensure_ascii=False), "application/json; charset=utf-8")

        def _port(self) -> int:
            address: Any = self.server.server_address  # an AF_INET address: (host, port)
            return int(address[1])

        def _own_host(self) -> bool:
            """The request names this server (not another name that resolves here: DNS rebinding)."""
            port = self._port()
            return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

        def do_GET(self) -> None:
            if not self._own_host():
                return self._json(403, {"error": "unknown host"})
            path = self.path.split("?", 1)[0]
            if path == "/":
                try:
                    return self._send(200, review.page(), "text/html; charset=utf-8")
                except SpecError as e:
                    return self._send(500, f"labels.json cannot be read: {e}", "text/plain; charset=utf-8")
            if path == "/api/labels":
                return self._json(200, read_labels(review.labels_file).to_json())
            return self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/api/labels":
                return self._json(404, {"error": "not found"})
            port = self._port()
            origin = self.headers.get("Origin")
            if not self._own_host() or origin not in (None, f"http://{HOST}:{port}", f"http://localhost:{port}"):
                return self._json(403, {"error": "labels are accepted from the review page only"})
            if not (self.headers.get("Content-Type") or "").startswith("application/json"):
                return self._json(415, {"error": "send JSON"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self._json(413, {"error": "too large"})
            try:
                labels = review.change(json.loads(self.rfile.read(length) or b"null"))
            except ValueError as e:  # SpecError is one too: the label's bad key
                return self._json(400, {"error": str(e)})
            return self._json(200, {"count": len(labels.labels)})

    return Handler


def can_open_browser() -> bool:
    """A graphical browser can be there: not on a Linux machine without a display (where `webbrowser` could start
    a text browser in this very terminal)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def serve(review: Review, port: int, say: Callable[[str], None], open_browser: bool) -> None:
    """Serve the page on HOST:port until Ctrl-C; raises OSError when the port cannot be had."""
    server = ThreadingHTTPServer((HOST, port), handler_for(review))
    url = f"http://{HOST}:{server.server_address[1]}/"
    say(f"Review page: {url}  (labels go to {review.labels_file}; Ctrl-C to stop)")
    if open_browser and can_open_browser():
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def export(review: Review, folder: Path) -> Path:
    """The page as folder/index.html, a static copy that works with no server."""
    from ..results.store import write_atomic

    target = folder / "index.html"
    write_atomic(target, review.page("static"))
    return target
