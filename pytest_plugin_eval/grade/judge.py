"""The LLM judge: a model asked for a one-word verdict, up to three votes, majority wins.

A judge may reason before its verdict: it has room for that (MAX_TOKENS), and the verdict word is read wherever it
is in the reply. A reply the token limit cut off before any verdict word says so, rather than passing for a judge
that gave none.

Votes stop as soon as two agree (the first two are asked at once), so a consistent judge costs two calls,
not three. A reply counts as PASS only when it says PASS and neither says FAIL nor negates the PASS
("NOT PASS"); a reply with a verdict word otherwise — "FAIL", "PASS or FAIL" — is a FAIL vote. A reply with no
verdict word at all (empty, "lorem ipsum", a proxy's HTML error page) is no vote: like a call that fails, it is
replaced by another, up to three lost votes. Calls that fail are retried a few times, honouring `retry-after`; a
judge that still gives no majority leaves the grader *errored* (an outage is not the plugin's fault), never
failed.

The votes of one grader share their whole prompt. A prompt long enough to be cached (the API caches from about
1024 tokens, more for some models) is marked cacheable (Anthropic prompt caching) and its first vote is cast
alone, since a cache entry can be read only once the reply that wrote it has begun: the votes after it pay the
cache-read price. A shorter prompt is not marked (the API would ignore the mark) and keeps the first two votes in
parallel. Where a model's minimum is higher than the estimate, the mark is ignored and costs nothing.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..core import prices
from ..core.errors import HarnessError
from ..core.prices import Usage

VOTES = 3
# Room for a judge that explains itself before its verdict (a reply is paid for what it holds, not this cap).
MAX_TOKENS = 4096
RETRYABLE = {408, 409, 429, 500, 502, 503, 504, 529}
MAX_ATTEMPTS = 4  # per vote, for retryable errors
BAD_REQUEST_ATTEMPTS = 2  # a 400 is retried once
BACKOFF_SECONDS = (1.0, 2.0, 4.0)
MAX_RETRY_AFTER = 30.0
CACHEABLE_CHARS = 4 * 1024  # about the 1024 tokens the API needs before it caches a prompt (~4 characters a token)
CACHE_MARK = {"type": "ephemeral"}

SYSTEM_PROMPT = (
    "You grade the output of an AI coding agent against one criterion. Judge only what the evidence "
    "shows, strictly and literally. Reply with exactly one word: PASS if the criterion is met, "
    "FAIL if it is not."
)
ANSWER_LINE = "Answer with exactly one word: PASS or FAIL."

_WORD = re.compile(r"\b(pass|fail)\b", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|doesn't|does not|don't|won't|isn't|wouldn't)\W*$", re.IGNORECASE
)


def parse_verdict(reply: str | None) -> bool | None:
    """True for a PASS vote, False for a FAIL vote (FAIL anywhere, or a negated PASS), None for a reply with no
    verdict word at all — which is no vote."""
    words = list(_WORD.finditer(reply or ""))
    if not words:
        return None
    if any(m.group(1).lower() == "fail" for m in words):
        return False
    return not any(_NEGATION.search((reply or "")[: m.start()]) for m in words)


REPLY_SHOWN = 60  # characters of a reply without a verdict shown in the grader's explanation


def no_verdict(reply: str) -> str:
    """How a reply with no verdict word is reported: what it said, on one line, cut short."""
    shown = " ".join(reply.split())
    if not shown:
        return "an empty reply"
    return repr(shown if len(shown) <= REPLY_SHOWN else shown[:REPLY_SHOWN] + "…")


def resolve_judge_model(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """`--judge-model` (haiku/sonnet/opus or an id), else the operator's small-model setting, else haiku."""
    environ = os.environ if environ is None else environ
    if option:
        if option == "haiku" and environ.get("ANTHROPIC_DEFAULT_HAIKU_MODEL"):
            return environ["ANTHROPIC_DEFAULT_HAIKU_MODEL"]
        return prices.resolve_model(option)
    return (
        environ.get("ANTHROPIC_SMALL_FAST_MODEL")
        or environ.get("ANTHROPIC_DEFAULT_HAIKU_MODEL")
        or prices.resolve_model("haiku")
    )


def cacheable(content: list[dict]) -> list[dict]:
    """The user content with a cache breakpoint on its last block: the system prompt and all of the content
    become the prefix the other votes read from the cache."""
    if not content:
        return content
    return [*content[:-1], {**content[-1], "cache_control": CACHE_MARK}]


def long_enough_to_cache(content: list[dict]) -> bool:
    """Whether the prompt may reach the API's caching minimum (an estimate from its text; images count a lot)."""
    chars = len(SYSTEM_PROMPT)
    for block in content:
        chars += len(block.get("text", "")) if block.get("type") == "text" else CACHEABLE_CHARS
    return chars >= CACHEABLE_CHARS


class JudgeUnavailable(HarnessError):
    """The judge could not give a verdict (API errors after retries, replies with no verdict word). `cost_usd` is
    what the calls that were answered cost."""

    def __init__(self, message: str, cost_usd: float = 0.0):
        super().__init__(message)
        self.cost_usd = cost_usd


@dataclass
class Ballot:
    """The outcome of one judged grader: the votes in the order they were cast, and what they cost."""

    votes: list[bool] = field(default_factory=list)
    cost_usd: float = 0.0
    errors: list[str] = field(default_factory=list)  # votes that failed after their retries
    unreadable: list[str] = field(default_factory=list)  # replies with no verdict word (no_verdict), not votes
    cut: list[str] = field(default_factory=list)  # replies the token limit stopped before a verdict word

    @property
    def lost(self) -> int:
        return len(self.errors) + len(self.unreadable) + len(self.cut)

    @property
    def passed(self) -> bool:
        return self.votes.count(True) >= 2

    @property
    def decided(self) -> bool:
        return self.votes.count(True) >= 2 or self.votes.count(False) >= 2

    def explanation(self) -> str:
        return "judge votes: " + " ".join("PASS" if v else "FAIL" for v in self.votes)


