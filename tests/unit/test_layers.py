"""The package's shape: stages import only from the stages below them, and no module imports itself back through
others — deferred imports inside functions included. Read from the source (ast), nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_plugin_eval"

# Bottom to top. A module may import from its own layer and the layers below; packages that share a layer are
# independent of each other.
LAYERS = [
    {"core", "stats", "hookspecs"},
    {"adaptive", "agreement"},
    {"load"},
    {"run", "doubles"},
    {"grade"},
    {"results"},
    {"analysis"},  # computations over stored documents
    {"lint"},  # the suite's lint rules: the session runs them at start, check runs them too
    {"report"},
    {"engine"},  # an eval session without pytest
    {"session"},  # the pytest adapter over the engine
    {"suite_check"},
    {
        "tune",
        "authoring",
        "publish",
    },  # workflows: authoring re-checks the suite, tune prices with suite_check's cost model
    {"cli"},
    {"plugin", "__init__"},
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The package's modules `name` imports, anywhere in its source."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                root = ".".join(base + ([node.module] if node.module else []))
            else:
                root = node.module or ""
            # `from pkg import module` names a module; `from module import name` names the module.
            targets = [f"{root}.{alias.name}" if f"{root}.{alias.name}" in MODULES else root for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def stage_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(stage: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if stage in layer)


def test_every_stage_has_a_layer():
    assert {stage_of(name) for name in MODULES} <= set().union(*LAYERS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down(name):
    stage = stage_of(name)
    wrong = []
    for target in sorted(GRAPH[name]):
        other = stage_of(target)
        if other == stage:
            continue
        if layer_of(other) > layer_of(stage) or (layer_of(other) == layer_of(stage) and other != "__init__"):
            wrong.append(f"{name} imports {target} ({other} is not below {stage})")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    cycles, state = [], {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(GRAPH[name]):
            if state.get(target) == "open":
                cycles.append(" → ".join(path[path.index(target) :] + [target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(cycles)


def test_the_plugin_module_imports_no_http_client():
    """Every pytest run in an environment with the plugin installed imports it: no HTTP client at import."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pytest_plugin_eval.plugin"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    heavy = [line for line in out.splitlines() if line.rstrip().endswith(("| anthropic", "| httpx"))]
    assert not heavy, "\n".join(heavy)


def imports_pytest(name: str) -> bool:
    """Whether a module imports pytest (or _pytest) anywhere in its source."""
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            roots = [(node.module or "").split(".")[0]]
        else:
            continue
        if {"pytest", "_pytest"} & set(roots):
            return True
    return False


SESSION = sorted(n for n in MODULES if stage_of(n) == "session" and MODULES[n].name != "__init__.py")


def test_the_session_modules_are_found():
    assert "pytest_plugin_eval.session.controller" in SESSION


@pytest.mark.parametrize("name", SESSION)
def test_every_session_module_imports_pytest(name):
    """session/ is the pytest adapter only: what needs no pytest is the engine's (engine/), tested without it."""
    assert imports_pytest(name), f"{name} does not import pytest: it belongs in engine/"


def test_no_engine_module_imports_pytest():
    engine = [n for n in MODULES if stage_of(n) == "engine"]
    assert engine
    assert not [n for n in engine if imports_pytest(n)]
