"""The ``scripted.yaml`` format: what the scripted model answers, per arm, run and turn.

Loading validates the whole file up front and turns it into plain frozen data
classes, so the server never has to interpret YAML and authors see every
mistake before a single run starts.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Union

import yaml

SCRIPT_FILENAME = "scripted.yaml"
ARMS = ("with", "without")

_TOP_KEYS = ("with", "without", "all", "judge")
_KINDS = ("text", "tool", "blocks", "error")
_JUDGE_KINDS = ("text", "error")
_MODIFIERS = ("delay", "usage", "drop", "stall", "repeat")
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
_ERROR_KEYS = ("status", "message", "type", "retry_after")
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_EMPTY_REPLY = "<empty>"
_PLACEHOLDER = re.compile(r"\{(cwd|arm|run)\}")


class ScriptError(ValueError):
    """A problem in a script file, naming the file, the key path and the fix."""

    def __init__(self, path: str | Path, key: str, message: str) -> None:
        self.path = str(path)
        self.key = key
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}: {self.key}" if self.key else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ToolBlock:
    name: str
    input: Mapping[str, Any] = field(default_factory=dict)


Block = Union[TextBlock, ToolBlock]


@dataclass(frozen=True)
class ErrorReply:
    status: int
    type: str
    message: str
    retry_after: float | None = None


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 100
    output_tokens: int = 20
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None

    def as_dict(self) -> dict[str, int]:
        """The usage object of the API: cache fields only when the script set them."""
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class Turn:
    """One model reply: content blocks, or an HTTP error, plus how to deliver it."""

    blocks: tuple[Block, ...] = ()
    error: ErrorReply | None = None
    usage: Usage = Usage()
    delay: float = 0.0
    drop: bool = False
    stall: float = 0.0

    def substitute(self, values: Mapping[str, str]) -> Turn:
        """Fill ``{cwd}``, ``{arm}``, ``{run}`` (those present in ``values``) into every string."""
        blocks = tuple(_substitute_block(block, values) for block in self.blocks)
        error = replace(self.error, message=_fill(self.error.message, values)) if self.error else None
        return replace(self, blocks=blocks, error=error)


def text_turn(text: str) -> Turn:
    return Turn(blocks=(TextBlock(text),))


@dataclass(frozen=True)
class ArmScript:
    """The turns of one arm: a list per run number, and a default list."""

    runs: Mapping[int, tuple[Turn, ...]] = field(default_factory=dict)
    default: tuple[Turn, ...] = ()

    def turns(self, run: int) -> tuple[Turn, ...]:
        return self.runs.get(run, self.default)


@dataclass(frozen=True)
class Script:
    path: str
    arms: Mapping[str, ArmScript] = field(default_factory=dict)
    judge: Mapping[str, tuple[Turn, ...]] = field(default_factory=dict)

    def turns(self, arm: str, run: int) -> tuple[Turn, ...]:
        arm_script = self.arms.get(arm)
        return arm_script.turns(run) if arm_script else ()

    def judge_replies(self, grader: str) -> tuple[Turn, ...]:
        """The grader's own replies, else the ``default`` ones, else a single PASS."""
        return self.judge.get(grader) or self.judge.get("default") or (text_turn("PASS"),)


