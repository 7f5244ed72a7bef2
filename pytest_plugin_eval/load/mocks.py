"""Mock files, read and validated when the case loads.

`mocks/<server>/<tool>.md` answers one tool of one MCP server: its body is the tool's result (`type: fixed`,
the default) or the description of a server a small model plays (`type: agent`). `mocks/<server>/_server.md`
is an agent answering several tools; `_tools.json` is a recorded tools/list answer (real descriptions and
schemas). Mock folders sit at the suite level (`evals/mocks/`), at any group level, and in the case; a lower
level overrides the levels above it tool by tool. Every configuration problem is a load error naming the file
and the key — before any money is spent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.paths import within_suite
from ..core.problems import SpecError, located
from ..core.validate import boolean, known_keys, one_of, string, type_name
from ..core.yamlio import FrontmatterError, YamlError, split_frontmatter

MOCKS_DIR = "mocks"
REPLAY_DIR = ".replay"
SERVER_FILE = "_server.md"
TOOLS_FILE = "_tools.json"
INFO_MARK = "ℹ"  # a notice that informs about the set-up: the report shows it below the results, not as a banner
NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
TYPE_NAMES = {
    "string": "string",
    "number": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
}
MAX_GUARDS = 32
KEYS = ("type", "expect", "error", "tools", "abort_when")
_responder_kind = one_of("fixed", "agent")
# A small regex dialect that means the same in Python and JavaScript: no groups, alternation or lookaround.
FORBIDDEN_IN_REGEX = re.compile(r"(?<!\\)[(|]")
PLACEHOLDER = re.compile(r"^\s*TODO\b")  # a body still saying what to write, not the answer


@dataclass(frozen=True)
class Guard:
    path: str
    kind: str  # "type" | "enum" | "regex"
    value: object

    def to_config(self) -> dict:
        return {"path": self.path, "kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class Responder:
    tool: str
    kind: str  # "fixed" | "agent"
    body: str  # fixed: the result template; agent: the server description
    source: Path  # the file it was read from
    is_error: bool = False
    guards: tuple[Guard, ...] = ()
    abort_when: str | None = None

    def to_config(self) -> dict:
        out: dict[str, object] = {
            "kind": self.kind,
            "guards": [g.to_config() for g in self.guards],
            "baseDir": str(self.source.parent),
        }
        if self.kind == "fixed":
            out.update(body=self.body, isError=self.is_error)
        else:
            out.update(description=self.body, abortWhen=self.abort_when)
        return out


@dataclass(frozen=True)
class ServerMocks:
    """The merged mocks of one server folder for one case."""

    name: str
    responders: dict[str, Responder] = field(default_factory=dict)
    tools_json: dict[str, dict] = field(default_factory=dict)  # tool → {name, description, inputSchema}
    replay_dir: Path | None = None
    notes: tuple[str, ...] = ()

    def tool_listing(self) -> list[dict]:
        """The tools/list answer (mocked tools only): the recorded entry, else a permissive one."""
        permissive = {"description": "", "inputSchema": {"type": "object", "additionalProperties": True}}
        return [self.tools_json.get(name) or {"name": name, **permissive} for name in sorted(self.responders)]

    def unlisted(self) -> list[str]:
        """The mocked tools with no entry in _tools.json: Claude sees them with no description or schema."""
        return [name for name in sorted(self.responders) if name not in self.tools_json]

    def unlisted_notice(self) -> str | None:
        """Said once per server and session (the text names no case), below the results rather than above."""
        missing = self.unlisted()
        if not missing:
            return None
        return (
            f"{INFO_MARK} mocks/{self.name}/: {len(missing)} mocked tool{'s' if len(missing) > 1 else ''} "
            f"{'have' if len(missing) > 1 else 'has'} no entry in {TOOLS_FILE} ({', '.join(missing)}) — Claude "
            f"sees {'them' if len(missing) > 1 else 'it'} with no description and a permissive schema, not as the "
            f"real server describes {'them' if len(missing) > 1 else 'it'}; save the real server's tools/list "
            f"answer as mocks/{self.name}/{TOOLS_FILE} (docs/mocks.md shows how)"
        )


@dataclass(frozen=True)
class MockSet:
    servers: dict[str, ServerMocks] = field(default_factory=dict)

    def mocked(self) -> tuple[str, ...]:
        """The servers that get a stand-in: those with at least one responder (an empty folder mocks nothing)."""
        return tuple(sorted(name for name, server in self.servers.items() if server.responders))


# ---- reading one layer ------------------------------------------------------------------------------------


def _guards(raw: object, prefix: str = "expect") -> list[Guard]:
    if not isinstance(raw, dict):
        raise SpecError(prefix, f"must be a mapping of input fields to guards (got {type_name(raw)})")
    guards: list[Guard] = []
    for key, value in raw.items():
        path = f"{prefix}.{key}"
        dotted = path.split(".", 1)[1]
        if isinstance(value, dict):
            guards += _guards(value, path)
        elif isinstance(value, list):
            if not value:
                raise SpecError(path, "an empty list of allowed values can never be satisfied — list at least one")
            guards.append(Guard(dotted, "enum", [_as_js_string(v) for v in value]))
        elif isinstance(value, str) and value.startswith("/"):
            guards.append(Guard(dotted, "regex", _regex_guard(value, path)))
        elif isinstance(value, str) and value in TYPE_NAMES:
            guards.append(Guard(dotted, "type", TYPE_NAMES[value]))
        else:
            raise SpecError(
                path, f"must be a type ({', '.join(TYPE_NAMES)}), a list of allowed values, or /regex/ (got {value!r})"
            )
    return guards


def _as_js_string(value: object) -> str:
    """A literal as JavaScript's String() writes it: allowed values compare as strings (42 matches "42")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _regex_guard(text: str, key: str) -> dict:
    end = text.rfind("/")
    if end <= 0:
        raise SpecError(key, f"{text!r} is not /regex/flags")
    source, flags = text[1:end], text[end + 1 :]
    if set(flags) - set("is"):
        raise SpecError(key, f"{text}: only the i and s flags are supported")
    if FORBIDDEN_IN_REGEX.search(source) or "(?" in source:
        raise SpecError(
            key,
            f"{text} — expect: /regex/ guards use a small dialect without groups, | or "
            f"lookaround, so that they mean the same everywhere; write a character class or "
            f"several guards instead",
        )
    try:
        re.compile(source)
    except re.error as e:
        raise SpecError(key, f"invalid regular expression /{source}/ ({e})") from None
    return {"source": source, "flags": flags}


