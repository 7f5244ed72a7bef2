"""The options reference page of the docs (`docs/reference/options.md`), written from the option table itself.

    python -m pytest_plugin_eval.cli.options_reference          # rewrite the page
    python -m pytest_plugin_eval.cli.options_reference --check  # exit 1 when the page is out of date

The page is committed; a unit test fails when it no longer matches the table, so an option cannot be added,
renamed or reworded without the docs following.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ..engine.options import OPTIONS, Option
from .main import COMMANDS
from .usage import USAGE

PAGE = Path("docs/reference/options.md")

HEADER = """\
# Options reference

<!-- Generated from the option table (pytest_plugin_eval/engine/options.py) by
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


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """The subcommands of main.COMMANDS that read their command line with a parser of their own, in that table's
    order (`triggers` takes the options of the table above)."""
    modules = {name: importlib.import_module(target.split(":")[0], __package__) for name, target in COMMANDS.items()}
    return {name: module.command_parser for name, module in modules.items() if hasattr(module, "command_parser")}


def code(word: str) -> str:
    """A word as inline code; `N|auto` as `N` or `auto` (a pipe would end a table cell on GitHub even in code)."""
    return " or ".join(f"`{part}`" for part in word.split("|"))


def takes(option: Option) -> str:
    """What follows the option on the command line, as Markdown."""
    metavar = option.metavar or "VALUE"
    return {
        "flag": "",
        "optional": code(f"[{metavar}]"),
        "list": code(f"{metavar} …"),
        "append": f"{code(metavar)}, repeatable",
    }.get(option.kind, code(metavar))


def escaped(text: str) -> str:
    """Markdown-safe table cell text: `|`, `*`, `_` and `<` escaped outside code spans."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else re.sub(r"([|*_<])", r"\\\1", part) for part in parts if part)


def row(option: Option) -> str:
    if not option.help.strip():
        raise ValueError(f"option {option.name} has no help text: give it one in engine/options.py")
    names = ", ".join(f"`{name}`" for name in option.names)
    return f"| {names} | {takes(option)} | {escaped(option.help.strip())} |"


def argument_row(action: argparse.Action, command: str) -> str:
    """A subcommand's argument as a table row: its spellings (or its name), what it takes, its help."""
    name = action.option_strings[-1] if action.option_strings else str(action.metavar or action.dest)
    if not (action.help or "").strip():
        raise ValueError(f"plugin-eval {command} {name} has no help text: give it one in its command_parser()")
    names = ", ".join(f"`{s}`" for s in action.option_strings) or code(name)
    value = ""
    if action.option_strings and action.nargs != 0:
        metavar = str(action.metavar or action.dest.upper())
        value = code({"?": f"[{metavar}]", "+": f"{metavar} …"}.get(str(action.nargs), metavar))
    elif not action.option_strings and action.nargs in ("?", "+"):
        value = "optional" if action.nargs == "?" else "one or more"
    return f"| {names} | {value} | {escaped(str(action.help).strip())} |"


def command_section(command: str, parser: argparse.ArgumentParser) -> str:
    rows = [argument_row(a, command) for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    return (
        f"\n### plugin-eval {command}\n\n{escaped(parser.description or '')}\n\n"
        "| argument | takes | meaning |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def render(options: Iterable[Option] = OPTIONS, commands: dict | None = None) -> str:
    usage = USAGE.rstrip().rsplit("\n\noptions", 1)[0]  # the option list itself is the table above
    sections = "".join(command_section(name, make()) for name, make in (commands or command_parsers()).items())
    return HEADER + "\n".join(row(o) for o in options) + "\n" + FOOTER.format(usage=usage) + sections


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
