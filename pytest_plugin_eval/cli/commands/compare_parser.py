"""`plugin-eval compare`'s command line: its options, their checks, and `--json` left alone before OLD NEW."""

from __future__ import annotations

import argparse

from ...analysis.compare import LEVEL
from ..parser import CommandParser, Refused


def command_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="plugin-eval compare",
        description="Compare two sessions of a suite: per case the change in WITH and in Δ, each with a confidence "
        "interval and a verdict (better, worse, no detectable change); cases added and removed; graders whose pass "
        "rate moved; cost and duration; and warnings when the sessions were not measured alike.",
    )
    parser.add_argument("old", metavar="OLD", help="the earlier session: a results folder or a results JSON file")
    parser.add_argument(
        "new",
        metavar="NEW",
        nargs="?",
        help="the later session: a results folder or a results JSON file (not with --model)",
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="twice, with OLD a model matrix's results folder (--model A,B): compare model A's results with B's",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="also write the compare document to PATH (.json); without PATH, print it alone on stdout",
    )
    parser.add_argument("--md", default=None, metavar="PATH", help="also write the comparison in Markdown to PATH")
    parser.add_argument(
        "--html", default=None, metavar="PATH", help="also write the comparison as an HTML page to PATH"
    )
    parser.add_argument(
        "--level", default=str(LEVEL), metavar="L", help="confidence level of the intervals (default 0.95)"
    )
    parser.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="exit 1 when some case's WITH or Δ got a 'worse' verdict, or with --pairwise OLD's output was preferred "
        "(a CI gate)",
    )
    pairwise = parser.add_argument_group("pairwise judgment")
    pairwise.add_argument(
        "--pairwise",
        action="store_true",
        help="also have a judge model compare each case's final outputs, run i of OLD with run i of NEW (with arm), "
        "blind to which is which and in both orders: a win or loss needs both orders to agree, anything else is "
        "a tie; win/tie/loss per case and overall with a win-rate interval and the judge's reasons "
        "(OLD and NEW must be results folders)",
    )
    pairwise.add_argument(
        "--scripted",
        action="store_true",
        help="answer the pairwise judge from each case's scripted.yaml (pairwise:) offline, as a session's --scripted",
    )
    pairwise.add_argument(
        "--judge-model",
        default=None,
        metavar="M",
        help="the pairwise judge's model: haiku, sonnet, opus or a model id (default: as a session's judge)",
    )
    pairwise.add_argument(
        "--claude",
        default=None,
        metavar="PATH",
        help="the Claude Code binary the judge asks through when the API cannot be asked directly (a Claude Code "
        "login, a setup token, a cloud provider; default: the bundled one, else `claude` on PATH)",
    )
    pairwise.add_argument(
        "--max-cost-usd",
        default=None,
        metavar="USD",
        help="stop judging before a pair could take the judge's spending past USD; the pairs left are not judged",
    )
    return parser


def level_of(text: str) -> float:
    try:
        level = float(text)
    except ValueError:
        level = -1.0
    if not 0.5 <= level < 1:
        raise Refused(f"Error: --level must be a number from 0.5 to below 1, such as 0.95 (got '{text}')")
    return level


VALUED = ("--md", "--html", "--level", "--judge-model", "--max-cost-usd", "--claude")  # options that take the next word


def json_alone(argv: list[str]) -> list[str]:
    """`--json OLD NEW`: when taking the word after --json as its path would leave fewer than the two sessions,
    --json is alone (print), so that it does not swallow OLD."""
    out = list(argv)
    words = [i for i, arg in enumerate(out) if not arg.startswith("-") and (i == 0 or out[i - 1] not in VALUED)]
    for i, arg in enumerate(out[:-1]):
        if arg == "--json" and i + 1 in words and len(words) <= 2:
            out[i] = "--json=-"
    return out
