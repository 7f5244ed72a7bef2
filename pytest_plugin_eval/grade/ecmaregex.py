"""ECMAScript regular expressions, run by a real JavaScript engine (QuickJS).

Graders' patterns are JavaScript RegExp source, as in `claude plugin eval`: flags `dgimsuvy`, named groups,
lookbehind, `u`/`v` semantics, UTF-16 counting. Translating them to Python's `re` would be subtly wrong
(`$`, `\\p{L}` without `u`, `(?i)`), so they are compiled and run by QuickJS.

A pattern that backtracks catastrophically (`^(a+)+$` over forty characters) would run for minutes: every
evaluation is stopped by QuickJS itself after TIME_LIMIT_SECONDS of CPU time (or MEMORY_LIMIT_BYTES of memory),
and raises RegexAborted. That CPU time is the process's, which on a loaded machine grows at a fraction of the
wall clock's pace (5 s of it took 20 s on a busy 2-core machine), so a match also has WALL_LIMIT_SECONDS of wall
time: it runs in an engine thread of its own (QuickJS releases the GIL), and a caller still waiting then gives up
on it with RegexAborted — the abandoned evaluation stops at its CPU limit, and its thread goes with it.
"""

from __future__ import annotations

import json
import queue
import re
import threading
from dataclasses import dataclass
from typing import cast

import quickjs

from ..core.errors import HarnessError, InvalidSpec

FLAG_CHARS = "dgimsuvy"
# Per evaluation, measured by QuickJS with clock(): the process's CPU time, so busy threads besides count too.
TIME_LIMIT_SECONDS = 5.0
# Per match (search, count, find), in wall time, whatever share of a core the machine gives the engine.
WALL_LIMIT_SECONDS = 5.0
MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024

_JS = r"""
function __compile(p, f) { return new RegExp(p, f); }
function __check(p, f) {
  try { new RegExp(p, f); return ""; } catch (e) { return String(e.message || e); }
}
function __search(p, f, t) { return new RegExp(p, f).test(t); }
function __count(p, f, t) {
  // String.prototype.match with a global regex: non-overlapping, empty matches counted, sticky stops early.
  var m = t.match(new RegExp(p, f.indexOf("g") < 0 ? f + "g" : f));
  return m === null ? 0 : m.length;
}
function __find(p, f, t, edge) {
  // Where the first match is, for explanations: its line, a little text either side, and the match itself.
  var m = new RegExp(p, f).exec(t);
  if (m === null) return null;
  var end = m.index + m[0].length;
  return JSON.stringify({
    line: t.slice(0, m.index).split("\n").length,
    before: t.slice(Math.max(0, m.index - edge), m.index),
    cutBefore: m.index > edge,
    match: m[0],
    after: t.slice(end, end + edge),
    cutAfter: t.length > end + edge
  });
}
function __stringify(s) { return JSON.stringify(JSON.parse(s)); }
"""


class RegexError(InvalidSpec, ValueError):
    """A pattern or flag string the JavaScript engine refuses."""


class RegexAborted(HarnessError):
    """An evaluation stopped at its time or memory limit (catastrophic backtracking, most likely)."""


_local = threading.local()


def _context() -> quickjs.Context:
    ctx = quickjs.Context()
    ctx.eval(_JS)
    ctx.set_time_limit(TIME_LIMIT_SECONDS)
    ctx.set_memory_limit(MEMORY_LIMIT_BYTES)
    return ctx


def _fn(name: str):
    # A QuickJS context is not thread-safe: one per thread, built on first use.
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = _local.ctx = _context()
    return ctx.get(name)


