"""What a session's conversations say about their case: the questions the agent asked that nobody answered, and
the runs whose simulated user was cut off by its max_user_turns.

A run of a case with `answers:` (or a simulated user) answers the agent's AskUserQuestion calls; a question that
matched no pattern, with no simulated user to answer it (or one that had written its max_user_turns), was refused —
the run went on without its answer. The results document keeps each question and its answer, and whether the
simulated user reached its cap (RunResult.conversation); this names the unanswered ones and the capped runs."""

from __future__ import annotations

from ..core.kinds import Arm
from .findings import Finding
from .model import CaseResult
from .refused import ARM_LABEL

KIND = "unanswered-question"
ARMS: tuple[Arm, ...] = ("with", "without")


def unanswered_findings(case: CaseResult) -> list[Finding]:
    """One finding per question nobody answered, with the runs of each arm it went unanswered in."""
    hits: dict[str, dict[Arm, int]] = {}
    for arm in ARMS:
        for run in case.runs(arm):
            questions = (run.conversation or {}).get("questions") or ()
            for question in dict.fromkeys(q.get("question", "") for q in questions if q.get("answer") is None):
                hits.setdefault(question, {}).setdefault(arm, 0)
                hits[question][arm] += 1
    out = []
    for question, counts in hits.items():
        where = " and ".join(f"{ARM_LABEL[arm]} runs {n}/{len(case.runs(arm))}" for arm, n in counts.items())
        out.append(
            Finding(
                case.name,
                kind=KIND,
                message=f'the agent asked "{question}" (AskUserQuestion) and nobody answered it, in {where}',
                fix="add an answers: entry whose pattern matches the question (or its header), or a user: to "
                "answer what no pattern does",
            )
        )
    return out


def capped_findings(case: CaseResult) -> list[Finding]:
    """One finding for a case whose simulated user reached its max_user_turns, with the runs of each arm it did in:
    those conversations ended (or went on with a question unanswered) before the user said they were done."""
    counts = {arm: sum(bool((r.conversation or {}).get("userCapped")) for r in case.runs(arm)) for arm in ARMS}
    if not any(counts.values()):
        return []
    where = " and ".join(f"{ARM_LABEL[arm]} runs {n}/{len(case.runs(arm))}" for arm, n in counts.items() if n)
    return [
        Finding(
            case.name,
            kind="user-turns-capped",
            message="the simulated user wrote its max_user_turns replies and answers before it said the user was "
            f"done, in {where}: those conversations were cut short",
            fix="raise user.max_user_turns (up to 50) in the case, or script the answers it kept giving (answers:, "
            "turns:)",
        )
    ]
