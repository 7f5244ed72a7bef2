"""`plugin-eval check [TARGET]`: the command line of the suite check (suite_check/suite.py's check_suite)."""

from __future__ import annotations

import argparse
import json
import sys

from ...engine.option_values import OptionError, parse_ablate, parse_against
from ...engine.options import EvalOptions
from ...run.access import detect as detect_access
from ...suite_check.suite import (
    check_suite,
    finding_lines,
    pilot_line,
    plan_cost_line,
    summary,
    to_json,
)
from ..plugin_args import add_plugin_arguments, not_a_marketplace, plugin_folder


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plugin-eval check",
        description="Load an eval suite and check its floor (a should-not-fire case, an outcome grader per case, "
        "runs >= 3, two arms) and look for cases that would measure nothing, without running anything. Exit 0 "
        "when it loads and meets the floor, 1 otherwise (with --strict, also 1 on a finding).",
    )
    add_plugin_arguments(parser)
    parser.add_argument(
        "--model", default=None, metavar="MODEL", help="the agent's model (A,B: a model matrix), for the cost estimate"
    )
    parser.add_argument("--judge-model", default=None, metavar="MODEL", help="the judge model, for the cost estimate")
    parser.add_argument(
        "--against", default=None, metavar="REF", help="price the session with --against's arm too (docs/arms.md)"
    )
    parser.add_argument(
        "--ablate", default=None, metavar="COMPONENT[,…]", help="price the session with an arm per ablated component"
    )
    parser.add_argument("--scripted", action="store_true", help="print the pilot command for the scripted endpoint")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 on a finding too (docs/findings.md), not only on a problem"
    )
    return parser


def check(argv: list[str]) -> int:
    args = command_parser().parse_args(argv)
    root = plugin_folder(args.target, "check")
    if root is None or not not_a_marketplace(root, "check"):
        return 1
    try:  # the session's own parsers: a value a session refuses is refused here with its words
        arms = EvalOptions(against=parse_against(args.against, None), ablate=parse_ablate(args.ablate, None))
        result = check_suite(root, args.eval_dir, model=args.model, judge_model=args.judge_model, arms=arms)
    except OptionError as e:
        print(e, file=sys.stderr)
        return 1
    status = 0 if result.ok and not (args.strict and result.findings) else 1
    if args.json:
        print(json.dumps(to_json(result), indent=1))
        return status
    for line in result.render_problems():
        print(f"✗ {line}")
    for warning in result.warnings:  # each marked, as problems (✗) and findings (⚑) are
        print(warning if warning.startswith(("⚠", "💡")) else f"⚠ {warning}")
    for line in finding_lines(result.findings):
        print(line)
    for line in summary(result):
        print(line)
    if result.estimate and result.cases and not args.scripted:
        print(plan_cost_line(detect_access()) or "", end="")
    if result.ok and result.estimate:
        given = {
            "--model": args.model,
            "--judge-model": args.judge_model,
            "--against": args.against,
            "--ablate": args.ablate,
        }
        passed_on = [word for name, value in given.items() if value for word in (name, value)]
        print(pilot_line(result, args.eval_dir, args.scripted, passed_on))
    if args.strict and result.findings:
        print(f"✗ --strict: {len(result.findings)} finding(s)")
    return status
