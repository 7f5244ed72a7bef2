"""The loaded cases a session's pre-run findings (lint/) are asked of: at the start, those of the run items' node
ids (under pytest-xdist the controller has the workers' ids only, no items); at the end, those of the results
document's cases. A case folder is loaded by the session's loader; a skill-creator eval from its evals.json. A
case that does not load has no findings: its load error is said where it was collected."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..load.case import Case, CaseLoadError
from ..load.skill_evals import EVALS_FILE, eval_cases, evals_files, read_evals
from ..load.suite import enclosing_plugin, eval_dir_name, resolve_plugin
from ..results.model import CaseResult
from .collected import case_file_of
from .session_view import SessionView


def _evals(session: SessionView, paths: Iterable[Path], plugin: Path, eval_root: Path) -> dict[str, Case]:
    """Every eval of the evals.json files `paths` as its case, by case name (`skill/id`)."""
    out: dict[str, Case] = {}
    for path in paths:
        try:
            out |= {c.name: c for c in eval_cases(read_evals(path, plugin), eval_root, session.grader_types())}
        except (CaseLoadError, OSError):
            continue
    return out


def cases_of_nodeids(session: SessionView, nodeids: Iterable[str]) -> list[Case]:
    """The cases of the run items `nodeids` (`<case file>::<case name>[with-plugin-1]`), each once (each case file
    read once), trigger cases left out (their queries are no prompt of a case)."""
    files: dict[str, dict[str, Case]] = {}  # case file → its cases by name
    wanted: dict[tuple[str, str], None] = {}  # (case file, case name), in the order of the ids
    for nodeid in nodeids:
        case_file = case_file_of(nodeid)
        if case_file is None:
            continue
        if case_file not in files:
            files[case_file] = _cases_of_file(session, session.config.rootpath / case_file)
        wanted[(case_file, nodeid.split("::", 1)[1].rsplit("[", 1)[0])] = None
    found = [files[case_file].get(name) for case_file, name in wanted]
    return [case for case in found if case is not None and case.trigger is None]


def _cases_of_file(session: SessionView, path: Path) -> dict[str, Case]:
    """The cases a case file runs, by name: a case folder's one, or every eval of an evals.json."""
    root = session.eval_root(path)
    if root is None and path.name == EVALS_FILE:  # in a skill's folder: of the enclosing plugin's eval dir
        plugin = enclosing_plugin(path.parent)
        root = session.eval_root(plugin / eval_dir_name(plugin, session.options.eval_dir)) if plugin else None
    if root is None:
        return {}
    if path.name == EVALS_FILE:
        return _evals(session, [path], resolve_plugin(path.parent, root), root)
    try:
        case = session.load(path.parent, root)
    except (CaseLoadError, OSError):
        return {}
    return {case.name: case}


def cases_of_results(session: SessionView, plugin_root: Path, results: Iterable[CaseResult]) -> list[Case]:
    """The cases of a results document's cases (`plugin_root`: the suite's root, their `dir`s relative to it)."""
    loaded: list[Case] = []
    evals: dict[str, Case] | None = None  # the plugin's evals.json evals, read once when the document has one
    for result in results:
        folder = plugin_root / result.dir
        root = session.eval_root(folder)
        if root is None:
            continue
        if result.source == "skill_creator":
            if evals is None:
                plugin = resolve_plugin(folder, root)
                evals = _evals(session, evals_files(plugin), plugin, root)
            case = evals.get(result.name)
        else:
            try:
                case = session.load(folder, root) if folder.is_dir() else None
            except (CaseLoadError, OSError):
                case = None
        if case is not None:
            loaded.append(case)
    return loaded
