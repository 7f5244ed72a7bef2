"""The argument parser of the commands that say a bad command line as every user error of plugin-eval is said:
one line naming the command and its --help, exit 1 (argparse's own error prints the usage and exits 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..core.errors import UsageError
from ..engine.option_values import OptionError
from ..engine.options import OPTIONS


class Refused(UsageError):
    """A command-line problem: printed, exit 1."""


class CommandParser(argparse.ArgumentParser):
    def error(self, message: str):
        raise Refused(f"{self.prog}: error: {message} (see {self.prog} --help)")


def checked_as_the_session(name: str) -> Callable[[str], str]:
    """argparse's `type=` for a subcommand's option that a session takes too (the option table's `name`): the value
    as given, refused with the session's words by the table's own parser."""
    option = next(o for o in OPTIONS if name in o.names)

    def check(raw: str) -> str:
        try:
            option.parse(raw, None)
        except OptionError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix("Error: ")) from None
        return raw

    return check
