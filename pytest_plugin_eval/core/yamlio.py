"""YAML and Markdown-frontmatter reading with the YAML 1.2 scalars the reference tool uses.

PyYAML follows YAML 1.1, where `yes`, `no`, `on`, `off` are booleans and `2024-01-01` is a date; the
reference tool (a JavaScript YAML 1.2 parser) reads those as strings. A case must mean the same thing to
both tools, so this loader resolves only `true`/`false` as booleans and never builds dates.
"""

from __future__ import annotations

import re

import frontmatter
import yaml


class Yaml12Loader(yaml.SafeLoader):
    pass


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class YamlError(ValueError):
    """Unparseable YAML; the message says where ("line 4, column 11: …"), and so do `line` and `column`
    (1-based; None when the parser could not tell)."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None):
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{problem}")
        self.problem = problem
        self.line = line
        self.column = column


def load_yaml(text: str) -> object:
    """Every YAML file the harness reads (case.yaml, frontmatter, scripted.yaml) is read by this one loader."""
    try:
        return yaml.load(text, Loader=Yaml12Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        if mark is None:
            raise YamlError(problem) from None
        raise YamlError(problem, mark.line + 1, mark.column + 1) from None


class FrontmatterError(ValueError):
    pass


_HANDLER = frontmatter.YAMLHandler()


def split_frontmatter(text: str) -> tuple[dict | None, str]:
    """(frontmatter mapping or None when the file has none, body). Raises FrontmatterError or YamlError."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not _HANDLER.detect(text):
        return None, text
    try:
        head, body = _HANDLER.split(text)
    except ValueError:
        raise FrontmatterError('unterminated frontmatter (an opening "---" line with no closing "---" line)') from None
    data = load_yaml(head)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter must be a YAML mapping of keys to values")
    return data, body
