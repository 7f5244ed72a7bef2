"""How the values of options are read: numbers, the lists of tools and tags (and a path such a list swallowed),
`--shard K/N`, whether an xdist worker is on this machine — and the error a bad value raises."""

from __future__ import annotations

import argparse
import math
import os

from ..core.errors import UsageError
from ..core.tools import GATED, NEVER, REMOVABLE_TOOLS, tool_of


class OptionError(UsageError):
    """A bad option value; the message is what the user sees (the session exits 1)."""


class ListValues(argparse.Action):
    """`--allow-tools A B` (nargs="+"): extends the list like `extend`, and also keeps each occurrence's values
    apart (`<dest>_given`), so that a path swallowed after the first value can be told from a value meant."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        values = list(values or [])
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), *values])
        given = f"{self.dest}_given"
        setattr(namespace, given, [*(getattr(namespace, given, None) or []), values])


def local_worker(spec: str) -> bool:
    """Whether an xdist --tx spec ("2*popen//python=python3", "ssh=host//…") starts a process on this machine."""
    return "popen" in (part.split("*")[-1] for part in spec.split("//"))


def share(text: str | None, name: str) -> float | None:
    """A rate between 0 and 1 (--min-recall, --max-false-fire)."""
    value = number(text, f"Error: {name} must be a number from 0 to 1")
    if value is not None and not 0 <= value <= 1:
        raise OptionError(f"Error: {name} must be a number from 0 to 1")
    return value


def number(text: str | None, message: str) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise OptionError(message) from None
    if math.isnan(value) or math.isinf(value):
        raise OptionError(message)
    return value


def split_entries(value: str) -> list[str]:
    """`Write,Bash(git commit:*)` → ["Write", "Bash(git commit:*)"]: commas outside parentheses separate
    entries; blanks around them are dropped, and so are empty entries."""
    entries, depth, current = [], 0, ""
    for char in value:
        depth += (char == "(") - (char == ")")
        if char == "," and depth <= 0:
            entries.append(current)
            current = ""
        else:
            current += char
    return [e.strip() for e in [*entries, current] if e.strip()]


def slash_outside_parentheses(entry: str) -> bool:
    depth = 0
    for char in entry:
        depth += (char == "(") - (char == ")")
        if char == "/" and depth <= 0:
            return True
    return False


def is_tool_name(entry: str) -> bool:
    tool = tool_of(entry)
    return tool in GATED or tool in NEVER or tool in REMOVABLE_TOOLS or tool.startswith("mcp__")


def list_option(option, dest: str, name: str, tools: bool) -> tuple[str, ...]:
    """The entries of a list option (`--allow-tools`, `--disallow-tools`, `--tag`), comma-separated values split.

    nargs="+" reads every word up to the next option, so `--allow-tools Write evals/` (say, from addopts) takes
    the test path as a tool. A value after the first of an occurrence that looks like a path (a `/` outside
    parentheses, or an existing file or folder that is not a tool's name) is refused, saying how to write it.
    """
    given = getattr(option, f"{dest}_given", None)
    occurrences = given if given is not None else [[v] for v in getattr(option, dest)]
    entries: list[str] = []
    for values in occurrences:
        for i, value in enumerate(values):
            if i > 0 and (
                slash_outside_parentheses(value) or (os.path.exists(value) and not (tools and is_tool_name(value)))
            ):
                meant = ",".join(values[:i])
                raise OptionError(
                    f'Error: {name}: "{value}" looks like a path that the option swallowed ({name} takes one or '
                    f"more values, up to the next option) — write {name}={meant} (or put paths first)"
                )
            entries += split_entries(value)
    return tuple(entries)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`--shard 2/4` → (2, 4)."""
    if text is None:
        return None
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise OptionError(f"Error: --shard must be K/N with 1 ≤ K ≤ N, such as 1/4 (got '{text}')")
    return int(k), int(n)
