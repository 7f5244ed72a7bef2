"""Notices that say the same thing of several cases or trigger queries (`<case>: <message>`: a plugin server
without a mock, said by every run that loads the plugin) are shown once, naming whose they are: a plugin with
seven servers and five cases or queries printed thirty-five lines for seven facts."""

from __future__ import annotations

import re

WHOSE = re.compile(r"(?P<whose>[^\s:]+): (?P<what>.+)", re.DOTALL)
NAMED = 3  # whose a grouped notice names; the rest are counted


def grouped(notices: list[str]) -> list[str]:
    """`notices` in their order, each message once; one said of several names them (the first few)."""
    whose: dict[str, list[str]] = {}
    for notice in notices:
        match = WHOSE.fullmatch(notice)
        what = match["what"] if match else notice
        names = whose.setdefault(what, [])
        if match:
            names.append(match["whose"])
    out = []
    for what, names in whose.items():
        if len(names) < 2:
            out.append(f"{names[0]}: {what}" if names else what)
            continue
        more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
        out.append(f"{what} (said of {len(names)}: {', '.join(names[:NAMED])}{more})")
    return out
