"""Ctrl-C and SIGTERM: both stop the session the way pytest stops on Ctrl-C, and both are told apart at the
end (exit 130 or 143) so the partial results are written and marked."""

from __future__ import annotations

import signal
import threading


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so pytest's interruption path (and ours) runs."""


def install_sigterm() -> None:
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum, frame):
        raise Terminated("terminated (SIGTERM)")

    signal.signal(signal.SIGTERM, handler)


def signal_name(exc: BaseException) -> str | None:
    """SIGTERM, SIGINT, or None when the session stopped itself (pytest's or xdist's `Interrupted`: -x,
    --maxfail, our own stop after rejected credentials; or pytest.exit, with an exit status of its own)."""
    if isinstance(exc, Terminated):
        return "SIGTERM"
    if type(exc).__name__ in ("Interrupted", "Exit"):
        return None
    return "SIGINT"
