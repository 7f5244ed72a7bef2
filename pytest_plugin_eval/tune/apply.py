"""Writing a new description into SKILL.md: the frontmatter's `description:` value only, every other byte kept.

Claude Code's skill description field holds at most 1024 characters (its plugin schema says
`description: max(1024)` for skills); a longer one is refused here before anything is written.
"""

from __future__ import annotations

import json
import re

from ..core.errors import UsageError

MAX_DESCRIPTION = 1024
_KEY = re.compile(r"^description[ \t]*:(.*)$")
_PLAIN = re.compile(r"^[A-Za-z0-9(][^\n#:]*$")  # safe as a YAML plain scalar (no ': ', ' #', leading indicator)


class ApplyError(UsageError, ValueError):
    """A SKILL.md (or description) that cannot be rewritten safely; the message says why and what to do."""


def check_description(text: str) -> str:
    """The description as Claude Code accepts it: one or more words, at most MAX_DESCRIPTION characters."""
    text = text.strip()
    if not text:
        raise ApplyError("the description is empty")
    if len(text) > MAX_DESCRIPTION:
        raise ApplyError(f"the description has {len(text)} characters; Claude Code accepts at most {MAX_DESCRIPTION}")
    if "\n" in text:
        text = " ".join(text.split())
    return text


def yaml_value(text: str) -> str:
    """The description as a one-line YAML scalar: plain when that reads back the same, else double-quoted."""
    if _PLAIN.match(text) and text == text.strip() and not text.endswith(":"):
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def rewrite_description(skill_md: str, description: str, file: str = "SKILL.md") -> str:
    """`skill_md` with its frontmatter's description replaced by `description`: the key's lines (its value,
    continued or a block scalar) become one line; everything else, comments and line endings included, is kept."""
    description = check_description(description)
    lines = skill_md.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise ApplyError(f"{file} has no frontmatter (a first line `---`): add one with a description")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") in ("---", "...")), None)
    if end is None:
        raise ApplyError(f"{file}'s frontmatter is never closed (no second `---` line)")
    start = next((i for i in range(1, end) if _KEY.match(lines[i].rstrip("\r\n"))), None)
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    new_line = f"description: {yaml_value(description)}{newline}"
    if start is None:
        return "".join(lines[:end] + [new_line] + lines[end:])
    stop = start + 1
    while stop < end and (not lines[stop].strip() or lines[stop][0] in " \t"):  # the value's continuation
        stop += 1
    # trailing blank lines belong to the file's layout, not the value
    while stop - 1 > start and not lines[stop - 1].strip():
        stop -= 1
    comment = _trailing_comment(lines[start].rstrip("\r\n"))
    if comment:
        new_line = new_line.rstrip("\r\n") + f"  {comment}{newline}"
    return "".join(lines[:start] + [new_line] + lines[stop:])


def _trailing_comment(line: str) -> str:
    """A `# comment` after a plain or quoted one-line value, kept beside the new value."""
    value = _KEY.match(line).group(1)  # type: ignore[union-attr]
    stripped = value.strip()
    if stripped.startswith(("|", ">")):
        return ""
    if stripped[:1] in ("'", '"'):
        quote = stripped[0]
        close = stripped.find(quote, 1)
        while quote == "'" and close != -1 and stripped[close + 1 : close + 2] == "'":
            close = stripped.find(quote, close + 2)
        rest = stripped[close + 1 :].strip() if close != -1 else ""
        return rest if rest.startswith("#") else ""
    at = stripped.find(" #")
    return stripped[at + 1 :] if at != -1 else ""
