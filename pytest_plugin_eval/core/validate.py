"""Validators shared by every loader: each checks one value and raises SpecError naming the key."""
from __future__ import annotations

from .problems import SpecError

def type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing (null)"
    return type(value).__name__


def need_str(raw: dict, key: str, *, required: bool = False, nonempty: bool = False,
             default: str | None = None) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise SpecError(key, "is required")
        return default
    if not isinstance(value, str):
        raise SpecError(key, f"must be a string (got {type_name(value)})")
    if nonempty and not value.strip():
        raise SpecError(key, "must not be empty")
    return value


def need_int(raw: dict, key: str, *, minimum: int, default: int | None) -> int | None:
    if key not in raw:
        return default
    value = raw[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(key, f"must be a whole number ≥ {minimum} (got {type_name(value)})")
    if value < minimum:
        raise SpecError(key, f"must be a whole number ≥ {minimum} (got {value})")
    return value
