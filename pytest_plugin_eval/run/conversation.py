"""A run that talks back: the case's scripted turns, its answers to the agent's questions, a simulated user.

A one-prompt run pipes its prompt as text and closes stdin (run/agent.py). A conversation keeps the session open
instead: the child reads stream-json from stdin (`--input-format stream-json`), so that each time the agent ends a
turn (a `result` line in the trace) the next user message is written to the same session, its context kept.

Questions are answered through the Agent SDK's control protocol on the same stdin, in two steps, so that the run
stays in Claude Code's evaluation mode (CLAUDE_CODE_EVAL_CONFINED, as every run): the dialogue first registers a
PreToolUse hook for `AskUserQuestion` (an `initialize` request); each call arrives as a `hook_callback` request,
which the dialogue answers with `permissionDecision: ask` and the answers in `updatedInput`; a decision of `ask`
makes Claude Code ask its permission prompt tool (`--permission-prompt-tool stdio`) even in dontAsk mode, and that
`can_use_tool` request is answered `allow` with the same input — Claude Code's AskUserQuestion reads the answers
from it, and the agent gets its ordinary tool result. A hook's `allow` is no way round: evaluation mode refuses
it for a tool that needs the user; nor is a `deny` that carries the answer (the agent reads a hook error), a
PostToolUse hook (a refused call has no output to replace) or the permission prompt alone (in default mode, with
no hook, the call is refused without a prompt) — measured with 2.1.327 and 2.1.328. Any other
`can_use_tool` request (a tool the run did not grant, a plugin hook's `ask`) is refused, as dontAsk mode refuses.
Without `--permission-prompt-tool stdio`, Claude Code started from the SDK's entrypoint disables AskUserQuestion
altogether (no one could answer).

The trace (the child's stdout) holds every line of it: the user's messages as Claude Code replays them
(`--replay-user-messages`), the control requests, one `result` line per turn. Who wrote each user message — the
prompt, the case's `turns:`, the simulated user — and how each question was answered is kept beside it
(`Dialogue.said`, `Dialogue.asked`), since the trace cannot say.

`max_turns` and `timeout_seconds` cover the whole conversation: Claude Code counts turns per message, so the
dialogue adds them up and says no more once they reach the case's limit.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from ..load.conversation import Conversation
from .agent import Child, RunError

QUESTIONS = "AskUserQuestion"
DONE = "END_CONVERSATION"  # what the simulated user writes when the user is done
CONFINED = "CLAUDE_CODE_EVAL_CONFINED"
# The flags that turn a one-prompt run into a conversation.
FLAGS = ("--input-format", "stream-json", "--replay-user-messages", "--permission-prompt-tool", "stdio")
HOOK_ID = "plugin-eval-ask"  # the PreToolUse hook callback that answers AskUserQuestion
# Worded as Claude Code words its own refusal, so that run/refusals.py reads it as one ("permission denied").
DENIED = "Permission to use {tool} has been denied: an eval run grants no tool beyond its allowed tools"
UNANSWERED = "Nobody answered: the eval case has no answer for {questions}"

By = Literal["prompt", "scripted", "simulated"]


@dataclass(frozen=True)
class Said:
    """One user message of the conversation, and who wrote it."""

    text: str
    by: By

    def to_json(self) -> dict:
        return {"by": self.by, "text": self.text}


@dataclass(frozen=True)
class Asked:
    """One question of an AskUserQuestion call, and its answer (None: nobody could answer it) and where the answer
    came from (`answers` or `simulated`)."""

    question: str
    header: str = ""
    answer: str | None = None
    by: str | None = None

    def to_json(self) -> dict:
        return {"question": self.question, "header": self.header, "answer": self.answer, "by": self.by}


class UserReply(NamedTuple):
    """What the simulated user wrote: a message (or an answer), whether they are done, what it cost."""

    text: str
    done: bool
    cost_usd: float


# The simulated user: (the conversation so far as (role, text) pairs, the question asked or None at the end of the
# agent's turn) → its reply. Given by the engine (grade/simulated_user.py on the judge's client).
UserModel = Callable[[Sequence[tuple[str, str]], "dict | None"], UserReply]


def initialize() -> dict:
    """The control request that registers the AskUserQuestion hook, written before the first message."""
    hooks = {"PreToolUse": [{"matcher": QUESTIONS, "hookCallbackIds": [HOOK_ID]}]}
    return {
        "type": "control_request",
        "request_id": "plugin-eval-init",
        "request": {"subtype": "initialize", "hooks": hooks},
    }


def hook_decision(decision: str, **fields: object) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, **fields}}


def user_message(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None, "session_id": ""}


def control_reply(request_id: str, response: dict) -> dict:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    }


def control_error(request_id: str, error: str) -> dict:
    return {"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": error}}


class TraceTail:
    """The new whole lines of a growing trace file, parsed (a line still being written waits for its end)."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.partial = b""

    def events(self) -> list[dict]:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return []
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if isinstance(event, dict):
                    out.append(event)
        return out


