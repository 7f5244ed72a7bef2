"""The coverage of `agreement.corrected_rate`'s interval by simulation (plain Python, fixed seed).

Per cell — a true pass rate θ, a judge's true TPR and TNR, n runs judged and m labels of each kind — many
sessions are drawn: the judge's verdicts on n runs (a run passes with θ, the judge then passes it with TPR or
fails it with TNR), and m labelled passes and m labelled failures giving the measured TPR and TNR. The share of
intervals that hold θ is the coverage (the goal: 95%); sessions where the judge measures no better than chance
give no interval and are counted apart.

    .venv/bin/python bench/bench_calibration.py [--sessions 2000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_plugin_eval.agreement import Table, corrected_delta, corrected_rate


def binomial(rng: random.Random, n: int, p: float) -> int:
    return sum(rng.random() < p for _ in range(n))


def cell(rng: random.Random, theta: float, sens: float, spec: float, runs: int, labels: int, sessions: int):
    held = none = 0
    widths = []
    apparent = theta * sens + (1 - theta) * (1 - spec)
    for _ in range(sessions):
        passed = binomial(rng, runs, apparent)
        tp = binomial(rng, labels, sens)
        tn = binomial(rng, labels, spec)
        found = corrected_rate(passed, runs, Table(tp, labels - tp, labels - tn, tn))
        if found is None:
            none += 1
            continue
        held += found.low <= theta <= found.high
        widths.append(found.high - found.low)
    given = sessions - none
    return (held / given if given else float("nan")), (sum(widths) / len(widths) if widths else float("nan")), none


def delta_cell(rng, with_rate, without_rate, sens, spec, runs, labels, sessions):
    held = given = 0
    for _ in range(sessions):
        arms = []
        for theta in (with_rate, without_rate):
            arms.append((binomial(rng, runs, theta * sens + (1 - theta) * (1 - spec)), runs))
        tp, tn = binomial(rng, labels, sens), binomial(rng, labels, spec)
        found = corrected_delta(arms[0], arms[1], Table(tp, labels - tp, labels - tn, tn))
        if found is not None:
            given += 1
            held += found.low <= with_rate - without_rate <= found.high
    return held / given if given else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{'θ':>5} {'TPR':>5} {'TNR':>5} {'runs':>5} {'labels':>6}  coverage  width  no-interval")
    worst = 1.0
    for theta, (sens, spec), runs, labels in product(
        (0.2, 0.5, 0.8), ((0.95, 0.95), (0.9, 0.7), (1.0, 0.6)), (10, 30), (10, 30)
    ):
        coverage, width, none = cell(rng, theta, sens, spec, runs, labels, args.sessions)
        worst = min(worst, coverage)
        print(f"{theta:5.2f} {sens:5.2f} {spec:5.2f} {runs:5d} {labels:6d}  {coverage:8.3f}  {width:5.2f}  {none:11d}")
    print(f"lowest coverage: {worst:.3f} (goal 0.95)")
    print(f"\nΔ: {'with':>5} {'w/out':>5} {'TPR':>5} {'TNR':>5} {'runs':>5} {'labels':>6}  coverage")
    worst = 1.0
    for (w, o), (sens, spec), runs, labels in product(
        ((0.9, 0.3), (0.7, 0.5), (0.5, 0.5)), ((0.95, 0.95), (0.9, 0.7), (1.0, 0.6)), (10, 30), (10, 30)
    ):
        coverage = delta_cell(rng, w, o, sens, spec, runs, labels, args.sessions)
        worst = min(worst, coverage)
        print(f"   {w:5.2f} {o:5.2f} {sens:5.2f} {spec:5.2f} {runs:5d} {labels:6d}  {coverage:8.3f}")
    print(f"lowest coverage of Δ: {worst:.3f} (goal 0.95)")


if __name__ == "__main__":
    main()
