"""Helpers for end-to-end tests: build a plugin with an eval suite in a pytester folder, run it through the
real Claude Code against the scripted endpoint, and read the results document."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

SKILL = """---
name: greet
description: Greets the user warmly. Use when the user says hello.
---
Reply with a warm greeting that starts with "Hello from the plugin".
"""


@dataclass
class EvalRun:
    result: pytest.RunResult
    doc: dict | None

    @property
    def rc(self) -> int:
        return self.result.ret

    @property
    def out(self) -> str:
        return self.result.stdout.str()

    @property
    def err(self) -> str:
        return self.result.stderr.str()

    def case(self, name: str) -> dict:
        return next(c for c in self.doc["cases"] if c["name"] == name)


class Suite:
    """A plugin folder (`greeter`, one skill) with `evals/` under a pytester directory (or in `root`)."""

    def __init__(self, pytester: pytest.Pytester, root: Path | None = None, name: str = "greeter"):
        self.pytester = pytester
        self.root = root or pytester.path
        (self.root / ".claude-plugin").mkdir(parents=True)
        (self.root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name, "version": "1.2.3"}))
        (self.root / "skills" / "greet").mkdir(parents=True)
        (self.root / "skills" / "greet" / "SKILL.md").write_text(SKILL)
        (self.root / "evals").mkdir()

    def case(
        self,
        name: str,
        prompt: str = "Say hello.",
        *,
        frontmatter: dict | None = None,
        graders: dict[str, str] | None = None,
        script: dict | None = None,
    ) -> Path:
        """Write evals/<name>/ with prompt.md, graders/<g>.md (raw text, dedented) and scripted.yaml."""
        folder = self.root / "evals" / name
        (folder / "graders").mkdir(parents=True)
        head = f"---\n{yaml.safe_dump(frontmatter, sort_keys=False)}---\n" if frontmatter else ""
        (folder / "prompt.md").write_text(head + prompt + "\n")
        for grader, text in (graders or {}).items():
            (folder / "graders" / f"{grader}.md").write_text(textwrap.dedent(text).lstrip())
        if script is not None:
            (folder / "scripted.yaml").write_text(yaml.safe_dump(script, sort_keys=False, allow_unicode=True))
        return folder

    def run(
        self, *args: str, path: str = "evals", trust: bool = True, scripted: bool = True, json_out: bool = True
    ) -> EvalRun:
        argv = [path, "-p", "no:cacheprovider"]
        if trust:
            argv.append("--trust-plugin")
        if scripted:
            argv.append("--scripted")
        out = self.root / "result.json"
        if json_out:
            argv += ["--json", str(out)]
        result = self.pytester.runpytest_subprocess(*argv, *args)
        doc = json.loads(out.read_text()) if json_out and out.exists() else None
        return EvalRun(result, doc)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Suite:
    return Suite(pytester)


# A case whose with-arm uses the skill and whose without-arm does not.
GREETING_GRADERS = {
    "skill-fired": """
        ---
        type: tool_used
        tool: Skill
        ---
    """,
    "greeting": """
        ---
        type: regex
        pattern: ^Hello from the plugin
        ---
    """,
}
GREETING_SCRIPT = {
    "with": [{"tool": "Skill", "input": {"skill": "greeter:greet"}}, {"text": "Hello from the plugin, friend."}],
    "without": [{"text": "Hi there."}],
}
