"""The argument parser of the commands that say a bad command line as every user error of plugin-eval is said:
one line naming the command and its --help, exit 1 (argparse's own error prints the usage and exits 2)."""

from __future__ import annotations

import argparse

from ..core.errors import UsageError


class Refused(UsageError):
    """A command-line problem: printed, exit 1."""


class CommandParser(argparse.ArgumentParser):
    def error(self, message: str):
        raise Refused(f"{self.prog}: error: {message} (see {self.prog} --help)")