@dataclass
class Dialogue:
    """The user's side of one conversation: reads the agent's events, writes the user's messages and answers."""

    conversation: Conversation
    send: Callable[[dict], None]  # a line to the child's stdin
    end: Callable[[], None]  # close the child's stdin: the conversation is over
    max_turns: int
    user: UserModel | None = None
    may_spend: Callable[[float], bool] = lambda _spent: True  # the cost ceiling, given what this run has spent
    said: list[Said] = field(default_factory=list)
    asked: list[Asked] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    user_cost_usd: float = 0.0
    error: RunError | None = None
    user_capped: bool = False  # the simulated user reached its max_user_turns (the results document says so)
    _history: list[tuple[str, str]] = field(default_factory=list)
    _turns_used: int = 0
    _agent_cost: float = 0.0
    _next_turn: int = 0
    _simulated: int = 0  # what the simulated user wrote: its messages and its answers, both held by max_user_turns
    _over: bool = False
    _answering: dict[str, dict] = field(default_factory=dict)  # tool_use_id → the input with its answers

    def open(self, prompt: str) -> None:
        self.send(initialize())
        self._say(prompt, "prompt")

    def _say(self, text: str, by: By) -> None:
        self.said.append(Said(text, by))
        self._history.append(("user", text))
        self.send(user_message(text))

    def _finish(self) -> None:
        if not self._over:
            self._over = True
            self.end()

    def on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "assistant" and event.get("parent_tool_use_id") is None:
            for block in (event.get("message") or {}).get("content") or ():
                if isinstance(block, dict) and block.get("type") == "text" and block.get("text"):
                    self._history.append(("agent", str(block["text"])))
        elif kind == "control_request":
            self._on_request(event)
        elif kind == "result":
            self._on_result(event)

    # -- the agent ended a turn ------------------------------------------------------------------------------

    def _on_result(self, result: dict) -> None:
        if self._over:
            return
        if isinstance(result.get("num_turns"), int):
            self._turns_used += result["num_turns"]
        if isinstance(result.get("total_cost_usd"), (int, float)):
            self._agent_cost = float(result["total_cost_usd"])  # Claude Code's total for the session so far
        if result.get("is_error") or result.get("subtype") != "success":
            self._finish()  # the turn failed: the run ends on it, as a one-prompt run would
            return
        if self._next_turn < len(self.conversation.turns):
            if self._out_of_turns():
                return
            self._next_turn += 1
            self._say(self.conversation.turns[self._next_turn - 1], "scripted")
            return
        if self.user is None or self.conversation.user is None:
            self._finish()
            return
        if self._capped():
            self.notes.append(
                f"the simulated user wrote its max_user_turns ({self.conversation.user.max_user_turns}) "
                "replies and answers without saying it was done: the conversation ended there"
            )
            self._finish()
            return
        reply = self._ask_user(None)
        if reply is None or reply.done or not reply.text.strip():
            self._finish()
            return
        if self._out_of_turns():
            return
        self._simulated += 1
        self._say(reply.text.strip(), "simulated")

    def _capped(self) -> bool:
        """Whether the simulated user has written its max_user_turns replies (messages and answers alike)."""
        assert self.conversation.user is not None
        if self._simulated < self.conversation.user.max_user_turns:
            return False
        self.user_capped = True
        return True

    def _out_of_turns(self) -> bool:
        """Whether the conversation has used its max_turns (then it ends as a max_turns error of the run)."""
        if self._turns_used < self.max_turns:
            return False
        said = len(self.said)
        self.error = RunError(
            "max_turns",
            f"the conversation used its max_turns ({self.max_turns}) over {said} user message{'s' * (said != 1)} "
            "before the user had said everything: raise max_turns, or script fewer turns",
        )
        self._finish()
        return True

    def _ask_user(self, question: dict | None) -> UserReply | None:
        """The simulated user's reply, paid for — or None when the cost ceiling is reached."""
        assert self.user is not None
        if not self.may_spend(self._agent_cost + self.user_cost_usd):
            self.notes.append(
                "cost ceiling (--max-cost-usd) reached: the simulated user stopped after "
                f"{self._simulated} repl{'y' if self._simulated == 1 else 'ies'}"
            )
            return None
        try:
            reply = self.user(list(self._history), question)
        except Exception as e:  # the user's model failed: the conversation ends, and the run says why
            self.notes.append(f"the simulated user could not reply ({type(e).__name__}: {e}): the conversation ended")
            self.user_cost_usd += float(getattr(e, "cost_usd", 0.0) or 0.0)
            return None
        self.user_cost_usd += reply.cost_usd
        return reply

    # -- the agent asks ------------------------------------------------------------------------------------

    def _on_request(self, event: dict) -> None:
        request_id = str(event.get("request_id", ""))
        request = event.get("request") or {}
        hook: dict = request["input"] if isinstance(request.get("input"), dict) else {}
        if request.get("subtype") == "can_use_tool":  # the answers' second step; any other ask is refused
            tool = str(request.get("tool_name", ""))
            answered = self._answering.pop(str(request.get("tool_use_id", "")), None) if tool == QUESTIONS else None
            if answered is None:
                self.send(control_reply(request_id, {"behavior": "deny", "message": DENIED.format(tool=tool)}))
            else:
                self.send(control_reply(request_id, {"behavior": "allow", "updatedInput": answered}))
            return
        if request.get("subtype") != "hook_callback" or hook.get("tool_name") != QUESTIONS:
            self.send(control_error(request_id, f"an eval run does not serve {request.get('subtype')!r} requests"))
            return
        data: dict = hook["tool_input"] if isinstance(hook.get("tool_input"), dict) else {}
        answers: dict[str, str] = {}
        missing: list[str] = []
        capped: list[str] = []  # questions left unanswered because the simulated user had said its max_user_turns
        for question in data.get("questions") or ():
            if not isinstance(question, dict):
                continue
            text, header = str(question.get("question", "")), str(question.get("header", ""))
            answer: str | None = self.conversation.answer_for(text, header)
            by: str | None = "answers"
            if answer is None and self.user is not None and self._capped():
                capped.append(text)
            elif answer is None and self.user is not None:
                reply = self._ask_user(question)
                answer, by = (reply.text.strip() or None, "simulated") if reply is not None else (None, None)
                if answer is not None:
                    self._simulated += 1
            self.asked.append(Asked(text, header, answer, by if answer is not None else None))
            self._history.append(("agent", f"[asks] {text}"))
            if answer is None:
                missing.append(text)
            else:
                answers[text] = answer
                self._history.append(("user", f"[answers] {answer}"))
        if missing:
            listed = _quoted(missing)
            if capped:
                assert self.conversation.user is not None
                self.notes.append(
                    f"the agent asked {_quoted(capped)} (AskUserQuestion) after "
                    f"the simulated user had written its max_user_turns ({self.conversation.user.max_user_turns}) "
                    "replies and answers: nobody answered — raise user.max_user_turns, or add an answers: entry for it"
                )
            if len(capped) < len(missing):
                self.notes.append(
                    f"the agent asked {_quoted(q for q in missing if q not in capped)} "
                    "(AskUserQuestion) and nobody answered: no pattern of the case's answers: matched it"
                    + ("" if self.user is not None else ", and the case has no user:")
                    + " — add an answer for it"
                )
            reason = UNANSWERED.format(questions=listed)
            self.send(control_reply(request_id, hook_decision("deny", permissionDecisionReason=reason)))
            return
        answered = {**data, "answers": answers}
        self._answering[str(hook.get("tool_use_id", ""))] = answered  # allowed when Claude Code asks (can_use_tool)
        self.send(control_reply(request_id, hook_decision("ask", updatedInput=answered)))


def _quoted(questions: Iterable[str]) -> str:
    return " · ".join(f'"{q}"' for q in questions)


class ConversationChild(Child):
    """A `claude -p` child in stream-json mode: it waits for its first message as long as it takes (no 3 s stdin
    timer there), keeps stdin open, and takes each next message from its dialogue."""

    dialogue: Dialogue | None = None

    def _opening(self) -> None:
        pass  # nothing to write ahead: stream-json input waits for its first line

    def _begin(self) -> None:
        assert self.dialogue is not None
        self.dialogue.open(self.cmd.prompt)

    def send(self, message: dict) -> None:
        self._write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"), close=False)

    def close_input(self) -> None:
        self._write(b"", close=True)
