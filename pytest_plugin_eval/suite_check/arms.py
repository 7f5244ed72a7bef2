"""What `check --against REF --ablate C,…` names, checked as a session checks it before any run
(engine/versions.py): a revision or folder that holds no other version, a component the plugin does not have. A
check that priced those arms and printed a pilot command the session then refuses would contradict itself."""

from __future__ import annotations

from pathlib import Path

from ..core.problems import Problem
from ..engine.options import EvalOptions
from ..engine.versions import PluginVersions, VersionError


def arm_problems(root: Path, options: EvalOptions) -> list[Problem]:
    """The first thing --against or --ablate names that the session could not make (empty: none)."""
    if options.against is None and not options.ablate:
        return []
    try:
        PluginVersions(options.against, lambda: root).check(root, options.ablate)  # makes nothing: no folder asked
    except VersionError as e:
        return [Problem(None, "", str(e))]
    return []
