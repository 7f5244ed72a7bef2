"""What a session's conversations say about their case: the questions the agent asked that nobody answered.

A run of a case with `answers:` (or a simulated user) answers the agent's AskUserQuestion calls; a question that
matched no pattern, with no simulated user to answer it, was refused — the run went on without its answer. The
results document keeps each question and its answer (RunResult.conversation); this names the unanswered ones."""

from __future__ import annotations

from ..core.kinds import Arm
from .findings import Finding
from .model import CaseResult
from .refused import ARM_LABEL

KIND = "unanswered-question"


def unanswered_findings(case: CaseResult) -> list[Finding]:
    """One finding per question nobody answered, with the runs of each arm it went unanswered in."""
    hits: dict[str, dict[Arm, int]] = {}
    arms: tuple[Arm, ...] = ("with", "without")
    for arm in arms:
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
