"""A finding: something about a case that makes its numbers measure less than they seem to — a grader that
passes for free, a prompt that gives the answer away, a run whose tools were refused. Not a problem (the suite
loads and runs); a reason to distrust a number, with the fix.

One shape everywhere: `plugin-eval check --json` and the results document's top-level `findings` list carry
`{case, grader?, kind, message, fix}`; the terminal, the HTML report and the Markdown summary show them beside
their case. `kind` is a short stable word (docs/findings.md lists them all).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .jsonmap import EXTRA, Document, key


@dataclass
class Finding(Document):
    case: str = field(metadata=key("case", missing=""))
    _: KW_ONLY
    grader: str | None = field(default=None, metadata=key("grader", omit="none"))
    kind: str = field(metadata=key("kind", missing=""))
    message: str = field(metadata=key("message", missing=""))  # what is wrong, in one sentence
    fix: str = field(metadata=key("fix", missing=""))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    def line(self) -> str:
        """`grader "g": message — fix`, for a list under its case."""
        where = f'grader "{self.grader}": ' if self.grader else ""
        return f"{where}{self.message} — {self.fix} [{self.kind}]"


def of_case(findings: Iterable[Finding], case: str) -> list[Finding]:
    return [f for f in findings if f.case == case]


def unique(findings: Iterable[Finding]) -> list[Finding]:
    """Each finding once (a case linted at the start and again on --regrade says the same thing)."""
    seen: dict[tuple[str, str | None, str, str], Finding] = {}
    for f in findings:
        seen.setdefault((f.case, f.grader, f.kind, f.message), f)
    return list(seen.values())
