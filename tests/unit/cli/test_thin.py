"""cli/ stays thin (issue 33): a module per command that parses, calls its workflow and prints. A module past
LIMIT lines has grown a workflow that belongs below cli/ (analysis/, suite_check/, tune/, authoring/, publish/).

A loop is where a workflow shows first: walking documents, folders, cases or runs. In cli/ a `for` may only print
the lines a workflow returned (`for line in lines: print(line)`); the modules that read the command line word by
word (ARGV_READERS) are the one exception, since reading argv is parsing."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[3] / "pytest_plugin_eval" / "cli"
LIMIT = 150

# module → why it loops: each walks argv, which is what parsing is
ARGV_READERS = {
    "arguments.py": "the reference command line, read word by word as the reference tool reads it",
    "commands/compare_parser.py": "json_alone: whether --json takes the word after it",
}


def loops(source: str) -> list[ast.stmt]:
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]


def prints_lines(loop: ast.stmt) -> bool:
    """`for …: print(…)` and nothing else."""
    if not isinstance(loop, ast.For) or loop.orelse or len(loop.body) != 1:
        return False
    (statement,) = loop.body
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "print"
    )


def workflow_loops(source: str) -> list[int]:
    return [loop.lineno for loop in loops(source) if not prints_lines(loop)]


def test_every_cli_module_is_short():
    long = {
        p.relative_to(CLI).as_posix(): n
        for p in CLI.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert not long, f"cli/ modules over {LIMIT} lines (move their workflow below cli/): {long}"


def test_no_cli_module_loops_over_what_a_workflow_walks():
    found = {
        rel: lines
        for p in sorted(CLI.rglob("*.py"))
        if (rel := p.relative_to(CLI).as_posix()) not in ARGV_READERS
        and (lines := workflow_loops(p.read_text(encoding="utf-8")))
    }
    assert not found, f"loops in cli/ that do more than print (move them to the workflow's package): {found}"


def test_the_loop_rule_tells_printing_from_walking():
    assert workflow_loops("for line in lines:\n    print(line)\n") == []
    assert workflow_loops("for s in sources:\n    docs.append(read(s))\n") == [1]
    assert workflow_loops("for s in sources:\n    if s:\n        print(s)\n") == [1]
    assert workflow_loops("while i < 3:\n    print(i)\n") == [1]


def test_the_argv_readers_exist_and_loop():
    for rel in ARGV_READERS:
        assert loops((CLI / rel).read_text(encoding="utf-8")), f"{rel} no longer loops: drop it from ARGV_READERS"


def test_the_cli_modules_are_found():
    assert (CLI / "main.py").is_file() and len(list(CLI.rglob("*.py"))) > 10
