"""The ``scripted.yaml`` format: what the scripted model answers, per arm, run and turn.

Loading validates the whole file up front and turns it into plain frozen data
classes, so the server never has to interpret YAML and authors see every
mistake before a single run starts. Mistakes are SpecErrors naming the file and
the key, checked with the validators every loader shares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.prices import Usage
from ..core.problems import SpecError, located
from ..core.tools import misspelling_of
from ..core.validate import boolean, known_keys, nonempty_string, seconds, string, subkey, type_name, whole_number
from ..core.yamlio import YamlError, load_yaml

SCRIPT_FILENAME = "scripted.yaml"
ARMS = ("with", "without")

_TOP_KEYS = ("with", "without", "against", "all", "judge", "pairwise", "models", "controls")
ORDERS = ("old_first", "new_first")  # the two orders a pairwise judge sees a pair in (compare --pairwise)
_KINDS = ("text", "tool", "blocks", "error")
_JUDGE_KINDS = ("text", "error")
_MODIFIERS = ("delay", "usage", "drop", "stall", "trickle", "pings", "thinking", "stop", "repeat")
# The stop reasons of the Messages API a reply may end on (`stop:`); by default a reply with a tool call ends on
# tool_use, any other on end_turn.
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn")
_USAGE_KEYS = tuple(Usage.__dataclass_fields__)
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
_PLACEHOLDER = re.compile(r"\{(cwd|arm|run|model)\}")
# What the scripted endpoint reports for a turn without `usage:`; a script's usage overrides it key by key.
DEFAULT_USAGE = Usage(input_tokens=100, output_tokens=20)
_run_number = whole_number(1)
_token_count = whole_number(0)
_repeat = whole_number(1)
# Turns one list may hold after its repeats: far more than any run asks for, and a bounded cost to build.
MAX_TURNS = 10_000


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ToolBlock:
    name: str
    input: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ThinkingBlock:
    """The model's reasoning before it answers (an extended-thinking block)."""

    thinking: str


Block = TextBlock | ToolBlock | ThinkingBlock


@dataclass(frozen=True)
class ErrorReply:
    status: int
    type: str
    message: str
    retry_after: float | None = None


@dataclass(frozen=True)
class Turn:
    """One model reply: content blocks, or an HTTP error, plus how to deliver it."""

    blocks: tuple[Block, ...] = ()
    error: ErrorReply | None = None
    usage: Usage = DEFAULT_USAGE
    delay: float = 0.0
    drop: bool = False
    stall: float = 0.0
    trickle: float = 0.0  # a streamed reply comes one character every `trickle` seconds: slow, but never silent
    pings: float = 0.0  # during a stall, a `ping` event every `pings` seconds: no content, but not silent
    stop: str | None = None  # the reply's stop_reason (None: tool_use with a tool call, else end_turn)

    def substitute(self, values: Mapping[str, str]) -> Turn:
        """Fill ``{cwd}``, ``{arm}``, ``{run}``, ``{model}`` (those present in ``values``) into every string."""
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
    # a grader's replies by arm (and run): `judge: {g: {with: [PASS], without: {1: [PASS], default: [FAIL]}}}`
    judge_by_arm: Mapping[str, Mapping[str, ArmScript]] = field(default_factory=dict)
    pairwise: Mapping[str, tuple[Turn, ...]] = field(default_factory=dict)  # order → one reply per pair
    # `plugin-eval calibrate --controls --scripted`: a grader's (or `default`) reply to each control
    controls: Mapping[str, Mapping[str, Turn]] = field(default_factory=dict)
    # models: a model matrix's model → its own arms, each replacing the script's arm of that name on that model
    by_model: Mapping[str, Mapping[str, ArmScript]] = field(default_factory=dict)

    def turns(self, arm: str, run: int, model: str | None = None) -> tuple[Turn, ...]:
        arm_script = self.by_model.get(model or "", {}).get(arm) or self.arms.get(arm)
        return arm_script.turns(run) if arm_script else ()

    def judge_replies(self, grader: str, arm: str = "with", run: int = 1) -> tuple[Turn, ...]:
        """The grader's own replies (for this arm and run, when the script gives them by arm), else the ``default``
        ones, else a single PASS."""
        by_arm = self.judge_by_arm.get(grader, {}).get(arm)
        if by_arm is not None and by_arm.turns(run):
            return by_arm.turns(run)
        return self.judge.get(grader) or self.judge.get("default") or (text_turn("PASS"),)

    def control_reply(self, grader: str, control: str) -> Turn:
        """What the judge answers a control (`empty`, `inject`, `echo`, `swapped`): the grader's reply, else the
        ``default`` one, else FAIL — a judge that is not fooled."""
        for name in (grader, "default"):
            found = self.controls.get(name, {}).get(control)
            if found is not None:
                return found
        return text_turn("FAIL")

    def pairwise_reply(self, order: str, pair: int) -> Turn | None:
        """What a `compare --pairwise` judge answers for pair `pair` (1-based) shown in `order`: the order's list,
        one reply per pair, the last repeated; None when the script has no `pairwise:` answers."""
        replies = self.pairwise.get(order)
        return replies[min(pair, len(replies)) - 1] if replies else None


