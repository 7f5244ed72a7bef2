"""Grader types behind one registry. Importing this package registers the built-in types."""
from .base import GradeContext, GraderSpec, GraderType, SpecError, Verdict, register, registry
from . import files, judge, python, regex, tools  # noqa: F401  (registration)

__all__ = ["GradeContext", "GraderSpec", "GraderType", "SpecError", "Verdict", "register", "registry"]
