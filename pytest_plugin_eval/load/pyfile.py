"""Importing the Python files a suite holds (graders/*.py), once per process."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import ModuleType

from ..core.problems import SpecError

_MODULES: dict[Path, ModuleType] = {}


def import_grader(path: Path) -> ModuleType:
    """Import a grader file once per process (under a name derived from its path). Raises SpecError."""
    path = path.resolve()
    if path not in _MODULES:
        name = "plugin_eval_grader_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise SpecError("", "cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            raise SpecError("", f"cannot be imported: {type(e).__name__}: {e}") from None
        _MODULES[path] = module
    return _MODULES[path]


def module_settings(path: Path) -> dict:
    """The grader keys a .py file sets with module constants (`weight`, `arm`)."""
    module = import_grader(path)
    return {key: getattr(module, key) for key in ("weight", "arm") if hasattr(module, key)}