def _read_md(file: Path) -> tuple[dict, str]:
    try:
        meta, body = split_frontmatter(file.read_text(encoding="utf-8"))
    except YamlError as e:
        raise SpecError(f"frontmatter.{e.key}" if e.key else "frontmatter", str(e)) from None
    except FrontmatterError as e:
        raise SpecError("frontmatter", str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError("", f"cannot be read: {e}") from None
    meta = meta or {}
    known_keys(meta, KEYS, "", "mock files")
    return meta, body.strip()


def responder_from(file: Path, tool: str) -> Responder:
    with located(file):
        meta, body = _read_md(file)
        kind = _responder_kind(meta.get("type", "fixed"), "type")
        if "tools" in meta:
            raise SpecError("tools", f"belongs in {SERVER_FILE} (a tool file answers one tool: its own)")
        if "abort_when" in meta and kind != "agent":
            raise SpecError("abort_when", "needs `type: agent` (a fixed answer cannot decide to abort)")
        if "error" in meta and kind != "fixed":
            raise SpecError("error", "applies to fixed responders only (an agent answers `ERROR: …` itself)")
        is_error = boolean(meta.get("error", False), "error")
        if PLACEHOLDER.match(body):
            raise SpecError("", "still holds the placeholder — write the tool's canned answer as the body")
        if kind == "agent" and not body:
            raise SpecError("", "an agent responder needs a description of the server it plays as its body")
        guards = _guards(meta["expect"]) if "expect" in meta else []
        if len(guards) > MAX_GUARDS:
            raise SpecError("expect", f"{len(guards)} guards is more than the {MAX_GUARDS} one responder may carry")
        abort_when = meta.get("abort_when")
        if abort_when is not None:
            string(abort_when, "abort_when")
    return Responder(tool, kind, body, file, is_error, tuple(guards), abort_when)


def server_responders(file: Path) -> dict[str, Responder]:
    """_server.md: one agent answering the listed tools."""
    with located(file):
        meta, body = _read_md(file)
        if meta.get("type") != "agent":
            raise SpecError(
                "type",
                "only `type: agent` is meaningful in _server.md: write `type: agent` (a fixed "
                "answer belongs in <tool>.md)",
            )
        tools = meta.get("tools")
        if not isinstance(tools, list) or not tools or not all(isinstance(t, str) and NAME_RE.match(t) for t in tools):
            raise SpecError("tools", "an agent answering several tools needs `tools: [tool_a, tool_b]`")
        if not body:
            raise SpecError("", "an agent responder needs a description of the server it plays as its body")
        guards = _guards(meta["expect"]) if "expect" in meta else []
    return {tool: Responder(tool, "agent", body, file, False, tuple(guards), meta.get("abort_when")) for tool in tools}


def tools_json(file: Path) -> dict[str, dict]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:  # RecursionError: JSON nested too deeply to read
        raise SpecError.at(file, "", f"not valid JSON ({e})") from None
    if isinstance(data, dict) and isinstance(data.get("result"), dict):
        data = data["result"]
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools):
        raise SpecError.at(
            file, "", 'expected a saved tools/list response ({"tools": [{"name", "description", "inputSchema"}, …]})'
        )
    return {
        t["name"]: {
            "name": t["name"],
            "description": t.get("description", ""),
            "inputSchema": t.get("inputSchema") or {"type": "object"},
        }
        for t in tools
    }


