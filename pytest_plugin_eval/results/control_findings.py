"""`judge-misses-control`: a control (`plugin-eval calibrate --controls`, grade/controls.py) that the judge
passed — an answer no rubric can pass, passed. The judge then grades something other than the rubric, and each
verdict it gave the runs is worth less than it seems. A finding per control passed, in the findings shape; a
control the judge could not be asked (`passed: null`) says nothing."""

from __future__ import annotations

from collections.abc import Iterable

from .calibration import ControlAnswer
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


def control_findings(controls: Iterable[ControlAnswer]) -> list[Finding]:
    """A finding per control the judge passed, from calibrate's answers to the controls."""
    out = []
    for c in controls:
        if c.passed is not True:
            continue
        swapped = c.control == "swapped"
        out.append(
            Finding(
                c.case,
                grader=c.grader or None,
                kind=KIND,
                message=f"the judge passed {c.description or c.control} (control "
                f"{c.control}, {sum(map(bool, c.votes))} of {len(c.votes)} vote(s) PASS): "
                + ("it may not be comparing the two" if swapped else "it grades something other than the rubric"),
                fix=SWAPPED_FIX if swapped else FIX,
            )
        )
    return out
