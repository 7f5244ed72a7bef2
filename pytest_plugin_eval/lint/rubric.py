"""`rubric-without-condition`: an `llm` rubric that lists qualities ("helpful, accurate and concise") and never
says what a run must do to pass. A judge then grades by taste, and the with and without arms get the same
generous verdict.

Decided on the rubric's words: it is flagged when it has no PASS/FAIL wording and none of the words that state
something checkable — an action the answer takes (names, mentions, lists, quotes, uses, asks…), a bound
(under, at most, exactly, only, no, not, every), a number, or a quoted or `backticked` term. A heuristic: a
rubric that is precise in other words can be reworded, or the finding left.
"""

from __future__ import annotations

import re

from ..load.case import Case
from ..results.findings import Finding

CHECKABLE = re.compile(
    r"\b(?:pass(?:es|ed)?|fail(?:s|ed)?|only if|unless|"
    r"names?|mentions?|includes?|contains?|lists?|says?|states?|quotes?|uses?|calls?|writes?|asks?|explains?|"
    r"gives?|recommends?|refuses?|starts?|ends?|cites?|follows?|matches|suggests?|identifies|points?|"
    r"warns?|creates?|runs?|returns?|under|over|at most|at least|exactly|only|no|not|never|every|each|without)\b"
    r"|\d|`[^`]+`|\"[^\"]+\"",
    re.IGNORECASE,
)


def rubric_findings(case: Case) -> list[Finding]:
    out = []
    for spec in case.graders:
        if spec.type != "llm" or not spec.body or CHECKABLE.search(spec.body):
            continue
        out.append(
            Finding(
                case.name,
                grader=spec.name,
                kind="rubric-without-condition",
                message="the rubric lists qualities but states no condition a run must meet to pass",
                fix='say what passes and what fails ("PASS if the reply names the file it changed; FAIL if it '
                'only describes the change")',
            )
        )
    return out
