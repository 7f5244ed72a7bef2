"""`--runs auto` against fixed runs, by simulation: runs spent, and whether the decisions are the same.

    .venv/bin/python bench/bench_adaptive.py [--cases 4000] [--seed 1] [--max 10] [--width 0.3]

Each simulated case draws one stream of run scores per arm (up to --max runs), and every strategy reads the same
streams, so their decisions can be compared case by case:

- `fixed-MAX`: --max runs per arm, always (what `--runs MAX` spends);
- `auto`: the package's rule (`pytest_plugin_eval.adaptive`), 3 runs first, one more per arm while the Δ
  interval, at the stricter per-look level, straddles 0 and is wider than --width, unless the runs so far
  projected to --max would still leave it undecided (--futility, the projected interval's level; 0: off);
- `auto-naive`: the same without the stricter per-look level (every look at 95 %), to show why the rule has it.

A strategy's decision is what the table shows at the end: "better" or "worse" when the 95 % Δ interval of the runs
it made excludes 0, else "no detectable change". Cells: all-or-nothing run scores (`binary`) and fractions of 4
graders (`graders4`), true pass rates p_with × p_without in {0.5, 0.7, 0.9} × {0.2, 0.5, 0.7}. Reported per cell:
mean runs per arm, the share of cases whose decision agrees with fixed-MAX's, and the share of wrong decisions (a
"better" when Δ ≤ 0 or a "worse" when Δ ≥ 0, the false alarms that matter in CI). The summary gives the runs
saved against fixed-MAX for the same decisions. Plain Python, fixed seed.
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import product

from pytest_plugin_eval.adaptive import AutoRuns, stop_reason
from pytest_plugin_eval.stats import delta_interval

P_WITH = (0.5, 0.7, 0.9)
P_WITHOUT = (0.2, 0.5, 0.7)
MODELS = {"binary": 1, "graders4": 4}


def draw(rng: random.Random, p: float, graders: int, n: int) -> list[float]:
    return [sum(rng.random() < p for _ in range(graders)) / graders for _ in range(n)]


def decision(with_scores: list[float], without_scores: list[float]) -> str:
    interval = delta_interval(with_scores, without_scores)
    if interval is None or interval[0] <= 0 <= interval[1]:
        return "none"
    return "better" if interval[0] > 0 else "worse"


def auto_runs(plan: AutoRuns, a: list[float], b: list[float]) -> int:
    for rounds in range(plan.first, plan.most + 1):
        if stop_reason(plan, a[:rounds], b[:rounds], rounds, True) is not None:
            return rounds
    return plan.most


def wrong(verdict: str, delta: float) -> bool:
    return (verdict == "better" and delta <= 0) or (verdict == "worse" and delta >= 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=4000, help="simulated cases per cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max", type=int, default=10, dest="most")
    parser.add_argument("--width", type=float, default=0.3)
    parser.add_argument("--futility", type=float, default=AutoRuns.futility, help="0: never give up early")
    args = parser.parse_args()
    plan = AutoRuns(most=args.most, width=args.width, futility=args.futility or None)
    naive_plan = _NaivePlan(plan)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(
        f"--runs auto:{plan.most}:{plan.width:g} (3 runs first; per-look level {plan.look_level:.4f}) "
        f"against fixed {plan.most} runs per arm; {args.cases} cases per cell, seed {args.seed}\n"
    )
    print(
        f"{'model':<9} {'p_with':>6} {'p_w/o':>6} {'Δ':>5}  {'runs auto':>9} {'naive':>6}  "
        f"{'agree':>6} {'naive':>6}  {'wrong fixed':>11} {'auto':>6} {'naive':>6}"
    )
    totals = {"auto": 0, "naive": 0, "fixed": 0, "agree": 0, "agree_naive": 0, "cases": 0}
    null_wrong = {"fixed": 0, "auto": 0, "naive": 0, "cases": 0}
    for model, graders in MODELS.items():
        for p_with, p_without in product(P_WITH, P_WITHOUT):
            delta = p_with - p_without
            runs = {"auto": 0, "naive": 0}
            agree = {"auto": 0, "naive": 0}
            bad = {"fixed": 0, "auto": 0, "naive": 0}
            for _ in range(args.cases):
                a, b = draw(rng, p_with, graders, plan.most), draw(rng, p_without, graders, plan.most)
                fixed = decision(a, b)
                bad["fixed"] += wrong(fixed, delta)
                for name, rule in (("auto", plan), ("naive", naive_plan)):
                    n = auto_runs(rule, a, b)  # type: ignore[arg-type]
                    verdict = decision(a[:n], b[:n])
                    runs[name] += n
                    agree[name] += verdict == fixed
                    bad[name] += wrong(verdict, delta)
            c = args.cases
            print(
                f"{model:<9} {p_with:>6.1f} {p_without:>6.1f} {delta:>+5.1f}  {runs['auto'] / c:>9.2f} "
                f"{runs['naive'] / c:>6.2f}  {agree['auto'] / c:>6.3f} {agree['naive'] / c:>6.3f}  "
                f"{bad['fixed'] / c:>11.3f} {bad['auto'] / c:>6.3f} {bad['naive'] / c:>6.3f}"
            )
            totals["auto"] += runs["auto"]
            totals["naive"] += runs["naive"]
            totals["fixed"] += plan.most * c
            totals["agree"] += agree["auto"]
            totals["agree_naive"] += agree["naive"]
            totals["cases"] += c
            if delta == 0:
                for name in ("fixed", "auto", "naive"):
                    null_wrong[name] += bad[name]
                null_wrong["cases"] += c
    cases = totals["cases"]
    print()
    print(
        f"runs per arm, mean over every cell: auto {totals['auto'] / cases:.2f}, naive {totals['naive'] / cases:.2f}, "
        f"fixed {plan.most}"
    )
    print(
        f"cost of auto / fixed {plan.most}: {totals['auto'] / totals['fixed']:.3f} "
        f"(saved {1 - totals['auto'] / totals['fixed']:.1%}); same decision as fixed: {totals['agree'] / cases:.1%}"
    )
    print(
        f"cost of naive / fixed {plan.most}: {totals['naive'] / totals['fixed']:.3f}; "
        f"same decision: {totals['agree_naive'] / cases:.1%}"
    )
    n0 = null_wrong["cases"]
    print(
        f"false decisions when Δ = 0 (cells with p_with = p_without): fixed {null_wrong['fixed'] / n0:.3f}, "
        f"auto {null_wrong['auto'] / n0:.3f}, naive {null_wrong['naive'] / n0:.3f}"
    )
    print(f"\n{time.perf_counter() - started:.1f} s")


class _NaivePlan:
    """The rule with every look at the nominal level (no correction for looking again)."""

    def __init__(self, plan: AutoRuns):
        self._plan = plan

    def __getattr__(self, name):
        return getattr(self._plan, name)

    @property
    def look_level(self) -> float:
        return self._plan.level


if __name__ == "__main__":
    main()
