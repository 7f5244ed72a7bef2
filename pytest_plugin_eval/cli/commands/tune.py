"""`plugin-eval tune SKILL [TARGET]`: a better description for a skill, proposed by Claude from its trigger set's
train failures, chosen on validation with a paired interval, scored once on test, checked against the siblings.

The command line of the tuning loop (tune/loop.py's Tuning)."""

from __future__ import annotations

import argparse
import sys

from ...core.errors import UsageError
from ...engine.option_values import OptionError, parse_max_cost, parse_runs
from ...tune.apply import ApplyError
from ...tune.loop import DEFAULT_CANDIDATES, DEFAULT_ROUNDS, Tuning
from ...tune.measure import MeasureError
from ...tune.rules import SetTooSmall
from ..parser import checked_as_the_session


def command_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="plugin-eval tune", description=__doc__.split("\n\n")[0])
    p.add_argument("skill", help="the skill to tune (bare or plugin:name)")
    p.add_argument("target", nargs="?", default=".", help="the plugin folder (default .)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds of proposals at most (default 3)")
    p.add_argument("--candidates", type=int, default=DEFAULT_CANDIDATES, help="candidates per round (default 2)")
    p.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    p.add_argument("--runs", help="runs per query (N or auto; default: the trigger set's)")
    p.add_argument("--max-cost-usd", help="stop the whole loop once this much is spent")
    p.add_argument("--scripted", action="store_true", help="offline: trigger runs and proposer from scripts")
    p.add_argument("--trust-plugin", action="store_true", help="run the plugin's code as you (required)")
    p.add_argument("--model", help="the model of the trigger runs and the proposer")
    p.add_argument("--claude", help="the Claude Code binary")
    p.add_argument(
        "--eval-dir",
        type=checked_as_the_session("--eval-dir"),
        help="the eval dir (default: the manifest's, else evals)",
    )
    p.add_argument("--trigger-skill", help="the skill of skill-creator trigger entries that name none")
    p.add_argument("--output-dir", help="where tune.json, tune.html and the proposed SKILL.md go")
    p.add_argument("--json", help="also write the result document to this path")
    p.add_argument("--apply", action="store_true", help="write the winner's description into SKILL.md")
    p.add_argument("--force", action="store_true", help="--apply even when the plugin's git tree is dirty")
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    p = command_parser()
    args = p.parse_args(argv)
    if args.rounds < 1 or args.candidates < 1:
        p.error("--rounds and --candidates must be at least 1")
    parse_runs(args.runs, None)  # refused now, as the trigger runs' session would refuse it
    args.max_cost_usd = parse_max_cost(args.max_cost_usd, None)
    return args


def tune_command(argv: list[str]) -> int:
    try:
        args = parse(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 1
    except OptionError as e:  # the session's parsers, and its words
        print(e, file=sys.stderr)
        return 1
    try:
        return Tuning(args).run()
    except (UsageError, SetTooSmall, ApplyError) as e:
        print(e, file=sys.stderr)
        return 1
    except MeasureError as e:
        print(f"✗ {e}", file=sys.stderr)
        return 2
