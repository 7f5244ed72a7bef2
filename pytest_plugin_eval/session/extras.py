"""The options of the optional extras: `-n`/`--tx` are pytest-xdist's, `--html` pytest-html's. Without the package
installed pytest only says "unrecognized arguments: -n"; this says which extra to install."""

from __future__ import annotations

import pytest

# extra: (the package that registers the options, its options a user of the docs may reach for)
EXTRAS = {
    "xdist": ("pytest-xdist", ("-n", "--numprocesses", "--maxprocesses", "--tx", "--dist")),
    "html": ("pytest-html", ("--html", "--self-contained-html", "--css")),
}


def option_name(arg: str) -> str:
    """`--html=r.html` → `--html`; `-n4` → `-n` (a short option and its value in one word)."""
    if arg.startswith("--"):
        return arg.split("=", 1)[0]
    return arg[:2]


def missing_extra(unknown: list[str]) -> str | None:
    """What to say of the first of the command line's unrecognized arguments that an extra would have registered."""
    for arg in unknown:
        name = option_name(arg)
        for extra, (package, names) in EXTRAS.items():
            if name in names:
                return (
                    f"{name} is an option of {package}, which is not installed (or is disabled with -p no:…): "
                    f"pip install 'pytest-plugin-eval[{extra}]'"
                )
    return None


def refuse_missing_extras(parser: pytest.Parser, args: list[str]) -> None:
    """Once every option is registered (the conftests included), an extra's option nobody registered is a usage
    error (exit 4, as pytest's own) that names the extra."""
    if not any(option_name(arg) in names for arg in args for _, names in EXTRAS.values()):
        return  # the usual case, told apart without parsing the command line again
    _, unknown = parser.parse_known_and_unknown_args(args)
    problem = missing_extra([arg for arg in unknown if arg.startswith("-")])
    if problem:
        raise pytest.UsageError(problem)
