"""Checking a tool call's input against a mock's `expect:` guards (validated upstream).

A guard names a dotted path into the input and what must be there: a JSON type, one of a list of strings,
or a match of a regular expression. Every guarded path is required. The first violation is reported in
words the eval's reader sees, e.g. `priority = "urgent" is not one of [low, medium, high]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from .templates import js_string

_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL}
_MISSING = object()


def check(guards: Sequence[Mapping[str, Any]], input: Mapping[str, Any]) -> str | None:
    """Why `input` violates the first failing guard, or None when all hold."""
    for guard in guards:
        problem = violation(guard, input)
        if problem is not None:
            return problem
    return None


def violation(guard: Mapping[str, Any], input: Mapping[str, Any]) -> str | None:
    """Why one guard fails for `input` (`path = value what-it-is-not`), or None."""
    path, kind, expected = guard["path"], guard["kind"], guard["value"]
    value = _lookup(input, path)
    shown = "(missing)" if value is _MISSING else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if kind == "type":
        if value is _MISSING or not _is_type(value, expected):
            return f"{path} = {shown} is not a {expected}"
    elif kind == "enum":
        if value is _MISSING or js_string(value) not in expected:
            return f"{path} = {shown} is not one of [{', '.join(expected)}]"
    elif kind == "regex":
        source, flags = expected["source"], expected.get("flags", "")
        # Like JavaScript's RegExp.test, a non-string value is tested as its String() form.
        if value is _MISSING or not _compiled(source, flags).search(js_string(value)):
            return f"{path} = {shown} does not match /{source}/{flags}"
    else:
        raise ValueError(f"unknown expect: guard kind {kind!r}")
    return None


def _lookup(input: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path through nested objects, or `_MISSING`."""
    value: Any = input
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, Mapping)
    if name == "array":
        return isinstance(value, list)
    raise ValueError(f"unknown expect: type {name!r}")


@lru_cache(maxsize=256)
def _compiled(source: str, flags: str) -> re.Pattern[str]:
    mask = 0
    for flag in flags:
        mask |= _FLAGS[flag]
    return re.compile(source, mask)
