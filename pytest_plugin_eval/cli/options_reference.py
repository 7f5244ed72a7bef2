"""The options reference page of the docs (`docs/reference/options.md`), written from the option table itself.

    python -m pytest_plugin_eval.cli.options_reference          # rewrite the page
    python -m pytest_plugin_eval.cli.options_reference --check  # exit 1 when the page is out of date

The page is committed; a unit test fails when it no longer matches the table, so an option cannot be added,
renamed or reworded without the docs following.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

from ..session.options import OPTIONS, Option
from .main import USAGE

PAGE = Path("docs/reference/options.md")

HEADER = """\
# Options reference

<!-- Generated from the option table (pytest_plugin_eval/session/options.py) by
     `python -m pytest_plugin_eval.cli.options_reference`: edit the table, then run that. -->

Every option is a pytest option (`pytest evals/ --threshold 0.8`) and an option of `plugin-eval`, spelled as
`claude plugin eval` spells it; `pytest --help` and `plugin-eval --help` print the same texts. A bad value
stops the session before any run, with exit 1. The topic pages say more: [Selecting and
running](../running.md), [Statistics](../statistics.md), [Costs and faults](../costs-and-faults.md),
[Comparing sessions](../comparing.md), [CI](../ci.md).

| option | takes | meaning |
|---|---|---|
"""

# Options of pytest and of the plugins it comes with here, which sessions use as any pytest session does.
FOOTER = """
List options take one or more values, read up to the next option: write `--allow-tools=Write,Edit` (commas, no
spaces), put the paths first, or repeat the option.

pytest's own options work as in any session: `-k`, `-m`, `-x`, `-v`, `--lf`, `--junitxml` (see [Selecting and
running](../running.md)); `-n N` and `--tx` need the `xdist` extra (pytest-xdist) and `--html` the `html` extra
(pytest-html): `pip install 'pytest-plugin-eval[xdist,html]'`.

## `plugin-eval` commands

The [reference command line](../cli.md) takes the options above and these commands:

```
{usage}
```
"""


def takes(option: Option) -> str:
    """What follows the option on the command line, as Markdown."""
    metavar = option.metavar or "VALUE"
    return {
        "flag": "",
        "optional": f"`[{metavar}]`",
        "list": f"`{metavar} …`",
        "append": f"`{metavar}`, repeatable",
    }.get(option.kind, f"`{metavar}`")


def escaped(text: str) -> str:
    """Markdown-safe table cell text: `|`, `*`, `_` and `<` escaped outside code spans."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else re.sub(r"([|*_<])", r"\\\1", part) for part in parts if part)


def row(option: Option) -> str:
    if not option.help.strip():
        raise ValueError(f"option {option.name} has no help text: give it one in session/options.py")
    names = ", ".join(f"`{name}`" for name in option.names)
    return f"| {names} | {takes(option)} | {escaped(option.help.strip())} |"


def render(options: Iterable[Option] = OPTIONS) -> str:
    usage = USAGE.rstrip().rsplit("\n\noptions", 1)[0]  # the option list itself is the table above
    return HEADER + "\n".join(row(o) for o in options) + "\n" + FOOTER.format(usage=usage)


def main(argv: list[str]) -> int:
    text = render()
    if argv == ["--check"]:
        if PAGE.exists() and PAGE.read_text(encoding="utf-8") == text:
            return 0
        print(f"{PAGE} is out of date: run python -m pytest_plugin_eval.cli.options_reference", file=sys.stderr)
        return 1
    if argv:
        print("usage: python -m pytest_plugin_eval.cli.options_reference [--check]", file=sys.stderr)
        return 2
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"Wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