def load_script(path: str | Path) -> Script:
    """Read and validate a script file; raises SpecError (naming the file and the key) on any problem."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError.at(path, "", f"cannot read the script: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        data = load_yaml(source)
    except YamlError as exc:
        raise SpecError.at(path, exc.key, f"invalid YAML: {exc}") from None
    return parse_script(data, path)


def parse_script(data: Any, path: str | Path = SCRIPT_FILENAME) -> Script:
    """Validate already-parsed YAML data (``path`` is only used in error messages)."""
    with located(path):
        return _parse_script(data, str(path))


def _parse_script(data: Any, path: str) -> Script:
    if data is None:
        raise SpecError("", "the script is empty; add a `with:` and/or `without:` list of turns")
    if not isinstance(data, dict):
        raise SpecError("", f"the script must be a mapping with keys {_listing(_TOP_KEYS)} (got {type_name(data)})")
    known_keys(data, _TOP_KEYS, "", "a script")
    parsed = {key: _parse_arm(data[key], key) for key in ("all", *ARMS) if key in data}
    # An arm's own key replaces `all` as a whole; `all` is still validated.
    arms = {arm: parsed[arm] if arm in parsed else parsed["all"] for arm in ARMS if arm in parsed or "all" in parsed}
    if "against" in data:  # --against's arm, when it must answer apart from the with arm
        arms["against"] = _parse_arm(data["against"], "against")
    judge, judge_by_arm = _parse_judge(data["judge"]) if "judge" in data else ({}, {})
    pairwise = _parse_pairwise(data["pairwise"]) if "pairwise" in data else {}
    controls = _parse_controls(data["controls"]) if "controls" in data else {}
    return Script(
        path=path,
        arms=arms,
        judge=judge,
        judge_by_arm=judge_by_arm,
        pairwise=pairwise,
        controls=controls,
        by_model=_parse_models(data.get("models")),
    )


def _parse_models(value: Any) -> dict[str, dict[str, ArmScript]]:
    """`models: {MODEL: {with: …, without: …, all: …}}`: what the script answers on one model of a matrix."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecError(
            "models", f"must map a model's name to its arms (with:, without:, all:); got {type_name(value)}"
        )
    out: dict[str, dict[str, ArmScript]] = {}
    for model, arms in value.items():
        key = subkey("models", str(model))
        if not isinstance(arms, dict):
            raise SpecError(key, f"must be a mapping of arms (with:, without:, all:); got {type_name(arms)}")
        known_keys(arms, ("all", *ARMS), key, "a model's arms")
        parsed = {arm: _parse_arm(arms[arm], subkey(key, arm)) for arm in ("all", *ARMS) if arm in arms}
        out[str(model)] = {arm: parsed.get(arm) or parsed["all"] for arm in ARMS if arm in parsed or "all" in parsed}
    return out


