"""A run's trace read as a conversation: trace.jsonl events become entries (the prompt, the session start,
assistant text, tool calls and their results, thinking, text Claude Code added, the final result), each cut to
a size a page can hold. The templates only lay the entries out."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from ..run.transcript import Transcript
from .view import cut, usd, yamlish

RESULT_CHARS = 2_000  # one tool result
BLOCK_CHARS = 20_000  # any other block (assistant text, tool input, the prompt)
TRANSCRIPT_CHARS = 200_000  # one run's conversation; beyond it the middle is left out
SUMMARY_CHARS = 120  # the first line of folded text, shown as its summary


@dataclass(frozen=True)
class Entry:
    """One message. `kind` holds its style classes ("tool skill", "result error"…); the label is `who`, then
    `code` (a tool's name) — or the `skill` badge instead for a Skill call."""

    kind: str
    who: str = ""
    code: str | None = None
    skill: str | None = None
    texts: tuple[str, ...] = ()  # preformatted blocks
    fold: str | None = None  # the blocks are collapsed under this summary
    subagent: bool = False  # said inside a subagent (indented)

    @property
    def size(self) -> int:
        return len(self.who) + len(self.code or "") + len(self.skill or "") + sum(map(len, self.texts))


@dataclass(frozen=True)
class Conversation:
    """The entries that fit: all of them, or a head and a tail with `omitted` entries of `omitted_chars` cut."""

    head: list[Entry]
    tail: list[Entry]
    omitted: int = 0
    omitted_chars: int = 0

    @property
    def omitted_size(self) -> str:
        return f"{self.omitted_chars:,}"


# Who wrote a user message of a conversation (RunResult.conversation), as its label says it.
WRITERS = {"scripted": "User · scripted turn", "simulated": "User · simulated"}


def conversation(trace_text: str, prompt: str, said: list[dict] | None = None) -> Conversation:
    """`said`: a conversation's user messages and who wrote each (RunResult.conversation's `messages`), so that the
    user messages Claude Code replayed into the trace are labelled scripted or simulated; the first is the
    prompt, shown once."""
    entries = [Entry("user", "User prompt", texts=(cut(prompt, BLOCK_CHARS),))]
    entries += _replays_marked(_entries(Transcript(trace_text).events), said or [])
    return _fit(entries, TRANSCRIPT_CHARS)


def _replays_marked(entries: list[Entry], said: list[dict]) -> list[Entry]:
    out, seen = [], 0
    for entry in entries:
        if entry.kind != "user replay":
            out.append(entry)
            continue
        seen += 1
        if seen == 1:
            continue  # the prompt, already shown
        by = str(said[seen - 1].get("by")) if seen <= len(said) and isinstance(said[seen - 1], dict) else ""
        out.append(dataclasses.replace(entry, kind=f"user {by}".strip(), who=WRITERS.get(by, "User")))
    return out


def _fit(entries: list[Entry], budget: int) -> Conversation:
    """All entries when they fit in `budget` characters; else the head and the tail that do."""
    if sum(e.size for e in entries) <= budget:
        return Conversation(entries, [])
    head = _within(entries, budget // 2)
    tail = _within(entries[len(head) :][::-1], budget // 2)[::-1]
    omitted = entries[len(head) : len(entries) - len(tail)]
    return Conversation(head, tail, len(omitted), sum(e.size for e in omitted))


def _within(entries: list[Entry], budget: int) -> list[Entry]:
    """The leading entries whose sizes add up to at most `budget`."""
    size = 0
    for count, entry in enumerate(entries):
        size += entry.size
        if size > budget:
            return entries[:count]
    return entries


def _blocks(event: dict) -> list[dict]:
    content = (event.get("message") or {}).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def _entries(events: list[dict]) -> list[Entry]:
    tool_names: dict[str, str] = {}  # tool_use id → name, to label each result with its call
    out: list[Entry] = []
    for event in events:
        kind = event.get("type")
        sub = bool(event.get("parent_tool_use_id"))
        if kind == "system":
            if event.get("subtype") != "hook_started":  # its hook_response says all of it
                out.append(_system(event))
        elif kind == "assistant":
            out += [_assistant(event, block, tool_names, sub) for block in _blocks(event)]
        elif kind == "user":
            out += [_user(event, block, tool_names, sub) for block in _blocks(event)]
        elif kind == "result":
            out.append(_final(event))
    return out


def _system(event: dict) -> Entry:
    if event.get("subtype") == "hook_response":
        return _hook(event)
    if event.get("subtype") != "init":
        return Entry("system", f"system: {event.get('subtype', '?')}")
    plugins = ", ".join(str(p.get("name")) for p in event.get("plugins") or [] if isinstance(p, dict)) or "none"
    facts = (
        f"Claude Code {event.get('claude_code_version', '?')} · model {event.get('model', '?')} · plugins: {plugins}"
    )
    return Entry("system", "Session start", texts=(facts, *_skills(event)))


def _hook(event: dict) -> Entry:
    """A plugin hook's run (a SessionStart hook's output is what the model is given: some plugins are only that)."""
    name = str(event.get("hook_name") or event.get("hook_event") or "?")
    outcome = str(event.get("outcome") or "?") + (f", exit {event['exit_code']}" if "exit_code" in event else "")
    texts = [cut(str(event.get(key) or ""), BLOCK_CHARS) for key in ("stdout", "stderr")]
    if not any(texts):
        texts = [cut(str(event.get("output") or ""), BLOCK_CHARS)]
    return Entry("system", f"Hook {name} ({outcome})", texts=tuple(t for t in texts if t) or ("(no output)",))


def _skills(event: dict) -> list[str]:
    """The skills the run had, the plugins' apart from Claude Code's own (built in, in both arms)."""
    skills = [str(s) for s in event.get("skills") or [] if isinstance(s, str)]
    loaded = {
        str(p.get("name"))
        for p in event.get("plugins") or []
        if isinstance(p, dict) and p.get("path") != "builtin" and not str(p.get("source", "")).endswith("@builtin")
    }
    ours = [s for s in skills if s.split(":", 1)[0] in loaded and ":" in s]
    builtin = [s for s in skills if s not in ours]
    if not skills:
        return []
    return [f"plugin skills: {', '.join(ours) or 'none'} · built-in skills (both arms): {', '.join(builtin) or 'none'}"]


def _assistant(event: dict, block: dict, tool_names: dict[str, str], sub: bool) -> Entry:
    kind = block.get("type")
    if kind == "text":
        text = cut(str(block.get("text", "")), BLOCK_CHARS)
        if event.get("error"):
            return Entry("assistant error", f"Assistant · error: {event['error']}", texts=(text,), subagent=sub)
        return Entry("assistant", "Assistant", texts=(text,), subagent=sub)
    if kind == "tool_use":
        name = str(block.get("name", "?"))
        tool_names[str(block.get("id"))] = name
        given = block.get("input")
        data = cut(yamlish(given) if isinstance(given, dict) else json.dumps(given, ensure_ascii=False), BLOCK_CHARS)
        if name == "Skill":
            skill = given.get("skill", "?") if isinstance(given, dict) else "?"
            return Entry("tool skill", skill=str(skill), texts=(data,), subagent=sub)
        return Entry("tool", "Tool call", code=name, texts=(data,), subagent=sub)
    if kind == "thinking":
        text = str(block.get("thinking", ""))
        return Entry(
            "thinking", "Thinking", texts=(cut(text, BLOCK_CHARS),), fold=f"{len(text):,} characters", subagent=sub
        )
    return Entry("system", f"assistant block: {kind}", subagent=sub)


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            if isinstance(b, dict) and b.get("type") == "text"
            else f"[{b.get('type', '?') if isinstance(b, dict) else 'value'}]"
            for b in content
        )
    return json.dumps(content, ensure_ascii=False)


def _user(event: dict, block: dict, tool_names: dict[str, str], sub: bool) -> Entry:
    kind = block.get("type")
    if kind == "tool_result":
        name = tool_names.get(str(block.get("tool_use_id")), "tool")
        text = cut(_result_text(block.get("content")), RESULT_CHARS)
        if block.get("is_error"):
            return Entry("result error", "Error from", code=name, texts=(text,), subagent=sub)
        return Entry("result", "Result of", code=name, texts=(text,), subagent=sub)
    text = str(block.get("text", "")) if kind == "text" else f"[{kind}]"
    if event.get("isSynthetic"):
        # Text Claude Code adds as the user (a loaded skill's instructions): long, and not what the user said.
        return Entry(
            "synthetic",
            "Added by Claude Code",
            texts=(cut(text, BLOCK_CHARS),),
            fold=text.split("\n", 1)[0][:SUMMARY_CHARS],
            subagent=sub,
        )
    if event.get("isReplay"):  # a conversation's user message, as Claude Code replays it (_replays_marked)
        return Entry("user replay", "User", texts=(cut(text, BLOCK_CHARS),), subagent=sub)
    return Entry("user", "User", texts=(cut(text, BLOCK_CHARS),), subagent=sub)


def _final(event: dict) -> Entry:
    subtype = str(event.get("subtype", "?"))
    facts = [subtype, f"{event.get('num_turns', '?')} turns", usd(event.get("total_cost_usd"))]
    if event.get("stop_reason"):
        facts.append(f"stop reason: {event['stop_reason']}")
    texts = [" · ".join(facts)]
    errors = event.get("errors")
    if errors:
        texts.append("\n".join(map(str, errors if isinstance(errors, list) else [errors])))
    failed = subtype != "success" or event.get("is_error")
    return Entry("final error" if failed else "final", "Result", texts=tuple(texts))


@dataclass(frozen=True)
class Trace:
    """A run's kept trace: its conversation, or why there is none (`path` None: none was kept)."""

    path: str | None
    problem: str | None = None
    conversation: Conversation | None = None


def trace(trace_path: str | None, prompt: str, said: list[dict] | None = None) -> Trace:
    if not trace_path:
        return Trace(None)
    try:
        text = Path(trace_path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return Trace(trace_path, problem=str(e.strerror or e))
    return Trace(trace_path, conversation=conversation(text, prompt, said))
