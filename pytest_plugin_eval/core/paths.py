"""Path questions asked all over the harness, answered once."""

from __future__ import annotations

import os


def inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether `path`, symlinks followed, is `root` or lies below it."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


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
