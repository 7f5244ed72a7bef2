"""A headless Chromium driven through the DevTools protocol over a pipe (`--remote-debugging-pipe`: JSON messages
ended by a NUL byte, read by the browser on fd 3 and written on fd 4), so that a test can press keys in a page and
read what it shows — no websocket library, no driver download."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest


def find_browser() -> str | None:
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def browser_command(profile: Path, offline: bool = False) -> list[str]:
    """A headless browser's command line with a profile of its own; `offline`: every request goes to a proxy that
    is not there, so a page that needs the network shows it."""
    found = find_browser()
    if found is None:
        pytest.skip("no headless browser: install Debian's chromium (apt-get install -y chromium) to run this test")
    command = [
        found,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ]
    if offline:
        command += ["--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
    return command


def _high(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless browser with one page."""

    def __init__(self, command: list[str]):
        # above fd 4, so that placing them at 3 and 4 in the browser always makes a new, inheritable fd
        to_browser, self._write = map(_high, os.pipe())
        self._read, from_browser = map(_high, os.pipe())

        def fds() -> None:  # the protocol's fds in the browser: 3 (it reads), 4 (it writes)
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [*command, "--remote-debugging-pipe", "about:blank"],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._next = 0
        self._replies: dict[int, dict] = {}
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self.session: str | None = None

    def _read_loop(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._read, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    self._lock.notify_all()
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        self._replies[message["id"]] = message
                        self._lock.notify_all()

    def send(self, method: str, params: dict | None = None, session: bool = True, timeout: float = 60) -> dict:
        self._next += 1
        ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._lock:
            while ident not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise RuntimeError(f"the browser did not answer {method}")
                self._lock.wait(left)
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        self.send("Page.enable")
        self.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        self.navigate(url)

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")

    def reload(self) -> None:
        self.evaluate("window.__reloaded = true")
        self.send("Page.reload", {"ignoreCache": True})
        self.wait_for("window.__reloaded === undefined && document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> Any:
        """Poll until `expression` is truthy (a page's own work, such as a save, finishes when it does)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"never true: {expression}")
            time.sleep(0.1)

    def press(self, key: str) -> None:
        """A key pressed and released, as a keyboard sends it (printable keys also type their character)."""
        codes = {"Enter": 13, "Escape": 27, "ArrowRight": 39, "ArrowLeft": 37, "ArrowDown": 40, "ArrowUp": 38}
        down: dict[str, Any] = {"type": "keyDown", "key": key}
        if len(key) == 1:
            down.update(
                text=key, code=f"Key{key.upper()}" if key.isalpha() else "", windowsVirtualKeyCode=ord(key.upper())
            )
        else:
            down.update(code=key, windowsVirtualKeyCode=codes[key])
            if key == "Enter":
                down["text"] = "\r"
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {**down, "type": "keyUp", "text": ""})

    def type(self, text: str) -> None:
        self.send("Input.insertText", {"text": text})

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False, timeout=10)
        except RuntimeError:
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read)
