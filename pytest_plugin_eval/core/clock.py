"""Timestamps as the results document writes them."""

from __future__ import annotations

import datetime as _dt


def now_iso() -> str:
    """`2026-11-29T19:14:00.123Z`: UTC, milliseconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
