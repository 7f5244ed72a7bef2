"""The error family (pytest_plugin_eval.core.errors): every exception class the package defines belongs to it,
in the branch its meaning puts it, and keeps the built-in base callers catch it by."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import pytest_plugin_eval
from pytest_plugin_eval.core.errors import HarnessError, InvalidSpec, PluginEvalError, UsageError
from pytest_plugin_eval.engine.interrupts import Terminated

FAMILY = (PluginEvalError, UsageError, InvalidSpec, HarnessError)
BRANCHES = (UsageError, InvalidSpec, HarnessError)
OUTSIDE = {Terminated}  # a KeyboardInterrupt, so that `except Exception` never swallows a SIGTERM


def defined_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(pytest_plugin_eval.__path__, "pytest_plugin_eval."):
        module = importlib.import_module(info.name)
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, BaseException) and cls.__module__ == module.__name__
        ]
    return found


def test_every_exception_the_package_defines_is_in_one_branch_of_the_family():
    exceptions = [cls for cls in defined_exceptions() if cls not in FAMILY]
    assert len(exceptions) > 25
    outside = [cls.__qualname__ for cls in exceptions if not issubclass(cls, BRANCHES) and cls not in OUTSIDE]
    assert outside == []


@pytest.mark.parametrize(
    "module, name, family, builtin",
    [
        ("engine.option_values", "OptionError", UsageError, Exception),
        ("engine.trust", "TrustRefused", UsageError, Exception),
        ("run.agent", "ClaudeNotFound", UsageError, Exception),
        ("analysis.compare", "CompareError", UsageError, ValueError),
        ("analysis.merge", "MergeError", UsageError, ValueError),
        ("engine.shards", "ShardError", UsageError, ValueError),
        ("cli.arguments", "CliError", UsageError, Exception),
        ("core.problems", "SpecError", InvalidSpec, ValueError),
        ("core.yamlio", "YamlError", InvalidSpec, ValueError),
        ("load.case", "CaseLoadError", InvalidSpec, Exception),
        ("engine.agent_runner", "NotACaseFolder", InvalidSpec, FileNotFoundError),
        ("run.agent", "AgentStartError", HarnessError, Exception),
        ("grade.judge", "JudgeUnavailable", HarnessError, Exception),
        ("grade.assertions", "GraderUnavailable", HarnessError, RuntimeError),
        ("results.store", "FolderInUse", HarnessError, OSError),
    ],
)
def test_each_error_is_in_its_family_and_keeps_its_builtin_base(module, name, family, builtin):
    cls = getattr(importlib.import_module(f"pytest_plugin_eval.{module}"), name)
    assert issubclass(cls, family) and issubclass(cls, builtin)


def test_the_public_errors_are_still_importable_from_the_package():
    assert issubclass(pytest_plugin_eval.SpecError, InvalidSpec)
    assert issubclass(pytest_plugin_eval.GraderUnavailable, HarnessError)