def _parse_arm(value: Any, key: str) -> ArmScript:
    if isinstance(value, list):
        return ArmScript(default=_parse_turns(value, key))
    if not isinstance(value, dict):
        message = "an arm is a list of turns, or a mapping from run number or `default` to a list of turns"
        raise SpecError(key, f"{message} (got {type_name(value)})")
    runs: dict[int, tuple[Turn, ...]] = {}
    default: tuple[Turn, ...] = ()
    for run, turns in value.items():
        run_key = subkey(key, run)
        if run == "default":
            default = _parse_turns(turns, run_key)
            continue
        try:
            number = _run_number(run, run_key)
        except SpecError:
            message = "a run key must be a run number (a whole number ≥ 1, first run is 1) or `default`"
            raise SpecError(run_key, message) from None
        runs[number] = _parse_turns(turns, run_key)
    return ArmScript(runs=runs, default=default)


def parse_turns(items: Any, key: str) -> tuple[Turn, ...]:
    """A list of turns as an arm of scripted.yaml holds them (a trigger query's `scripted:` list)."""
    return _parse_turns(items, key)


def _parse_turns(items: Any, key: str, kinds: tuple[str, ...] = _KINDS) -> tuple[Turn, ...]:
    if not isinstance(items, list):
        raise SpecError(key, f"expected a list of turns (got {type_name(items)})")
    turns: list[Turn] = []
    for index, item in enumerate(items):
        turn, repeat = _parse_turn(item, f"{key}[{index}]", kinds)
        if len(turns) + repeat > MAX_TURNS:
            where = f"{key}[{index}]" + (".repeat" if isinstance(item, dict) and "repeat" in item else "")
            raise SpecError(
                where,
                f"a list of turns may hold at most {MAX_TURNS:,} turns once repeats are counted "
                f"(this turn would make it {len(turns) + repeat:,})",
            )
        turns.extend([turn] * repeat)
    return tuple(turns)


def _parse_turn(item: Any, key: str, kinds: tuple[str, ...]) -> tuple[Turn, int]:
    """One turn and how many consecutive requests it answers (its ``repeat``)."""
    if isinstance(item, str):
        return text_turn(item), 1
    if not isinstance(item, dict):
        raise SpecError(key, f"a turn is a string or a mapping with one of {_listing(kinds)} (got {type_name(item)})")
    present = [kind for kind in _KINDS if kind in item]
    if len(present) != 1:
        got = ", ".join(present) or "none"
        raise SpecError(key, f"a turn needs exactly one of {_listing(kinds)} (got: {got})")
    kind = present[0]
    if kind not in kinds:
        raise SpecError(f"{key}.{kind}", f"not allowed here; use one of {_listing(kinds)}")
    allowed = (kind, "input", *_MODIFIERS) if kind == "tool" else (kind, *_MODIFIERS)
    known_keys(item, allowed, key, f"a {kind} turn")

    error: ErrorReply | None = None
    blocks: tuple[Block, ...] = ()
    if kind == "error":
        error = _parse_error(item["error"], f"{key}.error")
    elif kind == "blocks":
        blocks = _parse_blocks(item["blocks"], f"{key}.blocks")
    elif kind == "text":
        blocks = (_text_block(item, key),)
    else:
        blocks = (_tool_block(item, key),)

    if "thinking" in item:
        if error is not None:
            raise SpecError(f"{key}.thinking", "an error has no content; remove thinking")
        blocks = (ThinkingBlock(string(item["thinking"], f"{key}.thinking")), *blocks)
    turn = Turn(
        blocks=blocks,
        error=error,
        usage=_parse_usage(item["usage"], f"{key}.usage") if "usage" in item else DEFAULT_USAGE,
        delay=seconds(item.get("delay", 0), f"{key}.delay"),
        drop=boolean(item.get("drop", False), f"{key}.drop"),
        stall=seconds(item.get("stall", 0), f"{key}.stall"),
        trickle=seconds(item.get("trickle", 0), f"{key}.trickle"),
        pings=seconds(item.get("pings", 0), f"{key}.pings"),
        stop=_parse_stop(item["stop"], f"{key}.stop") if "stop" in item else None,
    )
    if error and (turn.drop or turn.stall or turn.trickle or turn.pings or turn.stop):
        raise SpecError(key, "drop, stall, trickle, pings and stop apply to replies, not errors; remove them")
    return turn, _repeat(item.get("repeat", 1), f"{key}.repeat")