def read_server_dir(folder: Path, eval_root: Path | None = None) -> tuple[dict[str, Responder], dict[str, dict]]:
    if eval_root is not None:
        for file in folder.iterdir():
            if not within_suite(file, eval_root):  # the file or a folder above it links out of the suite
                raise SpecError.at(
                    file, "", "is reached through a symlink out of the suite; mock files must live inside it"
                )
    if not NAME_RE.match(folder.name) or "__" in folder.name:
        raise SpecError.at(
            folder,
            "",
            f'mocks/"{folder.name}"/: name the directory after the server (letters, digits, "_" and "-"; no "__")',
        )
    responders: dict[str, Responder] = {}
    for file in sorted(folder.glob("*.md")):
        if file.name == SERVER_FILE:
            responders.update(server_responders(file))
            continue
        tool = file.name[:-3]
        if "__" in tool:
            raise SpecError.at(file, "", '"__" is the tool-name separator and cannot appear in a mocked tool name')
        if not NAME_RE.match(tool):
            raise SpecError.at(
                file,
                "",
                f'mocks/{folder.name}/"{file.name}": name responder files after the tool '
                f'(letters, digits, "_" and "-", then .md)',
            )
        responders[tool] = responder_from(file, tool)
    tools = tools_json(folder / TOOLS_FILE) if (folder / TOOLS_FILE).exists() else {}
    return responders, tools


# ---- the layers of a case ---------------------------------------------------------------------------------


def layers(case_dir: Path, eval_root: Path) -> list[Path]:
    """mocks/ folders that apply to a case, outermost first: the suite's, each group's, the case's."""
    out = []
    chain = [case_dir, *[p for p in case_dir.parents if eval_root in p.parents or p == eval_root]]
    for folder in reversed(chain):
        if (folder / MOCKS_DIR).is_dir():
            out.append(folder / MOCKS_DIR)
    return out


def load_mocks(case_dir: Path, eval_root: Path) -> MockSet:
    """Every server mocked for this case, lower levels overriding higher ones tool by tool. Raises SpecError."""
    responders: dict[str, dict[str, Responder]] = {}
    recorded: dict[str, dict[str, dict]] = {}
    replay: dict[str, Path] = {}
    for layer in layers(case_dir, eval_root):
        for folder in sorted(p for p in layer.iterdir() if p.is_dir() and p.name != REPLAY_DIR):
            found, tools = read_server_dir(folder, eval_root)
            responders.setdefault(folder.name, {}).update(found)
            recorded.setdefault(folder.name, {}).update(tools)
        for folder in sorted((layer / REPLAY_DIR).iterdir()) if (layer / REPLAY_DIR).is_dir() else ():
            replay[folder.name] = folder
    servers = {}
    for name, found in responders.items():
        notes = (
            ()
            if found
            else (f"mocks/{name}/ has no <tool>.md responders — nothing is mocked, and the server is not started",)
        )
        servers[name] = ServerMocks(name, found, recorded.get(name, {}), replay.get(name), notes)
    return MockSet(servers)
