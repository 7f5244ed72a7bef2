"""Path questions asked all over the harness, answered once."""

from __future__ import annotations

import os


def inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether `path`, symlinks followed, is `root` or lies below it."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def within_suite(path: str | os.PathLike, eval_root: str | os.PathLike) -> bool:
    """Whether `path`, links followed, stays in the suite: the eval dir (wherever it lies) or the plugin holding it.
    A case file reached through a link out of both would let the agent read the suite by another path."""
    return inside(path, eval_root) or inside(path, os.path.dirname(os.path.realpath(eval_root)))


def code_units(text: str) -> bytes:
    """A sort key ordering strings as JavaScript does: by UTF-16 code units, not code points. Undecodable
    file-name bytes (lone surrogates) sort too."""
    return text.encode("utf-16-be", errors="surrogatepass")


def display_path(path: str | os.PathLike, base: str | os.PathLike | None = None) -> str:
    """`path` relative to `base` (default: the working directory) when it is absolute, for messages."""
    base = base or os.getcwd()
    try:
        return os.path.relpath(path, base) if os.path.isabs(path) else str(path)
    except ValueError:
        return str(path)