def _parse_stop(value: Any, key: str) -> str:
    reason = string(value, key)
    if reason not in STOP_REASONS:
        raise SpecError(
            key, f"{reason!r} is not a stop reason of the Messages API; use one of {_listing(STOP_REASONS)}"
        )
    return reason


def _parse_blocks(items: Any, key: str) -> tuple[Block, ...]:
    if not isinstance(items, list) or not items:
        raise SpecError(
            key, f"blocks must be a non-empty list of text, thinking or tool blocks (got {type_name(items)})"
        )
    return tuple(_parse_block(item, f"{key}[{index}]") for index, item in enumerate(items))


def _parse_block(item: Any, key: str) -> Block:
    """One entry of a ``blocks`` list: a string, ``{text: ...}``, ``{thinking: ...}`` or ``{tool: ..., input: ...}``
    (several tool blocks in one message are parallel tool calls)."""
    if isinstance(item, str):
        return TextBlock(item)
    if not isinstance(item, dict) or sum(kind in item for kind in ("text", "tool", "thinking")) != 1:
        raise SpecError(key, "a block needs exactly one of text, thinking, tool (blocks take no modifiers)")
    if "thinking" in item:
        known_keys(item, ("thinking",), key, "a thinking block")
        return ThinkingBlock(string(item["thinking"], f"{key}.thinking"))
    if "text" in item:
        known_keys(item, ("text",), key, "a text block")
        return _text_block(item, key)
    known_keys(item, ("tool", "input"), key, "a tool block")
    return _tool_block(item, key)


def _text_block(item: dict, key: str) -> TextBlock:
    return TextBlock(string(item["text"], f"{key}.text"))


def _tool_block(item: dict, key: str) -> ToolBlock:
    name = nonempty_string(item["tool"], f"{key}.tool")
    if meant := misspelling_of(name):  # Claude Code would refuse the call: the run would test a typo
        raise SpecError(f"{key}.tool", f"{name!r} is no tool of Claude Code's — did you mean {meant}?")
    tool_input = item.get("input", {})
    if not isinstance(tool_input, dict):
        raise SpecError(f"{key}.input", f"input must be a mapping of tool arguments (got {type_name(tool_input)})")
    return ToolBlock(name=name, input=tool_input)


def _parse_error(value: Any, key: str) -> ErrorReply:
    if not isinstance(value, dict):
        raise SpecError(key, f"error must be a mapping like {{status: 429}} (got {type_name(value)})")
    known_keys(value, _ERROR_KEYS, key, "an error")
    status = whole_number(400, 599)(value.get("status"), f"{key}.status")
    message = string(value.get("message", f"scripted error (HTTP {status})"), f"{key}.message")
    error_type = string(value.get("type", _ERROR_TYPES.get(status, "api_error")), f"{key}.type")
    retry_after = seconds(value["retry_after"], f"{key}.retry_after") if "retry_after" in value else None
    return ErrorReply(status=status, type=error_type, message=message, retry_after=retry_after)


def _parse_usage(value: Any, key: str) -> Usage:
    if not isinstance(value, dict):
        raise SpecError(key, f"usage must be a mapping of token counts (got {type_name(value)})")
    known_keys(value, _USAGE_KEYS, key, "usage")
    counts = {name: _token_count(count, f"{key}.{name}") for name, count in value.items()}
    return replace(DEFAULT_USAGE, **counts)