def _status(error: Exception) -> int | None:
    return getattr(error, "status_code", None)


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    if seconds is None or not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def describe_error(error: Exception) -> str:
    status = _status(error)
    body = getattr(error, "body", None)
    detail = body.get("error") if isinstance(body, dict) else None
    message = detail.get("message") if isinstance(detail, dict) else None
    message = message or getattr(error, "message", None) or str(error)
    return f"API error {status}: {message}" if status else f"{type(error).__name__}: {message}"


class Judge:
    """Asks one judge model for votes. `client_for(grader)` gives an `anthropic.Anthropic`-like client
    (one per grader, so the scripted endpoint can tell graders apart)."""

    def __init__(self, model: str, client_for: Callable[[str], Any], sleep: Callable[[float], None] = time.sleep):
        self.model = model
        self.client_for = client_for
        self.sleep = sleep

    def _vote(self, grader: str, content: list[dict]) -> tuple[bool | None, float, str, bool]:
        """One vote, with retries. Returns (verdict, cost, reply, cut off by the token limit) — verdict None for a
        reply with no verdict word — or raises JudgeUnavailable."""
        text, cost, stop_reason = self.reply(grader, content)
        return parse_verdict(text), cost, text, stop_reason == "max_tokens"

    def ask(
        self, grader: str, content: list[dict], system: str = SYSTEM_PROMPT, max_tokens: int = MAX_TOKENS
    ) -> tuple[str, float]:
        """One request, with retries: the reply's text and its cost, or JudgeUnavailable."""
        text, cost, _ = self.reply(grader, content, system, max_tokens)
        return text, cost

    def reply(
        self, grader: str, content: list[dict], system: str = SYSTEM_PROMPT, max_tokens: int = MAX_TOKENS
    ) -> tuple[str, float, str | None]:
        """One request, with retries: the reply's text, its cost and its stop reason, or JudgeUnavailable."""
        client = self.client_for(grader)
        attempt = 0
        while True:
            attempt += 1
            try:
                message = client.messages.create(
                    model=self.model,
                    max_tokens=max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": content}],
                )
            except Exception as e:  # the SDK's API errors, and its refusal to send without credentials
                import anthropic  # loaded with the client that raised it; not before a judge is asked

                if not isinstance(e, anthropic.AnthropicError):
                    raise JudgeUnavailable(f"{type(e).__name__}: {e}") from None
                status = _status(e)
                retryable = isinstance(e, anthropic.APIConnectionError) or status in RETRYABLE or status == 400
                limit = BAD_REQUEST_ATTEMPTS if status == 400 else MAX_ATTEMPTS
                if not retryable or attempt >= limit:
                    raise JudgeUnavailable(describe_error(e)) from None
                wait = _retry_after(e)
                self.sleep(wait if wait is not None else BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS)) - 1])
                continue
            text = "".join(getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text")
            usage = Usage.of_reply(message.usage)
            return text, prices.price(self.model, usage), getattr(message, "stop_reason", None)

    def ballot(self, grader: str, content: list[dict]) -> Ballot:
        """Votes until two agree (at most three), the first two in parallel — unless the prompt is long enough to be
        cached: then it is marked cacheable and the first vote goes alone. A vote lost to API errors, or to a
        reply with no verdict word, is replaced by another, up to three lost votes; without a majority the judge
        is unavailable (JudgeUnavailable, saying why each vote was lost)."""
        ballot = Ballot()
        cached = long_enough_to_cache(content)
        if cached:
            content = cacheable(content)

        def cast(n: int) -> None:
            with ThreadPoolExecutor(max_workers=n) as pool:
                futures = [pool.submit(self._vote, grader, content) for _ in range(n)]
            for f in futures:
                try:
                    verdict, price, text, cut = f.result()
                except JudgeUnavailable as e:
                    ballot.errors.append(str(e))
                    continue
                ballot.cost_usd += price  # a reply costs what it costs, verdict or not
                if verdict is None:
                    (ballot.cut if cut else ballot.unreadable).append(no_verdict(text))
                else:
                    ballot.votes.append(verdict)

        cast(1 if cached else 2)  # alone, the first vote writes what the others read
        while not ballot.decided and len(ballot.votes) < VOTES and ballot.lost < VOTES:
            cast(1)
        if not ballot.decided:
            reasons = []
            if ballot.errors:
                errors = list(dict.fromkeys(ballot.errors))
                reasons.append(f"{len(ballot.errors)} vote(s) failed after retries: {'; '.join(errors)}")
            if ballot.unreadable:
                replies = list(dict.fromkeys(ballot.unreadable))
                n = len(ballot.unreadable)
                reasons.append(f"{n} repl{'y' if n == 1 else 'ies'} with no PASS or FAIL in it: {'; '.join(replies)}")
            if ballot.cut:
                replies = list(dict.fromkeys(ballot.cut))
                n = len(ballot.cut)
                reasons.append(
                    f"{n} repl{'y' if n == 1 else 'ies'} stopped at the judge's token limit (max_tokens {MAX_TOKENS}) "
                    f"before any PASS or FAIL: {'; '.join(replies)}"
                )
            raise JudgeUnavailable(" · ".join(reasons) or "the judge gave no majority", ballot.cost_usd)
        return ballot
