"""The pairwise judge of `plugin-eval compare --pairwise`: a model shown two final outputs for one task, asked
which serves the task better.

The prompt is blind: it holds the task, the case's rubric (its llm graders' criteria, when it has any) and the two
outputs as "Response A" and "Response B" — never which session, folder, plugin version or run either came from,
and no word that would hint at an order in time. The caller asks twice per pair, swapping the two (results.pairwise
combines the answers). The task and rubric come first and are the same for every pair of a case, so when they are
long enough to be cached (judge.long_enough_to_cache) they are marked cacheable and later calls read them from the
cache. A reply's verdict is its `VERDICT: A`, `VERDICT: B` or `VERDICT: TIE`; a reply without one is no verdict
(None), never a tie.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..core import prices
from ..core.prices import Usage
from .judge import CACHE_MARK, Judge, JudgeUnavailable, long_enough_to_cache, no_verdict
from .types.judged import cut_chars

MAX_TOKENS = 400  # a verdict line and a short reason
CHARS_PER_TOKEN = 3  # a cautious estimate (English prose runs nearer 4): the cost estimate is meant as a ceiling
REASON_SHOWN = 400

SYSTEM_PROMPT = (
    "You compare two responses that an AI coding agent gave to the same task. Decide which response serves "
    "the task better: judge what each one actually delivers against what the task and its criteria ask for, "
    "strictly — an answer that only looks complete does not count as complete. Length, confidence and polish "
    "are not merits in themselves. The order in which the two are shown carries no information; do not let "
    "it sway you. Reply with a first line that is exactly one of `VERDICT: A`, `VERDICT: B` or `VERDICT: TIE` "
    "(TIE only when neither is better in any way that matters), then a line `REASON:` with one or two "
    "sentences saying what decided it."
)
ANSWER_LINE = (
    "Which response serves the task better? Reply `VERDICT: A`, `VERDICT: B` or `VERDICT: TIE`, then `REASON: …`."
)

A, B, TIE = "A", "B", "tie"
_VERDICT = re.compile(r"\bverdict\b\W{0,4}(?:an?\s+)?(tie|a|b)\b", re.IGNORECASE)  # "verdict: a tie" is a tie
_BARE = re.compile(r"^\W*(a|b|tie)\W*$", re.IGNORECASE)
_REASON = re.compile(r"\breason\b\W{0,4}(.*)", re.IGNORECASE | re.DOTALL)


def parse_preference(reply: str | None) -> str | None:
    """ "A", "B" or "tie" from a reply's first `VERDICT:` (or a reply that is only the letter), else None: no
    verdict — an empty reply, a refusal, a reply that discusses both without choosing."""
    text = reply or ""
    found = _VERDICT.search(text) or _BARE.match(text)
    if found is None:
        return None
    word = found.group(1)
    return TIE if word.lower() == "tie" else word.upper()


def reason_of(reply: str) -> str:
    """What the judge said decided it: the text after `REASON:`, else the reply without its verdict line; on
    one line, cut short. A reply with no verdict is shown as it is (judge.no_verdict)."""
    if parse_preference(reply) is None:
        return f"no verdict in the reply: {no_verdict(reply)}"
    found = _REASON.search(reply)
    text = found.group(1) if found else _VERDICT.sub("", reply, count=1)
    shown = " ".join(text.split()).strip(" *_`,.:;-") or "(no reason given)"
    return shown if len(shown) <= REASON_SHOWN else shown[:REASON_SHOWN] + "…"


def task_block(task: str, rubric: list[str]) -> dict:
    """The part shared by every pair of a case: the task, and the criteria when the case has llm graders."""
    text = f"The task the agent was given:\n<task>\n{cut_chars(task.strip())}\n</task>\n"
    if rubric:
        criteria = "\n\n".join(f"<criterion>\n{c.strip()}\n</criterion>" for c in rubric)
        text += (
            "\nWhat a good response does (the criteria the task is graded by; weigh the responses against "
            f"them):\n{criteria}\n"
        )
    return {"type": "text", "text": text}


def pair_content(task: str, rubric: list[str], first: str, second: str) -> list[dict]:
    """The judge's user content for one order: `first` shown as Response A, `second` as Response B."""
    shared = task_block(task, rubric)
    if long_enough_to_cache([shared]):
        shared = {**shared, "cache_control": CACHE_MARK}
    responses = (
        f"Response A:\n<response_a>\n{cut_chars(first)}\n</response_a>\n\n"
        f"Response B:\n<response_b>\n{cut_chars(second)}\n</response_b>\n\n{ANSWER_LINE}"
    )
    return [shared, {"type": "text", "text": responses}]


@dataclass(frozen=True)
class Answer:
    """One judge call: the preference ("A", "B", "tie", None: no verdict), the reason shown, what it cost, and
    why the judge could not be asked (API errors after retries), if so."""

    preference: str | None
    reason: str
    cost_usd: float = 0.0
    error: str | None = None


def ask(judge: Judge, key: str, content: list[dict]) -> Answer:
    """One judge call (retried on API errors as every judge is); never raises for the judge's failings."""
    try:
        text, cost = judge.ask(key, content, system=SYSTEM_PROMPT, max_tokens=MAX_TOKENS)
    except JudgeUnavailable as e:
        return Answer(None, f"judge unavailable: {e}", e.cost_usd, error=str(e))
    return Answer(parse_preference(text), reason_of(text), cost)


def call_ceiling(model: str | None, content: list[dict]) -> float:
    """A ceiling for one call's price: its text at CHARS_PER_TOKEN, the whole reply's MAX_TOKENS, no cache
    discount."""
    chars = len(SYSTEM_PROMPT) + sum(len(block.get("text", "")) for block in content)
    usage = Usage(input_tokens=math.ceil(chars / CHARS_PER_TOKEN), output_tokens=MAX_TOKENS)
    return prices.price(model, usage)
