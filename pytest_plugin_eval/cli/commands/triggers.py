"""`plugin-eval triggers [TARGET] [options]`: a session of the trigger evals alone (`-m plugin_eval_trigger`), with
the reference command line's options. `tune` runs it as `python -m pytest_plugin_eval.cli.main triggers`."""

from __future__ import annotations

from .run import run


def triggers_command(argv: list[str]) -> int:
    return run(argv, only_triggers=True)