def load_script(path: str | Path) -> Script:
    """Read and validate a script file; raises ScriptError on any problem."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(path, "", f"cannot read the script: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        raise ScriptError(path, "", _yaml_problem(exc)) from exc
    return parse_script(data, path)


def parse_script(data: Any, path: str | Path = SCRIPT_FILENAME) -> Script:
    """Validate already-parsed YAML data (``path`` is only used in error messages)."""
    path = str(path)
    if data is None:
        raise ScriptError(path, "", "the script is empty; add a `with:` and/or `without:` list of turns")
    if not isinstance(data, dict):
        message = f"the script must be a mapping with keys {_listing(_TOP_KEYS)} (got {_kind_of(data)})"
        raise ScriptError(path, "", message)
    for key in data:
        if key not in _TOP_KEYS:
            raise ScriptError(path, str(key), f"unknown key; use one of {_listing(_TOP_KEYS)}")
    parsed = {key: _parse_arm(data[key], path, key) for key in ("all", *ARMS) if key in data}
    # An arm's own key replaces `all` as a whole; `all` is still validated.
    arms = {arm: parsed[arm] if arm in parsed else parsed["all"] for arm in ARMS if arm in parsed or "all" in parsed}
    judge = _parse_judge(data["judge"], path) if "judge" in data else {}
    return Script(path=path, arms=arms, judge=judge)


def _parse_arm(value: Any, path: str, key: str) -> ArmScript:
    if isinstance(value, list):
        return ArmScript(default=_parse_turns(value, path, key))
    if not isinstance(value, dict):
        message = "an arm is a list of turns, or a mapping from run number or `default` to a list of turns"
        raise ScriptError(path, key, f"{message} (got {_kind_of(value)})")
    runs: dict[int, tuple[Turn, ...]] = {}
    default: tuple[Turn, ...] = ()
    for run, turns in value.items():
        run_key = f"{key}.{run}"
        if run == "default":
            default = _parse_turns(turns, path, run_key)
        elif _is_int(run) and run >= 1:
            runs[run] = _parse_turns(turns, path, run_key)
        else:
            message = "a run key must be a run number (an integer >= 1, first run is 1) or `default`"
            raise ScriptError(path, run_key, message)
    return ArmScript(runs=runs, default=default)


def _parse_turns(items: Any, path: str, key: str, kinds: tuple[str, ...] = _KINDS) -> tuple[Turn, ...]:
    if not isinstance(items, list):
        raise ScriptError(path, key, f"expected a list of turns (got {_kind_of(items)})")
    turns: list[Turn] = []
    for index, item in enumerate(items):
        turn, repeat = _parse_turn(item, path, f"{key}[{index}]", kinds)
        turns.extend([turn] * repeat)
    return tuple(turns)


def _parse_turn(item: Any, path: str, key: str, kinds: tuple[str, ...]) -> tuple[Turn, int]:
    """One turn and how many consecutive requests it answers (its ``repeat``)."""
    if isinstance(item, str):
        return text_turn(item), 1
    if not isinstance(item, dict):
        message = f"a turn is a string or a mapping with one of {_listing(kinds)} (got {_kind_of(item)})"
        raise ScriptError(path, key, message)
    present = [kind for kind in _KINDS if kind in item]
    if len(present) != 1:
        got = ", ".join(present) or "none"
        raise ScriptError(path, key, f"a turn needs exactly one of {_listing(kinds)} (got: {got})")
    kind = present[0]
    if kind not in kinds:
        raise ScriptError(path, f"{key}.{kind}", f"not allowed here; use one of {_listing(kinds)}")
    allowed = (kind, "input", *_MODIFIERS) if kind == "tool" else (kind, *_MODIFIERS)
    _reject_unknown(item, allowed, path, key, f"a {kind} turn")

    if kind == "error":
        error, blocks = _parse_error(item["error"], path, f"{key}.error"), ()
    elif kind == "blocks":
        error, blocks = None, _parse_blocks(item["blocks"], path, f"{key}.blocks")
    elif kind == "text":
        error, blocks = None, (_text_block(item, path, key),)
    else:
        error, blocks = None, (_tool_block(item, path, key),)

    turn = Turn(
        blocks=blocks,
        error=error,
        usage=_parse_usage(item["usage"], path, f"{key}.usage") if "usage" in item else Usage(),
        delay=_seconds(item, "delay", path, key),
        drop=_flag(item, "drop", path, key),
        stall=_seconds(item, "stall", path, key),
    )
    if error and (turn.drop or turn.stall):
        raise ScriptError(path, key, "drop and stall apply to streamed replies, not errors; remove one of them")
    return turn, _repeat(item, path, key)


def _parse_blocks(items: Any, path: str, key: str) -> tuple[Block, ...]:
    if not isinstance(items, list) or not items:
        raise ScriptError(path, key, f"blocks must be a non-empty list of text or tool turns (got {_kind_of(items)})")
    return tuple(_parse_block(item, path, f"{key}[{index}]") for index, item in enumerate(items))


def _parse_block(item: Any, path: str, key: str) -> Block:
    """One entry of a ``blocks`` list: a string, ``{text: ...}`` or ``{tool: ..., input: ...}``."""
    if isinstance(item, str):
        return TextBlock(item)
    if not isinstance(item, dict) or ("text" in item) == ("tool" in item):
        raise ScriptError(path, key, "a block needs exactly one of text, tool (blocks take no modifiers)")
    if "text" in item:
        _reject_unknown(item, ("text",), path, key, "a text block")
        return _text_block(item, path, key)
    _reject_unknown(item, ("tool", "input"), path, key, "a tool block")
    return _tool_block(item, path, key)


def _text_block(item: dict, path: str, key: str) -> TextBlock:
    return TextBlock(_string(item["text"], path, f"{key}.text"))


def _tool_block(item: dict, path: str, key: str) -> ToolBlock:
    name = _string(item["tool"], path, f"{key}.tool")
    if not name:
        raise ScriptError(path, f"{key}.tool", "the tool name is empty; give the tool's name, e.g. Read or Skill")
    tool_input = item.get("input", {})
    if not isinstance(tool_input, dict):
        message = f"input must be a mapping of tool arguments (got {_kind_of(tool_input)})"
        raise ScriptError(path, f"{key}.input", message)
    return ToolBlock(name=name, input=tool_input)


def _parse_error(value: Any, path: str, key: str) -> ErrorReply:
    if not isinstance(value, dict):
        raise ScriptError(path, key, f"error must be a mapping like {{status: 429}} (got {_kind_of(value)})")
    _reject_unknown(value, _ERROR_KEYS, path, key, "an error")
    status = value.get("status")
    if not _is_int(status) or not 400 <= status <= 599:
        raise ScriptError(path, f"{key}.status", "status must be an HTTP error code from 400 to 599, e.g. 429")
    message = _string(value.get("message", f"scripted error (HTTP {status})"), path, f"{key}.message")
    error_type = _string(value.get("type", _ERROR_TYPES.get(status, "api_error")), path, f"{key}.type")
    retry_after = _seconds(value, "retry_after", path, key) if "retry_after" in value else None
    return ErrorReply(status=status, type=error_type, message=message, retry_after=retry_after)


def _parse_usage(value: Any, path: str, key: str) -> Usage:
    if not isinstance(value, dict):
        raise ScriptError(path, key, f"usage must be a mapping of token counts (got {_kind_of(value)})")
    _reject_unknown(value, _USAGE_KEYS, path, key, "usage")
    for name, count in value.items():
        if not _is_int(count) or count < 0:
            raise ScriptError(path, f"{key}.{name}", "a token count must be an integer >= 0")
    return Usage(**value)


def _parse_judge(value: Any, path: str) -> dict[str, tuple[Turn, ...]]:
    if not isinstance(value, dict):
        message = f"judge must map grader names (or `default`) to lists of replies (got {_kind_of(value)})"
        raise ScriptError(path, "judge", message)
    judge: dict[str, tuple[Turn, ...]] = {}
    for grader, replies in value.items():
        key = f"judge.{grader}"
        if isinstance(replies, str):
            replies = [replies]
        if not isinstance(replies, list) or not replies:
            message = f"give a reply or a non-empty list of replies, e.g. [PASS, FAIL] (got {_kind_of(replies)})"
            raise ScriptError(path, key, message)
        # `<empty>` lets a script exercise a judge that says nothing at all.
        replies = ["" if reply == _EMPTY_REPLY else reply for reply in replies]
        judge[str(grader)] = _parse_turns(replies, path, key, _JUDGE_KINDS)
    return judge


def _repeat(item: dict, path: str, key: str) -> int:
    repeat = item.get("repeat", 1)
    if not _is_int(repeat) or repeat < 1:
        message = "repeat must be an integer >= 1 (how many consecutive requests this turn answers)"
        raise ScriptError(path, f"{key}.repeat", message)
    return repeat


def _seconds(item: dict, name: str, path: str, key: str) -> float:
    value = item.get(name, 0)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise ScriptError(path, f"{key}.{name}", f"{name} must be a number of seconds >= 0 (got {value!r})")
    return float(value)


def _flag(item: dict, name: str, path: str, key: str) -> bool:
    value = item.get(name, False)
    if not isinstance(value, bool):
        raise ScriptError(path, f"{key}.{name}", f"{name} must be true or false (got {value!r})")
    return value


def _string(value: Any, path: str, key: str) -> str:
    if not isinstance(value, str):
        raise ScriptError(path, key, f"expected a string (got {_kind_of(value)}); quote the value")
    return value


def _reject_unknown(item: dict, allowed: tuple[str, ...], path: str, key: str, what: str) -> None:
    for name in item:
        if name not in allowed:
            raise ScriptError(path, f"{key}.{name}", f"unknown key; {what} takes only {_listing(allowed)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind_of(value: Any) -> str:
    """The YAML name of a value's type, for error messages."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _substitute_block(block: Block, values: Mapping[str, str]) -> Block:
    if isinstance(block, TextBlock):
        return TextBlock(_fill(block.text, values))
    return ToolBlock(name=block.name, input=_fill_values(block.input, values))


def _fill_values(value: Any, values: Mapping[str, str]) -> Any:
    """Substitute placeholders in every string value of nested tool input (keys stay)."""
    if isinstance(value, str):
        return _fill(value, values)
    if isinstance(value, dict):
        return {key: _fill_values(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill_values(item, values) for item in value]
    return value


def _fill(text: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), text)
