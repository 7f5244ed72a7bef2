"""The raw pytest option namespace checked into one `EvalOptions`, once, on the controller.

Every message names the option and the fix; nothing is run (or paid for) before the values are known good.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from .option_values import OptionError, local_worker, parse_models, parse_runs
from .options import OPTIONS, EvalOptions


def parse_options(option) -> EvalOptions:
    """Validate the raw pytest option namespace. Raises OptionError with the user-facing message.

    Each option of the table (options.OPTIONS) fills its EvalOptions field(s) through its own parser; what is
    checked here are the combinations of two options."""
    check_combinations(option)
    values: dict[str, Any] = {}
    for spec in OPTIONS:
        if spec.field is None:
            continue
        value = spec.parse(getattr(option, spec.dest, spec.default), option)
        if isinstance(spec.field, tuple):
            values.update(zip(spec.field, value, strict=True))
        else:
            values[spec.field] = value
    return EvalOptions(**values)


def check_combinations(option) -> None:
    """The options that cannot go together, said before any single option's check reads a file."""
    regrade = bool(getattr(option, "eval_regrade", None))
    auto_runs, models = _parsed(parse_runs, option, "eval_runs")[1], _parsed(parse_models, option, "eval_model")[1]
    if auto_runs is not None:
        if regrade:
            raise OptionError("Error: --runs auto chooses how many runs to make; --regrade makes none. Drop one.")
        remote = [spec for spec in getattr(option, "tx", None) or [] if not local_worker(str(spec))]
        if remote:
            # A case's runs may finish on any worker, and the finished runs are shared through a file on this host.
            raise OptionError(
                f"Error: --runs auto needs every worker on this machine; --tx {remote[0]} is not. "
                "Use -n N or -j N, or a fixed --runs N across machines."
            )
    # --regrade: the stored session's against arm is read again
    if getattr(option, "eval_fail_on_worse", False) and not (getattr(option, "eval_against", None) or regrade):
        raise OptionError(
            "Error: --fail-on-worse decides on the against arm; give --against REF with it "
            "(or --regrade a session that had one)."
        )
    if models and regrade:
        raise OptionError(
            "Error: --model A,B runs a model matrix; --regrade makes no runs. Regrade each model's folder of the "
            "matrix on its own (plugin-eval regrade RESULTS/<model>)."
        )


def _parsed(parse, option, dest: str) -> tuple:
    """An option's values for a combination check; (None, None) when it is wrong alone (said in the table's order)."""
    try:
        return parse(getattr(option, dest, None), option)
    except OptionError:
        return None, None


REUSE_INI = "eval_reuse_baseline"
STRICT_TOOLS_INI = "eval_strict_tools"


def with_ini(options: EvalOptions, config) -> EvalOptions:
    """The ini settings an option left unsaid: `eval_reuse_baseline = true` unless --no-reuse-baseline,
    `eval_strict_tools = true` unless the command line said --strict-tools."""
    if getattr(config.option, "eval_reuse_baseline", None) is None and config.getini(REUSE_INI):
        options = dataclasses.replace(options, reuse_baseline=True)
    if getattr(config.option, "eval_strict_tools", None) is None and config.getini(STRICT_TOOLS_INI):
        options = dataclasses.replace(options, strict_tools=True)
    return options


def eval_options_given(option) -> bool:
    """Whether the command line used an option of the table that marks an eval session (then it is one even with
    no cases)."""
    return any(getattr(option, spec.dest, None) for spec in OPTIONS if spec.marks_session)


def collection_paths(config) -> list[Path]:
    """The command line's collection arguments as absolute paths (node ids cut at `::`)."""
    base = config.invocation_params.dir
    return [(base / arg.split("::")[0]).absolute() for arg in config.args]
