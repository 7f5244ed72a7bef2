"""The one shape of a user's mistake: the file, the key in it, and what to do about it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidSpec
from .paths import display_path


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file the user wrote: `key` names the offending key ('' for the file as a whole).
    `structural` marks files that cannot be read as what they should be at all (vs. a bad value in a
    readable file)."""

    file: Path | None
    key: str
    message: str
    structural: bool = False

    def render(self, base: Path | None = None) -> str:
        where = display_path(self.file, base) if self.file is not None else ""
        parts = [p for p in (where, self.key) if p]
        return ": ".join([*parts, self.message])

    def to_json(self, base: Path) -> dict:
        file = os.path.relpath(self.file, base) if self.file is not None else ""
        return {"file": file, "key": self.key, "message": self.message}


class SpecError(InvalidSpec, ValueError):
    """A definition that cannot work, raised where it is found. The key is known where the value is checked;
    the file is added by whoever reads the file (`in_file`)."""

    def __init__(self, key: str, message: str, structural: bool = False, file: Path | None = None):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message
        self.structural = structural
        self.file = file

    @classmethod
    def at(cls, file: str | os.PathLike, key: str, message: str, structural: bool = False) -> SpecError:
        """An error located in `file` from the start."""
        return cls(key, message, structural, Path(file))

    @property
    def problem(self) -> Problem:
        return Problem(self.file, self.key, self.message, self.structural)

    def in_file(self, file: Path, prefix: str = "") -> SpecError:
        """The same error, located: in `file`, under the key path `prefix` (e.g. `graders[2]`)."""
        key = f"{prefix}.{self.key}" if prefix and self.key else (prefix or self.key)
        return SpecError(key, self.message, self.structural, file)

    def __str__(self) -> str:
        return self.problem.render() if self.file is not None else super().__str__()


@contextmanager
def located(file: str | os.PathLike, prefix: str = "") -> Iterator[None]:
    """Locate in `file` (under `prefix`) every SpecError raised inside that does not name its file yet: the checks
    know the key, the code reading the file knows the file."""
    try:
        yield
    except SpecError as e:
        if e.file is not None:
            raise
        raise e.in_file(Path(file), prefix) from None


class Problems:
    """Every problem found while reading one thing (a case, a script), instead of stopping at the first."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def add(self, file: Path | None, key: str, message: str, structural: bool = False) -> None:
        self.items.append(Problem(file, key, message, structural))

    def add_error(self, error: SpecError, file: Path | None = None, prefix: str = "") -> None:
        located = error.in_file(file, prefix) if file is not None else error
        self.items.append(located.problem)

    def check(self, file: Path, fields: dict, data: dict, prefix: str = "", structural_keys=()) -> dict:
        """Validate each key of `data` that `fields` knows (key → check(value, key)); the valid values."""
        out = {}
        for key, value in data.items():
            if key in fields:
                try:
                    out[key] = fields[key](value, prefix + key)
                except SpecError as e:
                    self.add(file, e.key, e.message, structural=key in structural_keys)
        return out
