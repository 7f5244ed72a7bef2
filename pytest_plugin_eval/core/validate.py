"""The one set of value checks every loader uses (cases, graders, mocks, scripts).

A check is `check(value, key) -> value`: it returns the value (normalised where that helps, e.g. 2.0 → 2) or
raises SpecError naming the key. Loaders either collect what the checks raise (Problems.check) or let the first
error stop them. Messages name the type a value has ("got a string"); checks on a value's range or choice also
show the value, since its type alone does not say what is wrong.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any, overload

from .problems import SpecError

Check = Callable[[Any, str], Any]


def type_name(value: object) -> str:
    """A value's type as a YAML author calls it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing (null)"
    return type(value).__name__


def subkey(key: str, name: object) -> str:
    """The key path of `name` under `key` ('' being the top level)."""
    return f"{key}.{name}" if key else str(name)


def _wrong_type(value: object) -> str:
    """type_name, plus the value where it shows what was meant: a quoted number, or a fraction for a whole one."""
    name = type_name(value)
    return f"{name} {value!r}" if isinstance(value, (str, float)) else name


# ---- the checks -------------------------------------------------------------------------------------------


def whole_number(low: int, high: int | None = None) -> Check:
    """A whole number from `low` to `high` (no upper bound when high is None). A whole float (2.0) counts."""
    wanted = f"a whole number from {low} to {high}" if high is not None else f"a whole number ≥ {low}"

    def check(value: Any, key: str) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(key, f"must be {wanted} (got {_wrong_type(value)})")
        if value < low or (high is not None and value > high):
            raise SpecError(key, f"must be {wanted} (got {value})")
        return value

    return check


def seconds(value: Any, key: str) -> float:
    """A duration: a number ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(key, f"must be a number of seconds ≥ 0 (got {_wrong_type(value)})")
    if not value >= 0:  # written so that NaN fails too
        raise SpecError(key, f"must be a number of seconds ≥ 0 (got {value})")
    return float(value)


def positive_number(value: Any, key: str) -> float | int:
    """A finite number greater than 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(key, f"must be a number greater than 0 (got {_wrong_type(value)})")
    if not 0 < value < float("inf"):  # NaN fails too
        raise SpecError(key, f"must be a number greater than 0 (got {value})")
    return value


def string(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise SpecError(key, f"must be a string (got {type_name(value)})")
    return value


def nonempty_string(value: Any, key: str) -> str:
    """A string with something besides white space in it."""
    if not isinstance(value, str):
        raise SpecError(key, f"must be a non-empty string (got {type_name(value)})")
    if not value.strip():
        raise SpecError(key, "must be a non-empty string (got an empty string)")
    return value


def string_list(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        # A lone string is the usual slip: say how to write it as a list.
        hint = f" — write it as a list: [{value}]" if isinstance(value, str) else ""
        raise SpecError(key, f"must be a list of strings (got {type_name(value)}){hint}")
    for i, item in enumerate(value):
        string(item, f"{key}[{i}]")
    return tuple(value)


def mapping(value: Any, key: str) -> dict:
    if not isinstance(value, dict):
        raise SpecError(key, f"must be a mapping (got {type_name(value)})")
    return value


def boolean(value: Any, key: str) -> bool:
    # YAML 1.2: only true/false are booleans; `yes` arrives here as a string and is refused.
    if not isinstance(value, bool):
        raise SpecError(key, f"must be true or false (got {type_name(value)})")
    return value


def one_of(*choices: str) -> Check:
    def check(value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise SpecError(key, f"must be one of {', '.join(choices)} (got {_wrong_type(value)})")
        if value not in choices:
            raise SpecError(key, f"must be one of {', '.join(choices)} (got {value!r})")
        return value

    return check


def did_you_mean(name: object, allowed: Iterable[str]) -> str:
    """` — did you mean pattern?` for a key close to one of `allowed` (a typo such as `patern`), else ""."""
    close = difflib.get_close_matches(str(name), list(allowed), n=1, cutoff=0.75)
    return f" — did you mean {close[0]}?" if close else ""


def known_keys(data: dict, allowed: Iterable[str], key: str, what: str) -> None:
    """Refuse the first key of `data` not in `allowed`; `what` names the thing the keys belong to."""
    allowed = tuple(allowed)
    for name in data:
        if name not in allowed:
            raise SpecError(
                subkey(key, name),
                f"is not a key of {what}{did_you_mean(name, allowed)} (expected: {', '.join(allowed)})",
            )


# ---- optional keys of a mapping ---------------------------------------------------------------------------


def require_str(raw: dict, key: str, *, nonempty: bool = False) -> str:
    """raw[key] as a string; an absent or null key is refused."""
    value = raw.get(key)
    if value is None:
        raise SpecError(key, "is required")
    return nonempty_string(value, key) if nonempty else string(value, key)


def need_str(raw: dict, key: str, *, nonempty: bool = False, default: str | None = None) -> str | None:
    """raw[key] as a string; an absent or null key is `default`."""
    value = raw.get(key)
    if value is None:
        return default
    return nonempty_string(value, key) if nonempty else string(value, key)


@overload
def need_int(raw: dict, key: str, *, minimum: int, default: int) -> int: ...
@overload
def need_int(raw: dict, key: str, *, minimum: int, default: None) -> int | None: ...
def need_int(raw: dict, key: str, *, minimum: int, default: int | None) -> int | None:
    """raw[key] as a whole number ≥ minimum; an absent key is `default`."""
    if key not in raw:
        return default
    return whole_number(minimum)(raw[key], key)


class UniqueIds:
    """The ids of a list's entries so far (evals of an evals.json, queries of a trigger set): an id given twice is
    refused, naming the entry that had it first."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def problem(self, entry_id: str | None, where: str) -> str | None:
        """What is wrong with the entry at `where` having `entry_id` (None: nothing; the id is recorded)."""
        if entry_id and entry_id in self.first:
            return f"{entry_id!r} is already the id of {self.first[entry_id]}; ids are unique"
        if entry_id:
            self.first[entry_id] = where
        return None
