"""The options' registration with pytest (`pytest_addoption`), from the option table `options.OPTIONS`: kept apart
from the table so that reading the options (as `plugin-eval check` does) imports nothing of pytest."""

from __future__ import annotations

import pytest

from ..engine.option_values import ListValues
from ..engine.options import OPTIONS
from .pytest_internals import add_short_option

ACTIONS = {"flag": "store_true", "list": ListValues, "append": "append", "value": "store", "optional": "store"}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("plugin-eval", "Claude Code plugin evals (claude plugin eval options)")
    for option in OPTIONS:
        kwargs: dict = {"dest": option.dest, "help": option.help}
        if option.store_false:
            kwargs["action"] = "store_false"
        else:
            kwargs["action"] = ACTIONS[option.kind]
            kwargs["default"] = option.default
        if option.metavar:
            kwargs["metavar"] = option.metavar
        if option.kind == "list":
            kwargs["nargs"] = "+"
        if option.kind == "optional":
            kwargs.update(nargs="?", const="-")
        if option.names[0] == "-j":
            # pytest reserves lowercase short options for plugins that register them this way (as xdist does -n).
            add_short_option(group, option.names, **kwargs)
        else:
            group.addoption(*option.names, **kwargs)