class _Engine:
    """A thread with a QuickJS context of its own, evaluating for one caller at a time, so that the caller waits
    for the answer in wall time and can give up on it."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="plugin-eval-regex", daemon=True).start()

    def _serve(self) -> None:
        while (request := self._requests.get()) is not None:
            name, args, answer = request
            try:
                answer.put((True, _call(name, *args)))
            except BaseException as e:  # handed to the caller as it is
                answer.put((False, e))

    def call(self, name: str, args: tuple, timeout: float) -> tuple[bool, object]:
        """(True, the value) or (False, the exception raised); queue.Empty after `timeout` seconds."""
        answer: queue.SimpleQueue = queue.SimpleQueue()
        self._requests.put((name, args, answer))
        try:
            return answer.get(timeout=timeout)
        except BaseException:  # out of time, or the caller stopped (a grader given up on): the engine is not
            self._requests.put(None)  # waited for; it reads this once its evaluation ends, and its thread goes
            raise


_idle: list[_Engine] = []  # engines that answered, for the next match
_idle_lock = threading.Lock()


def _match(name: str, *args):
    """`_call` in an engine thread, within WALL_LIMIT_SECONDS of wall time."""
    with _idle_lock:
        engine = _idle.pop() if _idle else _Engine()
    try:
        ok, value = engine.call(name, args, WALL_LIMIT_SECONDS)
    except queue.Empty:
        raise RegexAborted(f"stopped after {WALL_LIMIT_SECONDS:g} s (the limit) — {BACKTRACKS}") from None
    with _idle_lock:
        _idle.append(engine)  # as good as ever after an error too (a context stopped at its limit is replaced)
    if not ok:
        raise cast(BaseException, value)
    return value


def flags_error(flags: object) -> str | None:
    """Why `flags` is not a flag string of the schema (type and alphabet only), or None."""
    if not isinstance(flags, str):
        return "must be a string of JS RegExp flags (d g i m s u v y)"
    if any(c not in FLAG_CHARS for c in flags):
        return "must be JS RegExp flags (d g i m s u v y)"
    return None


def check(pattern: str, flags: str = "") -> str | None:
    """The engine's complaint about `pattern` with `flags` (e.g. 'invalid group'), or None if it compiles."""
    return _fn("__check")(_js_string(pattern), flags) or None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _js_string(value):
    # A lone surrogate (from a JSON escape such as "\\ud83d") cannot cross into the engine: show it as U+FFFD.
    return _LONE_SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value


BACKTRACKS = "the pattern most likely backtracks catastrophically over this text (nested quantifiers such as (a+)+)"


def _call(name: str, *args):
    try:
        return _fn(name)(*(_js_string(a) for a in args))
    except quickjs.JSException as e:
        first = str(e).split("\n")[0]
        if first in ("InternalError: interrupted", "InternalError: out of memory"):
            _local.ctx = None  # a fresh context for the next evaluation
        if first == "InternalError: interrupted":
            raise RegexAborted(
                f"stopped after {TIME_LIMIT_SECONDS:g} s of CPU time (the limit) — {BACKTRACKS}"
            ) from None
        if first == "InternalError: out of memory":
            raise RegexAborted(f"stopped at {MEMORY_LIMIT_BYTES // 2**20} MiB of memory (the limit)") from None
        raise RegexError(first.removeprefix("SyntaxError: ")) from None


def search(pattern: str, flags: str, text: str) -> bool:
    """True if the pattern matches somewhere in `text` (RegExp.prototype.test on a fresh regex)."""
    return bool(_match("__search", pattern, flags, text))


def count(pattern: str, flags: str, text: str) -> int:
    """Number of global, non-overlapping matches, as JavaScript's String.prototype.match counts them."""
    return int(_match("__count", pattern, flags, text))


@dataclass(frozen=True)
class Found:
    """The first match of a pattern: its 1-based line, the match, and up to `edge` characters either side."""

    line: int
    before: str
    match: str
    after: str
    cut_before: bool  # more text precedes `before`
    cut_after: bool  # more text follows `after`


def find(pattern: str, flags: str, text: str, edge: int = 30) -> Found | None:
    """The first match (RegExp.prototype.exec on a fresh regex), or None."""
    raw = _match("__find", pattern, flags, text, edge)
    if raw is None:
        return None
    data = json.loads(raw)
    # Slicing in UTF-16 may split a surrogate pair: show the half as U+FFFD rather than carry it along.
    part = {k: _LONE_SURROGATE.sub("\ufffd", data[k]) for k in ("before", "match", "after")}
    return Found(data["line"], part["before"], part["match"], part["after"], data["cutBefore"], data["cutAfter"])


def compact_json(value: object) -> str:
    """`JSON.stringify(value)` as JavaScript writes it (numbers like 1.0 become 1, non-ASCII stays raw)."""
    return str(_call("__stringify", json.dumps(value, ensure_ascii=False)))
