"""Rendering a fixed responder's body: `{{input.a.b}}` fields and `{{file:fixtures/{input.id}.json}}` files.

Values are inserted as JavaScript would print them (the mock format is shared with a JavaScript tool), and
a file placeholder may only read files inside the mock's own directory: the model under evaluation chooses
the substituted values, so a crafted id must not reach anything else on disk.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...core.errors import InvalidSpec
from ...core.paths import inside

# `{{input}}`, `{{input.a.0}}`, or `{{file:path}}` where the path may hold `{input.x}` substitutions.
_PLACEHOLDER = re.compile(r"\{\{\s*(?:input(?P<field>(?:\.[^\s.{}]+)*)|file:(?P<file>(?:[^{}]|\{[^{}]*\})*?))\s*\}\}")
_SEGMENT = re.compile(r"\{input(?P<field>(?:\.[^\s.{}]+)+)\}")
_MISSING = object()


class TemplateError(InvalidSpec):
    """A body that cannot be rendered for this input; the message is the tool error the model sees."""


def render(body: str, input: Mapping[str, Any], base_dir: str | os.PathLike[str]) -> str:
    """The body with every placeholder filled; raises TemplateError for a refused or missing file."""
    base = Path(base_dir)

    def fill(match: re.Match[str]) -> str:
        if match.group("file") is not None:
            return _read_file(match.group("file").strip(), input, base)
        value = _lookup(input, match.group("field"))
        return "" if value is _MISSING else _text(value)

    return _PLACEHOLDER.sub(fill, body)


def _lookup(value: Any, dotted: str) -> Any:
    """The value at `.a.b.0` (keys of objects, indexes of lists), or the `_MISSING` sentinel."""
    for part in dotted.split(".")[1:]:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _text(value: Any) -> str:
    """Strings as they are, anything else as compact JSON."""
    return value if isinstance(value, str) else js_json(value)


def _read_file(template: str, input: Mapping[str, Any], base: Path) -> str:
    path = _substitute_segments(template, input)
    if os.path.isabs(path) or path.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", path):
        raise TemplateError(f"{{{{file:{path}}}}} names a path outside the mock's directory")
    target = base / path
    if not inside(target, base):  # symlinks followed, so a link pointing out is caught too
        raise TemplateError(f"{{{{file:{path}}}}} names a path outside the mock's directory")
    if not target.is_file():
        raise TemplateError(f"{{{{file:{path}}}}}: no such file in the mock's directory")
    try:
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{{{{file:{path}}}}}: cannot be read: {exc}") from exc


def _substitute_segments(template: str, input: Mapping[str, Any]) -> str:
    """Fill `{input.x}` in a file path; each value must be one plain file-name segment."""

    def fill(match: re.Match[str]) -> str:
        value = _lookup(input, match.group("field"))
        segment = "" if value is _MISSING else _text(value)
        if segment in ("", ".", "..") or any(c in segment for c in "/\\\0"):
            shown = json.dumps(segment, ensure_ascii=False)
            raise TemplateError(f"{match.group(0)} = {shown} is not a plain file-name segment")
        return segment

    return _SEGMENT.sub(fill, template)


# -- JavaScript's printing of values ---------------------------------------------------------------------


def js_json(value: Any) -> str:
    """`JSON.stringify(value)`: compact, numbers as JavaScript prints them (`1.0` → `1`)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{js_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def js_string(value: Any) -> str:
    """`String(value)`: what a JavaScript comparison of the value with a string sees."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


def js_number(x: float) -> str:
    """`Number.prototype.toString()` of a float: shortest round-trip digits, JavaScript's layout."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    exact = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, exact.digits))
    assert isinstance(exact.exponent, int)  # a finite number
    k, n = len(digits), exact.exponent + len(digits)  # value = 0.<digits> × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
