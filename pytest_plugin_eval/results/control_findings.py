"""`judge-misses-control`: a control (`plugin-eval calibrate --controls`, grade/controls.py) that the judge
passed — an answer no rubric can pass, passed. The judge then grades something other than the rubric, and each
verdict it gave the runs is worth less than it seems. A finding per control passed, in the findings shape; a
control the judge could not be asked (`passed: null`) says nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .findings import Finding

KIND = "judge-misses-control"
FIX = (
    "make the rubric say what a passing answer must contain and what fails it (PASS if …; FAIL if …), or judge "
    "with a stronger model (--judge-model)"
)
# The swapped pair passes rightly when the run and the reference are equally good: a reason to look, not a defect.
SWAPPED_FIX = (
    "compare the run with the reference: if it is no worse, the baseline proves little — write a stronger "
    "reference; if it is worse, make the criteria say what the better answer does"
)


def control_findings(controls: Iterable[dict[str, Any]]) -> list[Finding]:
    """A finding per control the judge passed, from calibrate's control results (`{case, grader, control,
    description, passed, votes}`)."""
    out = []
    for c in controls:
        if c.get("passed") is not True:
            continue
        votes, swapped = c.get("votes") or [], c.get("control") == "swapped"
        out.append(
            Finding(
                str(c.get("case", "")),
                grader=str(c.get("grader", "")) or None,
                kind=KIND,
                message=f"the judge passed {c.get('description') or c.get('control')} (control "
                f"{c.get('control')}, {sum(map(bool, votes))} of {len(votes)} vote(s) PASS): "
                + ("it may not be comparing the two" if swapped else "it grades something other than the rubric"),
                fix=SWAPPED_FIX if swapped else FIX,
            )
        )
    return out
