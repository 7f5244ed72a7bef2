"""A plugin folder with an eval suite, written in a temporary folder for the unit tests that load cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import Case, CaseLoadError, load_case

REGEX_OK = "---\ntype: regex\npattern: hello\n---\n"
DEFAULT = object()


def write_plugin(
    root: Path, name: str, *, version: str | None = None, skill: tuple[str, str] | None = None, manifest: bool = True
) -> Path:
    """`root/.claude-plugin/plugin.json` (unless `manifest` is false), a skill `(name, SKILL.md text)` under
    `root/skills/`, and an empty `root/evals/`. Returns `root`."""
    if manifest:
        (root / ".claude-plugin").mkdir(parents=True)
        fields = {"name": name} if version is None else {"name": name, "version": version}
        (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(fields))
    if skill is not None:
        (root / "skills" / skill[0]).mkdir(parents=True)
        (root / "skills" / skill[0] / "SKILL.md").write_text(skill[1])
    (root / "evals").mkdir(parents=True)
    return root


class Suite:
    """A plugin `p` with one skill under tmp_path/plugin (`plugin`), and its `evals/` folder. `manifest=False`
    leaves out .claude-plugin/plugin.json; `mcp=True` adds an .mcp.json declaring a server `srv`."""

    def __init__(self, root: Path, *, version: str | None = "1.0.0", manifest: bool = True, mcp: bool = False):
        skill = ("s", "---\nname: s\ndescription: A skill.\n---\nDo it.\n")
        self.plugin = write_plugin(root / "plugin", "p", version=version, skill=skill, manifest=manifest)
        if mcp:
            (self.plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {"command": "srv"}}}))
        self.evals = self.plugin / "evals"

    def case(
        self,
        name: str = "c",
        body: str = "Say hello.",
        *,
        fm: str | None = None,
        graders=DEFAULT,
        case_yaml: str | None = None,
        md: bool = True,
        files: dict[str, str] | None = None,
    ) -> Path:
        """Write evals/<name>/: prompt.md (`fm` is raw frontmatter YAML; none when `md` is false), graders/<g>.md
        (raw text; one regex grader `ok` by default), case.yaml, and any other `files` (by relative path)."""
        folder = self.evals / name
        folder.mkdir(parents=True, exist_ok=True)
        if md:
            head = f"---\n{fm}\n---\n" if fm is not None else ""
            (folder / "prompt.md").write_text(head + body + "\n", encoding="utf-8")
        if graders is DEFAULT:
            graders = {"ok": REGEX_OK}
        if graders is not None:
            (folder / "graders").mkdir(exist_ok=True)
            for grader, text in graders.items():
                (folder / "graders" / f"{grader}.md").write_text(text, encoding="utf-8")
        if case_yaml is not None:
            (folder / "case.yaml").write_text(case_yaml, encoding="utf-8")
        for rel, text in (files or {}).items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text, encoding="utf-8")
        return folder

    def load(self, name: str = "c") -> Case:
        return load_case(self.evals / name, self.evals, grader_types())

    def loaded(self, name: str = "c", **files) -> Case:
        """`case(name, **files)`, loaded."""
        return self.load(self.case(name, **files).name)

    def fail(self, name: str = "c") -> CaseLoadError:
        with pytest.raises(CaseLoadError) as info:
            self.load(name)
        return info.value

    def rendered(self, error: CaseLoadError) -> list[str]:
        return [p.render(self.plugin) for p in error.problems]

    def problems(self, name: str = "c") -> list[str]:
        return self.rendered(self.fail(name))
