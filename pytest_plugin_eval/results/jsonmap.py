"""JSON objects declared once, on the fields of their dataclasses.

A field is in the document when its metadata says so, and the document's keys come in the order of the fields:

    @dataclass
    class TriggerResult(Document):
        query: str = field(metadata=key("query"))
        _: KW_ONLY
        fired: bool | None = field(default=None, metadata=key("fired", omit="none"))
        extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

The rest follows from the field's type: a nested `Document`, or a list or dict of them, is written and read as one;
a list, tuple or dict that is absent or null reads as empty; a `bool` reads as `bool(value)`; the keys of a
`dict[int, …]` are written as strings. The `EXTRA` field keeps the keys this version does not know, and writes
them back where it stands. Annotations must resolve at run time (no names imported for type checking only).
A key `computed(name, value)` is written from the object (a verdict, a total) and never read; `spliced(value)` writes
the keys of the dict `value(obj)` in its place (a tally's counts beside a case's name), never read either.
`problems(cls, data)` says, before reading, which values do not have their field's type, by their path in the
document (`cases[3].arms.with[0].score: must be a number or null (got a string)`).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

Convert = Callable[[Any], Any]
D = TypeVar("D", bound="Document")
_UNSET: Any = object()


class Key:
    """How a field is written and read (made by `key`). `omit`: leave the key out when the value is None ("none"),
    falsy ("falsy"), or when this says so. `when`: write the key only when this attribute of the object is true.
    `missing`: what an absent key reads as (by default the field's default; a field with neither is required).
    `read` / `write`: convert the value instead of the type's rule (`write` sees every value written, None
    included)."""

    __slots__ = ("name", "omit", "when", "missing", "read", "write")

    def __init__(
        self,
        name: str,
        omit: Literal["none", "falsy"] | Callable[[Any], bool] | None,
        when: str | None,
        missing: Any,
        read: Convert | None,
        write: Convert | None,
    ) -> None:
        self.name, self.omit, self.when, self.missing, self.read, self.write = name, omit, when, missing, read, write


class SameAs:
    """`missing=SameAs("name")`: an absent key reads as the value of the earlier field `name`."""

    __slots__ = ("attr",)

    def __init__(self, attr: str) -> None:
        self.attr = attr


class Present:
    """A bool that is not written: whether the document has the key `name` (made by `present`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Extra:
    """The keys of the document this version does not know: kept, and written back in this field's place."""


class Computed:
    """A key that is written, not read: `value(obj)` says it (a verdict, a total) from the object's other fields
    (made by `computed`, on a placeholder field that is not in the constructor). `name` None: `value(obj)` is a
    dict whose keys are written in the field's place (made by `spliced`)."""

    __slots__ = ("name", "value", "when")

    def __init__(self, name: str | None, value: Callable[[Any], Any], when: str | None = None) -> None:
        self.name, self.value, self.when = name, value, when


_META = "json"
EXTRA: Mapping[str, Extra] = {_META: Extra()}


def key(
    name: str,
    *,
    omit: Literal["none", "falsy"] | Callable[[Any], bool] | None = None,
    when: str | None = None,
    missing: Any = _UNSET,
    read: Convert | None = None,
    write: Convert | None = None,
) -> dict[str, Key]:
    """A field's metadata: it is the document's key `name` (see `Key`)."""
    return {_META: Key(name, omit, when, missing, read, write)}


def computed(name: str, value: Callable[[Any], Any], *, when: str | None = None) -> dict[str, Computed]:
    """The metadata of a placeholder field, `field(default=None, init=False, compare=False, metadata=...)`, whose
    key `name` is written as `value(obj)` and never read (see `Computed`); `when`: only when this attribute of the
    object is true, as for `key`."""
    return {_META: Computed(name, value, when)}


def spliced(value: Callable[[Any], Mapping[str, Any]]) -> dict[str, Computed]:
    """The metadata of a placeholder field (as for `computed`) whose `value(obj)`, a dict, is written key by key in
    its place and never read."""
    return {_META: Computed(None, value)}


def present(name: str) -> dict[str, Present]:
    """A field's metadata: see `Present`."""
    return {_META: Present(name)}


class Document:
    """A dataclass that is a JSON object. `GIVEN`: the fields its `from_json` gives `read` when the document has
    not the key (they are not required of a document)."""

    GIVEN: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return write(self)

    @classmethod
    def from_json(cls: type[D], data: Mapping[str, Any]) -> D:
        return read(cls, data)


def write(obj: Document, stop: str | None = None) -> dict[str, Any]:
    """The object as JSON, up to (not including) the key `stop`."""
    out: dict[str, Any] = {}
    for slot in _plan(type(obj)).written:
        value = slot.computed(obj) if slot.computed is not None else getattr(obj, slot.attr)
        if slot.name is None:  # the EXTRA field, or a spliced one
            out.update(value)
        elif slot.name == stop:
            break
        elif (slot.when is None or getattr(obj, slot.when)) and not (slot.omit and slot.omit(value)):
            out[slot.name] = value if slot.convert is None else slot.convert(value)
    return out


def read(cls: type[D], data: Mapping[str, Any], **given: Any) -> D:
    """An object from its JSON; the `given` fields are not read from it."""
    plan = _plan(cls)
    values: dict[str, Any] = {}
    for slot in plan.read:
        if slot.attr in given:
            continue
        if slot.name is None:  # the EXTRA field
            values[slot.attr] = {k: v for k, v in data.items() if k not in plan.keys}
        elif slot.present:
            values[slot.attr] = slot.name in data
        elif slot.name in data:
            values[slot.attr] = slot.load(data[slot.name])
        else:
            values[slot.attr] = slot.absent(values)
    return cls(**given, **values)


def problems(cls: type[Document], data: Any, path: str = "") -> list[str]:
    """What in `data` is not of the type `cls` declares, each as `path: what is wrong`; empty when it reads.

    The check is as lenient as the readers: a key that may be absent may be null where the type allows it, any
    number stands for an int or a float, a bool is read as bool(value), a string field shows whatever it holds as
    text, and a key with its own `read` converter is checked only for the documents it holds. What it refuses is
    what reading or computing would trip on: a missing required key, an object or list of the wrong kind, a
    number that is not one."""
    if not isinstance(data, Mapping):
        return [f"{path or 'the document'}: must be an object (got {json_kind(data)})"]
    found: list[str] = []
    for slot in _plan(cls).read:
        if slot.name is None or slot.present:
            continue
        where = f"{path}.{slot.name}" if path else slot.name
        if slot.name not in data:
            if slot.required and slot.attr not in cls.GIVEN:
                found.append(f"{where}: missing")
            continue
        if slot.custom and not _holds_document(slot.hint):
            continue
        found += _value_problems(slot.hint, data[slot.name], where)
    return found


def _value_problems(hint: Any, value: Any, where: str) -> list[str]:
    if hint is Any or isinstance(hint, TypeVar):
        return []
    inner = _optional(hint)
    if inner is not None:
        return [] if value is None else _value_problems(inner, value, where)
    if _is_document(hint):
        return problems(hint, value, where)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (list, tuple):
        if value is None:
            return []
        if not isinstance(value, (list, tuple)):
            return [f"{where}: must be a list (got {json_kind(value)})"]
        item = args[0] if args else Any
        return [p for i, x in enumerate(value) for p in _value_problems(item, x, f"{where}[{i}]")]
    if hint is dict or origin is dict:
        if value is None:
            return []
        if not isinstance(value, Mapping):
            return [f"{where}: must be an object (got {json_kind(value)})"]
        key_type, item = (args[0], args[1]) if args else (Any, Any)
        found = []
        allowed = _allowed_keys(key_type)
        for k, v in value.items():
            if allowed is not None and not any(
                k in spelt if isinstance(spelt, tuple) else spelt(k) for spelt in allowed
            ):
                named = [", ".join(map(str, spelt)) if isinstance(spelt, tuple) else spelt.__doc__ for spelt in allowed]
                found.append(f"{where}: {k!r} is not one of {', '.join(named)}")
            else:
                found += _value_problems(item, v, f"{where}.{k}")
        return found
    if hint in (int, float):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if number else [f"{where}: must be a number (got {json_kind(value)})"]
    return []  # a string field shows what it holds as text, whatever it is


def _allowed_keys(key_type: Any) -> list[Any] | None:
    """What an object's keys may be when its key type says: the values of a Literal, and for a union also what a
    member's `json_key` test (a function whose docstring names what it admits) lets through. None: any key."""
    members = get_args(key_type) if get_origin(key_type) in (Union, types.UnionType) else (key_type,)
    allowed: list[Any] = []
    for member in members:
        if get_origin(member) is Literal:
            allowed.append(get_args(member))
        elif callable(getattr(member, "json_key", None)):
            allowed.append(member.json_key)
        else:
            return None
    return allowed


def _holds_document(hint: Any) -> bool:
    return _is_document(hint) or any(_holds_document(a) for a in get_args(hint))


def json_kind(value: Any) -> str:
    """A JSON value's kind, as a message names it (`must be a number (got a string)`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


class _Written:
    """A field as the writer sees it (`name` None: the EXTRA field)."""

    __slots__ = ("attr", "name", "when", "omit", "convert", "computed")

    def __init__(self, attr: str, spec: Key | Extra | Computed, hint: Any) -> None:
        self.attr = attr
        self.computed = spec.value if isinstance(spec, Computed) else None
        self.name = spec.name if isinstance(spec, (Key, Computed)) else None
        self.when = spec.when if isinstance(spec, (Key, Computed)) else None
        omit = spec.omit if isinstance(spec, Key) else None
        self.omit = _is_none if omit == "none" else _falsy if omit == "falsy" else omit
        dump = _dumper(hint)
        self.convert: Convert | None = None if dump is None else lambda value: None if value is None else dump(value)
        if isinstance(spec, Key) and spec.write is not None:
            self.convert = spec.write


class _Read:
    """A field as the reader sees it: `load` converts the key's value, `absent` makes it when the key is not
    there (from the values read so far)."""

    __slots__ = ("attr", "name", "present", "load", "absent", "hint", "custom", "required")

    def __init__(self, f: dataclasses.Field[Any], spec: Key | Present | Extra, hint: Any) -> None:
        self.attr = f.name
        self.name = None if isinstance(spec, Extra) else spec.name
        self.present = isinstance(spec, Present)
        load, empty = _loader(hint)
        self.load: Convert = spec.read if isinstance(spec, Key) and spec.read is not None else load
        self.absent = _absent(f, spec, load, empty) if isinstance(spec, Key) else _required(f.name)
        self.hint = hint
        self.custom = isinstance(spec, Key) and spec.read is not None
        self.required = getattr(self.absent, "required", False)


def _absent(f: dataclasses.Field[Any], spec: Key, load: Convert, empty: bool) -> Callable[[dict[str, Any]], Any]:
    """What an absent key reads as: `missing`, else the field's default, else the type's empty value, else it is
    required."""
    missing = spec.missing
    if isinstance(missing, SameAs):
        return lambda values: values[missing.attr]
    if missing is not _UNSET:
        return lambda values: missing
    default, factory = f.default, f.default_factory
    if default is not dataclasses.MISSING:
        return lambda values: default
    if factory is not dataclasses.MISSING:
        return lambda values: factory()
    if empty:
        return lambda values: load(None)
    return _required(spec.name)


def _required(name: str) -> Callable[[dict[str, Any]], Any]:
    def absent(values: dict[str, Any]) -> Any:
        raise KeyError(name)

    absent.required = True  # type: ignore[attr-defined]
    return absent


class _Plan:
    """How a class is written and read: worked out once, when it is first written or read."""

    __slots__ = ("written", "read", "keys")

    def __init__(self, cls: type) -> None:
        hints = get_type_hints(cls)
        fields = [(f, f.metadata[_META], hints[f.name]) for f in dataclasses.fields(cls) if _META in f.metadata]
        self.written = tuple(_Written(f.name, spec, hint) for f, spec, hint in fields if not isinstance(spec, Present))
        self.read = tuple(_Read(f, spec, hint) for f, spec, hint in fields if not isinstance(spec, Computed))
        self.keys = frozenset(
            spec.name for _, spec, _ in fields if isinstance(spec, (Key, Computed)) and spec.name is not None
        )


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    if cls not in _PLANS:
        _PLANS[cls] = _Plan(cls)
    return _PLANS[cls]


def _is_none(value: Any) -> bool:
    return value is None


def _falsy(value: Any) -> bool:
    return not value


def _is_document(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Document)


def _optional(hint: Any) -> Any:
    """X for `X | None`, else None."""
    if get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        return rest[0] if len(rest) == 1 else None
    return None


def _dumper(hint: Any) -> Convert | None:
    """How a value of this type becomes JSON (None: as it is)."""
    origin, args = get_origin(hint), get_args(hint)
    if _is_document(hint):
        return lambda doc: doc.to_json()
    if _optional(hint) is not None:
        return _dumper(_optional(hint))
    if origin in (list, tuple):
        item = _dumper(args[0]) if args else None
        return list if item is None else lambda items: [item(x) for x in items]
    if hint is dict or origin is dict:
        name = str if args and args[0] is int else _same
        value = (_dumper(args[1]) if args else None) or _same
        return dict if name is _same and value is _same else lambda d: {name(k): value(v) for k, v in d.items()}
    return None


def _loader(hint: Any) -> tuple[Convert, bool]:
    """How JSON becomes a value of this type, and whether the type has an empty value (for an absent key)."""
    origin, args = get_origin(hint), get_args(hint)
    if _is_document(hint):
        return (lambda data: hint.from_json(data or {})), True
    inner = _optional(hint)
    if inner is not None:
        # An optional value is read as it is, unless it must be converted to be of its type at all.
        load, _ = _loader(inner)
        convert = _holds_document(inner) or (get_origin(inner) is dict and get_args(inner)[:1] == (int,))
        return (lambda data: None if data is None else load(data)) if convert else _same, False
    if origin is list:
        item = _loader(args[0])[0] if args and _is_document(args[0]) else None
        return (lambda data: list(data or []) if item is None else [item(x) for x in data or []]), True
    if origin is tuple:
        item = _loader(args[0])[0] if args and _is_document(args[0]) else None
        return (lambda data: tuple(data or ()) if item is None else tuple(item(x) for x in data or ())), True
    if hint is dict or origin is dict:
        if args and args[0] is int:
            return (lambda data: {int(k): v for k, v in (data or {}).items()}), True
        if args and _is_document(args[1]):
            value = _loader(args[1])[0]
            return (lambda data: {k: value(v) for k, v in (data or {}).items()}), True
        return (lambda data: data or {}), True
    if hint is bool:
        return bool, False
    return _same, False


def _same(value: Any) -> Any:
    return value
