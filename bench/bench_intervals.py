"""Coverage and width of Δ's confidence interval, by simulation: the old Welch t-interval against the one the
package ships (`pytest_plugin_eval.stats.delta_interval`), and the other candidates that were considered.

    .venv/bin/python bench/bench_intervals.py [--sessions 40000] [--seed 1] [--level 0.95] [--jobs 2]
        [--models binary,graders4] [--fine]

A cell is a score model, n runs per arm and true pass rates p_with × p_without (0.5, 0.7, 0.9 × 0.2, 0.5, 0.7):

- `binary`: all-or-nothing run scores, 1 with probability p, else 0 (one grader, or graders that pass together);
- `graders4`: a run's score is k/4 with k ~ Binomial(4, p): four graders of equal weight, each passing with p;
- `correlated4` (not run by default): k ~ BetaBinomial(4, p, ρ = 0.5): four graders that tend to pass or fail
  together within a run, as real ones do.

A run's mean score is p in every model, so the true Δ is p_with − p_without. Each cell simulates `--sessions`
sessions (default 40 000: a coverage figure is then within ±0.5 % at 95 % confidence whatever its value, and
within ±0.22 % near 0.95). A session draws the runs of each arm; as a run's score takes G + 1 values (G = 1 or
4), an arm of n runs is drawn as the count of each value among its n runs, from their multinomial distribution
(the same thing as drawing the n runs one by one, and much faster in plain Python). Every candidate depends on an arm's scores only through n, Σ score and Σ score², so
intervals are computed once per pair of arm outcomes. Coverage = the share of sessions whose interval contains the
true Δ; width = the mean width. The old and the shipped interval are also computed exactly, by enumerating every
pair of arm outcomes with its probability, which checks the simulation (`exact` column, and `|sim − exact|`).

The goal: coverage ≥ 0.93 in every cell of both `binary` and `graders4`; among the candidates that meet it, the
one with the narrowest intervals (mean width over those cells) is chosen — the script says which and whether it
is the one the package ships. `--fine` adds an exact sweep of the old and the shipped interval over p_with,
p_without in 0.1 … 0.9 (every pair, 81 per n), to show what lies between the grid's cells.

Plain Python with a fixed seed (numpy is not a dependency of the project); `--jobs` worker processes.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import product

from pytest_plugin_eval.stats import delta_interval, z_quantile

N_RUNS = (3, 5, 10)
P_WITH = (0.5, 0.7, 0.9)
P_WITHOUT = (0.2, 0.5, 0.7)
GOAL = 0.93
GOAL_MODELS = ("binary", "graders4")
MODELS = {"binary": 1, "graders4": 4, "correlated4": 4}  # graders per run
CORRELATION = 0.5  # of correlated4's graders within a run

Interval = tuple[float, float]
Method = Callable[[Sequence[float], Sequence[float], float], Interval]


# ---- the candidates ----------------------------------------------------------------------------------------

# Two-sided 95% quantiles of Student's t by degrees of freedom (larger df use the next smaller entry): the old
# interval, as the package had it.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
T95.update({12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980})


def t95(df: float) -> float:
    return 1.960 if df >= 1000 else T95[max(k for k in T95 if k <= max(df, 1))]


def welch(a: Sequence[float], b: Sequence[float], level: float) -> Interval:
    """The old interval: Welch's t on the run scores, Welch–Satterthwaite df rounded down (95% only)."""
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1) / na
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1) / nb
    delta = ma - mb
    if va + vb == 0:
        return (delta, delta)
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    half = t95(math.floor(df)) * math.sqrt(va + vb)
    return (delta - half, delta + half)


def wilson(x: float, n: int, z: float, cc: bool) -> Interval:
    """Wilson's score interval for a proportion x/n (x may be fractional), with Yates' continuity correction
    as Newcombe (1998) gives it when `cc`."""
    p, z2 = x / n, z * z
    if not cc:
        centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        half /= 1 + z2 / n
        return (max(0.0, centre - half), min(1.0, centre + half))
    low = 0.0 if p <= 0 else (2 * n * p + z2 - 1 - z * math.sqrt(max(0.0, z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))))
    high = 1.0 if p >= 1 else (2 * n * p + z2 + 1 + z * math.sqrt(max(0.0, z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))))
    if p > 0:
        low /= 2 * (n + z2)
    if p < 1:
        high /= 2 * (n + z2)
    return (max(0.0, low), min(1.0, high))