def _parse_judge(value: Any) -> tuple[dict[str, tuple[Turn, ...]], dict[str, dict[str, ArmScript]]]:
    if not isinstance(value, dict):
        message = f"judge must map grader names (or `default`) to lists of replies (got {type_name(value)})"
        raise SpecError("judge", message)
    judge: dict[str, tuple[Turn, ...]] = {}
    by_arm: dict[str, dict[str, ArmScript]] = {}
    for grader, replies in value.items():
        key = f"judge.{grader}"
        if isinstance(replies, dict):
            known_keys(replies, ARMS, key, "a grader's replies by arm")
            by_arm[str(grader)] = {arm: _parse_judge_arm(replies[arm], f"{key}.{arm}") for arm in replies}
            continue
        if isinstance(replies, str):
            replies = [replies]
        if not isinstance(replies, list) or not replies:
            message = f"give a reply or a non-empty list of replies, e.g. [PASS, FAIL] (got {type_name(replies)})"
            raise SpecError(key, message)
        # `<empty>` lets a script exercise a judge that says nothing at all.
        replies = ["" if reply == _EMPTY_REPLY else reply for reply in replies]
        judge[str(grader)] = _parse_turns(replies, key, _JUDGE_KINDS)
    return judge, by_arm


def _parse_judge_arm(value: Any, key: str) -> ArmScript:
    """One arm's judge replies: a reply, a list of replies, or a mapping from run number or `default` to them."""
    if not isinstance(value, dict):
        return ArmScript(default=_replies(value, key))
    runs: dict[int, tuple[Turn, ...]] = {}
    default: tuple[Turn, ...] = ()
    for run, replies in value.items():
        run_key = subkey(key, run)
        if run == "default":
            default = _replies(replies, run_key)
            continue
        try:
            number = _run_number(run, run_key)
        except SpecError:
            raise SpecError(run_key, "a run key must be a run number (first run is 1) or `default`") from None
        runs[number] = _replies(replies, run_key)
    return ArmScript(runs=runs, default=default)


CONTROLS = ("empty", "inject", "echo", "swapped")


def _parse_controls(value: Any) -> dict[str, dict[str, Turn]]:
    """`controls:` — grader name (or `default`) → one reply for every control, or a mapping control → reply."""
    if not isinstance(value, dict):
        raise SpecError("controls", f"must map grader names (or `default`) to replies (got {type_name(value)})")
    out: dict[str, dict[str, Turn]] = {}
    for grader, replies in value.items():
        key = f"controls.{grader}"
        if isinstance(replies, dict):
            known_keys(replies, CONTROLS, key, "the controls")
            out[str(grader)] = {name: _replies(reply, f"{key}.{name}")[0] for name, reply in replies.items()}
        else:
            out[str(grader)] = dict.fromkeys(CONTROLS, _replies(replies, key)[0])
    return out


def _replies(value: Any, key: str) -> tuple[Turn, ...]:
    replies = [value] if isinstance(value, str) else value
    if not isinstance(replies, list) or not replies:
        raise SpecError(key, f"give a reply or a non-empty list of replies (got {type_name(value)})")
    return _parse_turns(["" if r == _EMPTY_REPLY else r for r in replies], key, _JUDGE_KINDS)


def _parse_pairwise(value: Any) -> dict[str, tuple[Turn, ...]]:
    """`pairwise:` — the replies of `compare --pairwise` judges: one reply (or list, one per pair) for both orders,
    or a mapping `old_first:` / `new_first:` giving each order its own, so that a script can play a judge that
    prefers a position."""
    if isinstance(value, dict):
        known_keys(value, ORDERS, "pairwise", "pairwise answers")
        missing = [order for order in ORDERS if order not in value]
        if missing:
            raise SpecError("pairwise", f"give both orders, {' and '.join(ORDERS)} (missing: {', '.join(missing)})")
        return {order: _replies(value[order], f"pairwise.{order}") for order in ORDERS}
    replies = _replies(value, "pairwise")
    return dict.fromkeys(ORDERS, replies)


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names)


def _substitute_block(block: Block, values: Mapping[str, str]) -> Block:
    if isinstance(block, TextBlock):
        return TextBlock(_fill(block.text, values))
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(_fill(block.thinking, values))
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
