"""YAML and Markdown-frontmatter reading with the YAML 1.2 scalars the reference tool uses.

PyYAML follows YAML 1.1, where `yes`, `no`, `on`, `off` are booleans and `2024-01-01` is a date; the
reference tool (a JavaScript YAML 1.2 parser) reads those as strings. A case must mean the same thing to
both tools, so this loader resolves only `true`/`false` as booleans and never builds dates.

It is also the one place that bounds what a file can cost: a key written twice in one mapping is refused (PyYAML
would keep the last silently), and so is a document nested deeper than MAX_DEPTH levels, or one that expands —
through its aliases — to more than MAX_NODES values or MAX_CHARS characters of text (a few hundred bytes of
anchors can otherwise stand for gigabytes), or an alias that refers to a node containing it.
"""

from __future__ import annotations

import re

import frontmatter
import yaml

from .errors import InvalidSpec

MAX_DEPTH = 64  # levels of nesting, counting what aliases stand for
MAX_NODES = 20_000  # values (scalars, lists, mappings) a document stands for once its aliases are expanded
MAX_CHARS = 4 * 1024 * 1024  # characters of text in a document, likewise; and of the document itself
_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlError(InvalidSpec, ValueError):
    """Unparseable YAML, or YAML over one of the limits; the message says where ("line 4, column 11: …"), and so
    do `line` and `column` (1-based; None when the parser could not tell). `key` is the key path the problem is
    under ('' when it is not known, or is the document itself)."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None, key: str = ""):
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{problem}")
        self.problem = problem
        self.line = line
        self.column = column
        self.key = key


def _at(problem: str, mark, key: str = "") -> YamlError:
    if mark is None:
        return YamlError(problem, key=key)
    return YamlError(problem, mark.line + 1, mark.column + 1, key)


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 scalars and the limits above (checked while the document is composed, before
    anything is built from it)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        # id(node) → (values, characters, depth) the node stands for, its aliases expanded (each capped just over
        # its limit). Nodes live as long as the document, so their ids stay theirs.
        self._expanded: dict[int, tuple[int, int, int]] = {}
        self._paths: list[str] = [""]  # the key path of the node being composed, and of its ancestors
        self._key_paths: dict[int, str] = {}  # id(mapping node) → its key path, for duplicate-key errors

    def compose_node(self, parent, index):
        path = _child_path(self._paths[-1], parent, index)
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = super().compose_node(parent, index)
            if id(node) not in self._expanded:  # still being composed: the alias is inside its own anchor
                raise _at(
                    f"the alias *{event.anchor} refers to a node that contains it (it never ends)",
                    event.start_mark,
                    path,
                )
            return node
        if len(self._paths) > MAX_DEPTH:
            raise _at(
                f"nested more than {MAX_DEPTH} levels deep (the limit)", self.peek_event().start_mark, _short(path)
            )
        self._paths.append(path)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._paths.pop()
        if node is None:
            return None
        if isinstance(node, yaml.MappingNode):
            self._key_paths[id(node)] = path
            children = [child for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        values, chars, depth = 1, len(node.value) if isinstance(node, yaml.ScalarNode) else 0, 1
        for child in children:
            v, c, d = self._expanded[id(child)]
            values, chars, depth = values + v, chars + c, max(depth, d + 1)
        if values > MAX_NODES:
            raise _at(
                f"stands for more than {MAX_NODES:,} values once its aliases are expanded (the limit)",
                node.start_mark,
                _short(path),
            )
        if chars > MAX_CHARS:
            raise _at(
                f"stands for more than {MAX_CHARS:,} characters of text once its aliases are expanded (the limit)",
                node.start_mark,
                _short(path),
            )
        if depth > MAX_DEPTH:
            raise _at(
                f"is nested more than {MAX_DEPTH} levels deep once its aliases are expanded (the limit)",
                node.start_mark,
                _short(path),
            )
        self._expanded[id(node)] = (values, chars, depth)
        return node

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node)
                if key in seen:
                    path = self._key_paths.get(id(node), "")
                    raise _at(
                        f'the key "{key}" is written twice in one mapping; keep one',
                        key_node.start_mark,
                        f"{path}.{key}" if path else str(key),
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _child_path(path: str, parent, index) -> str:
    """The key path of a node: `a.b[2]` (a mapping's keys share their mapping's path)."""
    if isinstance(parent, yaml.SequenceNode) and isinstance(index, int):
        return f"{path}[{index}]"
    if isinstance(parent, yaml.MappingNode) and isinstance(index, yaml.ScalarNode):
        return f"{path}.{index.value}" if path else str(index.value)
    return path


def _short(path: str) -> str:
    """A key path cut to its first three steps (a deeply nested one is mostly `[0][0]…`)."""
    steps = re.findall(r"[^.\[]+|\[\d+\]", path)
    return (
        path
        if len(steps) <= 3
        else "".join(s if s.startswith("[") or i == 0 else f".{s}" for i, s in enumerate(steps[:3])) + "…"
    )


def load_yaml(text: str) -> object:
    """Every YAML file the harness reads (case.yaml, frontmatter, scripted.yaml) is read by this one loader.
    Raises YamlError (naming the key, where it can) for bad YAML and for YAML over the limits."""
    if len(text) > MAX_CHARS:
        raise YamlError(f"the document is {len(text):,} characters long; the limit is {MAX_CHARS:,}")
    try:
        return yaml.load(text, Loader=Yaml12Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        if mark is None:
            raise YamlError(problem) from None
        raise YamlError(problem, mark.line + 1, mark.column + 1) from None
    except RecursionError:  # the limits above should come first; never let a document crash the reader
        raise YamlError(f"nested too deeply to read (the limit is {MAX_DEPTH} levels)") from None


class FrontmatterError(InvalidSpec, ValueError):
    """A Markdown file whose frontmatter block cannot be split from its body."""


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