def newcombe(cc: bool) -> Method:
    """Newcombe's hybrid score interval (MOVER from each arm's Wilson interval) on Σ score as a fractional
    success count."""

    def interval(a: Sequence[float], b: Sequence[float], level: float) -> Interval:
        z = z_quantile(level)
        pa, pb = sum(a) / len(a), sum(b) / len(b)
        la, ua = wilson(sum(a), len(a), z, cc)
        lb, ub = wilson(sum(b), len(b), z, cc)
        delta = pa - pb
        return (delta - math.hypot(pa - la, ub - pb), delta + math.hypot(ua - pa, pb - lb))

    return interval


def agresti_caffo_counts(a: Sequence[float], b: Sequence[float], level: float) -> Interval:
    """Agresti–Caffo on Σ score as a fractional success count: binomial variance p̃(1 − p̃)/(n + 2), blind to
    the scores' spread."""
    z = z_quantile(level)
    pa, pb = (sum(a) + 1) / (len(a) + 2), (sum(b) + 1) / (len(b) + 2)
    half = z * math.sqrt(pa * (1 - pa) / (len(a) + 2) + pb * (1 - pb) / (len(b) + 2))
    return (max(-1.0, pa - pb - half), min(1.0, pa - pb + half))


def percentile_bootstrap(a: Sequence[float], b: Sequence[float], level: float) -> Interval:
    """The percentile bootstrap of Δ, its resampling distribution computed exactly (all-or-nothing scores
    only: an arm's resampled pass count is Binomial(n, c/n)). A studentized bootstrap is not defined here: at
    n = 3 a third or more of the resamples of an arm have no spread at all."""
    alpha = (1 - level) / 2

    def resampled(scores: Sequence[float]) -> list[float]:
        n, rate = len(scores), sum(scores) / len(scores)
        return [math.comb(n, k) * rate**k * (1 - rate) ** (n - k) for k in range(n + 1)]

    pa, pb = resampled(a), resampled(b)
    deltas: dict[float, float] = {}
    for i, qa in enumerate(pa):
        for j, qb in enumerate(pb):
            key = round(i / len(a) - j / len(b), 12)
            deltas[key] = deltas.get(key, 0.0) + qa * qb
    low = high = None
    total = 0.0
    for value in sorted(deltas):
        total += deltas[value]
        if low is None and total >= alpha - 1e-12:
            low = value
        if high is None and total >= 1 - alpha - 1e-12:
            high = value
    assert low is not None and high is not None
    return (low, high)


def shipped(a: Sequence[float], b: Sequence[float], level: float) -> Interval:
    out = delta_interval(a, b, level)
    assert out is not None
    return out


CANDIDATES: dict[str, Method] = {
    "welch (old)": welch,
    "newcombe": newcombe(cc=False),
    "newcombe-cc": newcombe(cc=True),
    "ac-counts": agresti_caffo_counts,
    "bootstrap": percentile_bootstrap,
    "delta_interval": shipped,
}
BINARY_ONLY = ("bootstrap",)  # run on the binary model alone
EXACT = ("welch (old)", "delta_interval")  # also computed exactly (the others by simulation only)
DESCRIPTIONS = {
    "welch (old)": "Welch t-interval on the run scores (the old deltaCI)",
    "newcombe": "Newcombe hybrid score (Wilson MOVER) on Σ score",
    "newcombe-cc": "the same with continuity correction",
    "ac-counts": "Agresti–Caffo on Σ score (binomial variance)",
    "bootstrap": "percentile bootstrap, exact resampling distribution (binary model only)",
    "delta_interval": "stats.delta_interval: Agresti–Caffo with pseudo-runs 1 and 0, the scores' own variance",
}


# ---- an arm's outcomes ----------------------------------------------------------------------------------------


def compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to split n runs among `parts` score values."""
    if parts == 1:
        return [(n,)]
    return [(c, *rest) for c in range(n + 1) for rest in compositions(n - c, parts - 1)]


def run_score_pmf(model: str, p: float) -> list[float]:
    """P(a run scores k/G) for k = 0 … G."""
    g = MODELS[model]
    if model == "correlated4":
        alpha, beta = p * (1 - CORRELATION) / CORRELATION, (1 - p) * (1 - CORRELATION) / CORRELATION

        def lbeta(x: float, y: float) -> float:
            return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)

        return [math.comb(g, k) * math.exp(lbeta(k + alpha, g - k + beta) - lbeta(alpha, beta)) for k in range(g + 1)]
    return [math.comb(g, k) * p**k * (1 - p) ** (g - k) for k in range(g + 1)]


class Arm:
    """The outcomes of an arm of n runs: each split of the runs among the score values, its scores, and the
    summary (Σ, Σ²) that the intervals depend on."""

    def __init__(self, model: str, n: int):
        self.g = MODELS[model]
        self.model, self.n = model, n
        self.splits = compositions(n, self.g + 1)
        self.scores = [tuple(k / self.g for k, c in enumerate(split) for _ in range(c)) for split in self.splits]
        keys: dict[tuple[int, int], int] = {}
        self.summary = []  # split → summary index
        for split in self.splits:
            key = (sum(k * c for k, c in enumerate(split)), sum(k * k * c for k, c in enumerate(split)))
            self.summary.append(keys.setdefault(key, len(keys)))
        self.representative = [self.scores[self.summary.index(i)] for i in range(len(keys))]

    def split_probabilities(self, p: float) -> list[float]:
        pmf = run_score_pmf(self.model, p)
        out = []
        for split in self.splits:
            prob = float(math.factorial(self.n))
            for c, q in zip(split, pmf, strict=True):
                prob *= q**c / math.factorial(c)
            out.append(prob)
        return out

    def summary_probabilities(self, p: float) -> list[float]:
        out = [0.0] * len(self.representative)
        for i, prob in zip(self.summary, self.split_probabilities(p), strict=True):
            out[i] += prob
        return out


# ---- one model and n: the simulation and the exact figures ------------------------------------------------


def interval_matrices(arm: Arm, level: float, names: Sequence[str]) -> dict[str, list[list[Interval]]]:
    """Each candidate's interval for every pair of arm outcomes (with × without), by summary index."""
    reps = arm.representative
    return {name: [[CANDIDATES[name](a, b, level) for b in reps] for a in reps] for name in names}


def coverage(matrix: list[list[Interval]], pa: list[float], pb: list[float], delta: float) -> tuple[float, float]:
    """Exact coverage and mean width: every pair of arm outcomes weighted by its probability."""
    cov = width = 0.0
    low_d, high_d = delta + 1e-12, delta - 1e-12
    for qa, row in zip(pa, matrix, strict=True):
        if qa < 1e-15:
            continue
        row_cov = row_width = 0.0
        for qb, (low, high) in zip(pb, row, strict=True):
            if low <= low_d and high_d <= high:
                row_cov += qb
            row_width += qb * (high - low)
        cov += qa * row_cov
        width += qa * row_width
    return cov, width


def measure(model: str, n: int, cells: list[tuple[float, float]], sessions: int, seed: int, level: float) -> dict:
    """Simulated coverage and mean width of every candidate in each cell of one model and n; exact ones for
    the old interval and the shipped one."""
    rng = random.Random(f"{seed}:{model}:{n}")
    arm = Arm(model, n)
    names = [name for name in CANDIDATES if model == "binary" or name not in BINARY_ONLY]
    matrices = interval_matrices(arm, level, names)
    out: dict = {}
    for p_with, p_without in cells:
        delta = p_with - p_without
        draws = []
        for p in (p_with, p_without):
            picked = rng.choices(range(len(arm.splits)), weights=arm.split_probabilities(p), k=sessions)
            draws.append([arm.summary[k] for k in picked])
        pa, pb = arm.summary_probabilities(p_with), arm.summary_probabilities(p_without)
        for name, matrix in matrices.items():
            covered, width = 0, 0.0
            for i, j in zip(*draws, strict=True):
                low, high = matrix[i][j]
                covered += low - 1e-12 <= delta <= high + 1e-12
                width += high - low
            exact = coverage(matrix, pa, pb, delta) if name in EXACT else (math.nan, math.nan)
            out[(p_with, p_without, name)] = (covered / sessions, width / sessions, *exact)
    return out


def measure_task(args: tuple) -> tuple[str, int, dict]:
    model, n, cells, sessions, seed, level = args
    return model, n, measure(model, n, cells, sessions, seed, level)


def fine_task(args: tuple) -> tuple[str, int, dict]:
    """Exact coverage of the old and the shipped interval over p_with, p_without in 0.1 … 0.9 (no simulation)."""
    model, n, level = args
    grid = [round(0.1 * i, 1) for i in range(1, 10)]
    arm = Arm(model, n)
    probs = {p: arm.summary_probabilities(p) for p in grid}
    out: dict = {}
    for name, matrix in interval_matrices(arm, level, EXACT).items():
        for p_with, p_without in product(grid, grid):
            out[(p_with, p_without, name)] = coverage(matrix, probs[p_with], probs[p_without], p_with - p_without)
    return model, n, out


# ---- the report ----------------------------------------------------------------------------------------------


