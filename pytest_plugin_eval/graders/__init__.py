"""Grader types behind one registry. Importing this package registers the built-in types."""
from .base import GraderSpec, GraderType, SpecError, Verdict, register, registry
from . import files, regex, tools  # noqa: F401  (registration)

__all__ = ["GraderSpec", "GraderType", "SpecError", "Verdict", "register", "registry"]
