"""The built-in grader types, registered when this package is imported."""

from __future__ import annotations

from ..base import GraderType, registry
from . import budget, files, judged, python, regex, tools  # noqa: F401  (each module registers its types)


def grader_types() -> dict[str, GraderType]:
    """Every registered grader type by name: the built-in ones and any added with `register`."""
    return dict(registry())