def run_all(tasks: list[tuple], fn: Callable, jobs: int) -> list:
    if jobs <= 1:
        return [fn(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, tasks))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=40_000, help="simulated sessions per cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--models", default=",".join(GOAL_MODELS), help="binary, graders4, correlated4 or all")
    parser.add_argument("--fine", action="store_true", help="also an exact sweep over p in 0.1 … 0.9")
    args = parser.parse_args(argv)
    models = list(MODELS) if args.models == "all" else [m.strip() for m in args.models.split(",")]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    cells = list(product(P_WITH, P_WITHOUT))
    started = time.perf_counter()
    tasks = [(m, n, cells, args.sessions, args.seed, args.level) for m in models for n in sorted(N_RUNS, reverse=True)]
    results = {(m, n): r for m, n, r in run_all(tasks, measure_task, args.jobs)}

    print(f"Δ interval coverage at level {args.level}: {args.sessions:,} simulated sessions per cell, seed {args.seed}")
    print("cov = share of sessions whose interval holds the true Δ; width = mean width; exact = by enumeration\n")
    head = f"{'model':<12}{'n':>3}{'p_with':>8}{'p_w/o':>7}{'Δ':>6}   {'welch (old)':^15}   {'delta_interval':^23}"
    print(head)
    print(f"{'':<36}   {'cov':>7}{'width':>8}   {'cov':>7}{'width':>8}{'exact':>8}")
    worst_mc = 0.0
    for model in models:
        for n in N_RUNS:
            for p_with, p_without in cells:
                old = results[(model, n)][(p_with, p_without, "welch (old)")]
                new = results[(model, n)][(p_with, p_without, "delta_interval")]
                flag = " <" if new[0] < GOAL else ""
                print(
                    f"{model:<12}{n:>3}{p_with:>8.1f}{p_without:>7.1f}{p_with - p_without:>+6.1f}"
                    f"   {old[0]:>7.3f}{old[1]:>8.2f}   {new[0]:>7.3f}{new[1]:>8.2f}{new[2]:>8.3f}{flag}"
                )
                for name in EXACT:
                    sim, _, exact, _ = results[(model, n)][(p_with, p_without, name)]
                    worst_mc = max(worst_mc, abs(sim - exact))
        print()
    print(f"largest |simulated − exact| coverage over the cells of both intervals: {worst_mc:.4f}\n")

    print(f"Candidates (simulated; goal: coverage ≥ {GOAL} in every cell of {' and '.join(GOAL_MODELS)})")
    print(f"{'candidate':<16}" + "".join(f"{m + ' min/mean cov, width':>36}" for m in models) + "   goal")
    meets: dict[str, float] = {}
    for name in CANDIDATES:
        line, ok, widths = f"{name:<16}", True, []
        for model in models:
            if (*cells[0], name) not in results[(model, N_RUNS[0])]:
                line += f"{'–':>36}"
                ok = ok and model not in GOAL_MODELS  # not measured there: cannot be shown to meet the goal
                continue
            figures = [results[(model, n)][(pw, pwo, name)] for n in N_RUNS for pw, pwo in cells]
            covs, ws = [f[0] for f in figures], [f[1] for f in figures]
            line += f"{min(covs):>20.3f}{sum(covs) / len(covs):>8.3f}{sum(ws) / len(ws):>8.2f}"
            if model in GOAL_MODELS:
                ok = ok and min(covs) >= GOAL
                widths += ws
        goal_known = all(m in models for m in GOAL_MODELS)
        if goal_known:
            line += "   " + ("met" if ok else "missed")
        print(line)
        if ok and goal_known:
            meets[name] = sum(widths) / len(widths)
    for name, text in DESCRIPTIONS.items():
        print(f"  {name:<16}{text}")
    if meets:
        best = min(meets, key=lambda k: meets[k])
        verdict = "the package's" if best == "delta_interval" else "NOT the package's"
        print(f"\nNarrowest that meets the goal: {best} (mean width {meets[best]:.3f}) — {verdict} delta_interval")

    if args.fine:
        grid_tasks = [(m, n, args.level) for m in models for n in sorted(N_RUNS, reverse=True)]
        fine = {(m, n): r for m, n, r in run_all(grid_tasks, fine_task, args.jobs)}
        print(
            "\nExact sweep, p_with and p_without in 0.1 … 0.9: the lowest coverage (at p_with, p_without), mean width"
        )
        for model in models:
            for name in EXACT:
                parts = []
                for n in N_RUNS:
                    figures = {k: v for k, v in fine[(model, n)].items() if k[2] == name}
                    worst = min(figures, key=lambda k: figures[k][0])
                    width = sum(v[1] for v in figures.values()) / len(figures)
                    parts.append(f"n={n}: {figures[worst][0]:.3f} ({worst[0]}, {worst[1]}) {width:.2f}")
                print(f"  {model:<12}{name:<16}" + "   ".join(parts))
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
