"""`graders/<name>.py`: a grader written in Python, for checks Markdown cannot express.

The file defines `grade(run)`; `run` is the run's output (`last_message`, `tool_calls`, `created_files`, `cwd`,
`transcript`, `mock_calls`). It passes by returning None or True, fails by returning False or by raising
AssertionError (its message is the explanation), or returns `(passed, explanation)` or a Verdict. Optional
module constants `weight` and `arm` work as in Markdown graders. The file is imported when the case loads, so
a syntax error or a missing `grade` is a load error.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ...core.problems import SpecError
from ...load.pyfile import import_grader
from ...run.output import RunOutput
from ..base import GradeContext, GraderType, Verdict, register
from ..targets import check_relative


def grade_function(module: ModuleType) -> Callable:
    fn = getattr(module, "grade", None)
    if not callable(fn):
        raise SpecError("grade", "is missing: define `def grade(run):` (return True/False, or raise AssertionError)")
    try:
        inspect.signature(fn).bind(None)
    except TypeError:
        raise SpecError("grade", "must take exactly one argument, the run: `def grade(run):`") from None
    return fn


@dataclass(frozen=True)
class PythonConfig:
    file: str  # as written, relative to the case folder
    fn: Callable
    doc: str
    sha256: str = ""  # of the file: an edited grader makes the case a changed one (--lf, comparisons)


@register
class PythonGrader(GraderType):
    name = "python"
    keys = ("file",)

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> PythonConfig:
        rel = raw.get("file")
        if not isinstance(rel, str) or not rel.endswith(".py"):
            raise SpecError("file", "must name a .py file in the case folder, such as graders/check.py")
        check_relative(rel, "file")
        path = (case_dir or Path.cwd()) / rel
        if not path.is_file():
            raise SpecError("file", f'"{rel}" does not exist in the case folder')
        module = import_grader(path)
        doc = (inspect.getdoc(module) or "").split("\n")[0]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return PythonConfig(rel, grade_function(module), doc, digest)

    def config_json(self, config: PythonConfig) -> dict:
        return {"file": config.file, "sha256": config.sha256}

    def grade(self, config: PythonConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        try:
            value = config.fn(run)
        except AssertionError as e:
            return Verdict(False, str(e) or "assertion failed")
        if isinstance(value, Verdict):
            return value
        if isinstance(value, tuple) and len(value) == 2:
            return Verdict(bool(value[0]), str(value[1]))
        if value is None or value is True:
            return Verdict(True, config.doc or "passed")
        if value is False:
            return Verdict(False, f"returned False{': ' + config.doc if config.doc else ''}")
        raise TypeError(
            f"grade() returned {type(value).__name__}; return None/True, False, (passed, explanation) "
            f"or raise AssertionError"
        )
