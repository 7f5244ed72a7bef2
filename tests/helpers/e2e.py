"""For end-to-end tests: build a plugin with an eval suite in a pytester folder, run it through the real Claude
Code against the scripted endpoint, and read the results document and the runs' traces."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from helpers.plugin import write_plugin

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
        assert self.doc is not None, "the session wrote no results document"
        return next(c for c in self.doc["cases"] if c["name"] == name)


class Suite:
    """A plugin folder (`greeter`, one skill) with `evals/` under a pytester directory (or in `root`)."""

    def __init__(self, pytester: pytest.Pytester, root: Path | None = None, name: str = "greeter"):
        self.pytester = pytester
        self.root = write_plugin(root or pytester.path, name, version="1.2.3", skill=("greet", SKILL))

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


ANY = {"any": "---\ntype: regex\npattern: .\n---\n"}

# An AskUserQuestion call that a case's `answers: {"colou?r": Blue}` answers, and the tool result the agent then reads.
ASK_COLOUR = {
    "tool": "AskUserQuestion",
    "input": {
        "questions": [
            {
                "question": "Which colour do you like?",
                "header": "Colour",
                "multiSelect": False,
                "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            }
        ]
    },
}
COLOUR_ANSWERS = {"colou?r": "Blue"}
COLOUR_ANSWERED = 'Your questions have been answered: "Which colour do you like?"="Blue".'


def tool_results(run: dict) -> list[str]:
    """The text of every tool result in a run's trace, in order."""
    out = []
    with open(run["tracePath"]) as trace:
        for line in trace:
            event = json.loads(line)
            if event.get("type") != "user":
                continue
            for block in event["message"].get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        content = "".join(c.get("text", "") for c in content)
                    out.append(content or "")
    return out


def bash(command: str) -> dict:
    return {"tool": "Bash", "input": {"command": command, "description": "probe"}}


needs_sandbox = pytest.mark.skipif(
    not (shutil.which("bwrap") and shutil.which("socat")),
    reason="Claude Code's Linux sandbox needs bubblewrap and socat (.ci/run installs them)",
)


def normalized(doc: dict) -> dict:
    """The results document without what differs between two sessions (times — the runs' wall time among them —
    and paths)."""
    doc = json.loads(json.dumps(doc))
    for key in ("startedAt", "durationSeconds"):
        doc.pop(key, None)
    for case in doc["cases"]:
        for runs in case["arms"].values():
            for run in runs:
                for key in ("startedAt", "durationSeconds", "tracePath"):
                    run.pop(key)
                run.pop("agentSeconds", None)
                (run.get("conditions") or {}).pop("plugin", None)  # as contentHash below
        case.get("aggregates", {}).get("efficiency", {}).pop("seconds", None)
    doc.get("aggregates", {}).get("efficiency", {}).pop("seconds", None)
    doc["suite"].pop("concurrency")
    for plugin in doc["suite"].get("plugins", []):
        plugin.pop("contentHash", None)  # the plugin folder holds the other session's output files
    return doc


REPO = Path(__file__).resolve().parents[2]


def run_example_suite(out: Path, *args: str) -> None:
    """Run the repository's example plugin suite (~15 s) against the scripted endpoint, its results document in
    out/example.json and its results folder in out/results; `args` are more pytest options."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "example_plugin/evals",
            "--trust-plugin",
            "--scripted",
            "--allow-tools",
            "Write",
            "-p",
            "no:cacheprovider",
            "--json",
            str(out / "example.json"),
            "--output-dir",
            str(out / "results"),
            *args,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
