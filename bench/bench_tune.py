"""What `plugin-eval tune` buys, and how often it fools itself. Prints figures; asserts nothing.

1. **Held-out accuracy before/after** on the "description words" model (the scripted rule of
   load/description_words.py, made noisy): each should-fire query belongs to a topic and fires (with
   probability `--hit`) when the description names the topic's word, else rarely (`--miss`); each near-miss
   fires when the description holds a word that lures it. The original description names one topic and one lure.
   The simulated proposer sees what the real one sees — the train failures — and adds the topic words of the
   failing should-fire queries and drops the lures of the failing near-misses, or, with probability `--overfit`,
   pastes the failing train queries' own ids (which helps train only). The real loop (tune/loop.py: split, rounds, early stops, choice,
   test) runs on it; the measuring is simulated (no Claude Code), so thousands of tunings take seconds. Printed:
   test accuracy of the original and of the result, how often a winner was found, the agent runs a tuning used.
2. **False improvement** when no candidate is truly better: every description has the same true fire rate per
   query; `choose` (tune/rules.py) over the candidates of `--rounds` × `--candidates`, for several
   validation sizes. The goal is ≤ 5%.

    .venv/bin/python bench/bench_tune.py
    .venv/bin/python bench/bench_tune.py --tunings 400 --trials 4000 --runs 5
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import tempfile
from pathlib import Path

import yaml

from pytest_plugin_eval.cli.commands.tune import parse
from pytest_plugin_eval.tune.loop import Tuning
from pytest_plugin_eval.tune.measure import Measured
from pytest_plugin_eval.tune.propose import Proposer
from pytest_plugin_eval.tune.result import Cost, TuneResult, scored
from pytest_plugin_eval.tune.rules import choose

TOPICS = ["salutation", "farewell", "toast", "eulogy"]
LURES = ["translate", "summarise", "review"]


def plugin(root: Path, per_label: int, runs: int) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "writer"}))
    (root / "skills" / "occasion").mkdir(parents=True)
    (root / "skills" / "occasion" / "SKILL.md").write_text(
        "---\nname: occasion\ndescription: Writes a salutation; can translate.\n---\nbody\n"
    )
    fire = [{"query": f"fire {i} topic {TOPICS[i % len(TOPICS)]}", "id": f"f{i}"} for i in range(per_label)]
    miss = [{"query": f"miss {i} lure {LURES[i % len(LURES)]}", "id": f"m{i}"} for i in range(per_label)]
    skills = {"occasion": {"should_fire": fire, "should_not_fire": miss}}
    (root / "evals").mkdir()
    (root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": runs, "skills": skills}))
    return root


class WordsModel:
    """The noisy description-words model, measured by sampling `runs` Bernoulli runs per query."""

    def __init__(self, rng: random.Random, runs: int, hit: float, miss: float):
        self.rng, self.runs, self.hit, self.miss = rng, runs, hit, miss
        self.used = 0

    def true_rate(self, description: str, q: str) -> float:
        words = set(re.findall(r"[a-z0-9]+", description.lower()))
        index = int(q[1:])
        if q.startswith("f"):
            return self.hit if TOPICS[index % len(TOPICS)] in words else self.miss
        return self.hit if LURES[index % len(LURES)] in words else self.miss

    def measure(self, description, trigger_set, ids, ceiling=None):
        rates, fires = {}, {}
        for q in ids:
            k = sum(self.rng.random() < self.true_rate(description, q) for _ in range(self.runs))
            rates[q], fires[q] = k / self.runs, (k, self.runs)
        self.used += len(ids) * self.runs
        return Measured(rates, fires, {q: {} for q in ids}, 0.0, len(ids) * self.runs, 0, 0)


def simulated_proposer(rng: random.Random, overfit: float):
    """Reads the failures out of the real prompt (train only) and edits the current description."""

    def ask(text: str, number: int):
        current = text.split("<current_description>")[1].split("</current_description>")[0].strip()
        failing = re.findall(r"should (fire|NOT fire), fired \d+/\d+: (fire|miss) (\d+) (?:topic|lure) (\w+)", text)
        words = current.rstrip(".").split()
        if failing and rng.random() < overfit:
            words += [f"case{index}" for _, _, index, _ in failing]  # names the train queries: helps nothing held out
        elif failing:
            words += sorted({word for label, _, _, word in failing if label == "fire"} - {w.lower() for w in words})
            lures = {word for label, _, _, word in failing if label == "NOT fire"}
            words = [w for w in words if w.strip(";,").lower() not in lures]
        else:
            words.append(rng.choice(TOPICS))
        return f"<description>{' '.join(words) or 'Writes.'}.</description>", 0.0, None

    return ask


def held_out(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    before, after, won, worse, runs_used = [], [], 0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        root = plugin(Path(tmp) / "p", args.per_label, args.runs)
        for n in range(args.tunings):
            t = Tuning(
                parse(
                    [
                        "occasion",
                        str(root),
                        "--trust-plugin",
                        "--seed",
                        str(n),
                        "--rounds",
                        str(args.rounds),
                        "--candidates",
                        str(args.candidates),
                    ]
                )
            )
            model = WordsModel(rng, args.runs, args.hit, args.miss)
            t.measurer = model  # type: ignore[assignment]
            t.proposer = Proposer(simulated_proposer(rng, args.overfit))
            result = TuneResult("writer:occasion", "occasion", "evals/triggers.yaml", n, {}, "", Cost(0, 0))
            with contextlib.redirect_stdout(io.StringIO()):  # the loop's progress lines
                t.loop(result)
            test = list(t.split.test)
            original = t.setup.skill.description
            final = result.best.description if result.best else original
            truth = {q: model.true_rate(original, q) for q in test}
            before.append(scored(truth, t.labels, test).score)
            truth = {q: model.true_rate(final, q) for q in test}
            after.append(scored(truth, t.labels, test).score)
            won += result.winner is not None
            worse += result.winner is not None and after[-1] < before[-1]
            runs_used.append(model.used)
    mean = sum(before) / len(before), sum(after) / len(after)
    print(
        f"held-out (test) accuracy, true rates, {args.tunings} tunings of {2 * args.per_label} queries, "
        f"{args.runs} runs/query, {args.rounds}×{args.candidates} candidates:"
    )
    print(
        f"  original {mean[0]:.3f} → tuned {mean[1]:.3f}  (gain {mean[1] - mean[0]:+.3f}); a winner in "
        f"{won / args.tunings:.0%} of tunings, {worse} of them truly worse on test than the original"
    )
    print(f"  agent runs per tuning: mean {sum(runs_used) / len(runs_used):.0f}, max {max(runs_used)}")


def false_improvement(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed + 1)
    k = args.rounds * args.candidates
    print(f"false improvement: {k} candidates no better than the original (same true rates), {args.runs} runs/query")
    for per_label in (2, 3, 5, 10, 20):
        labels = {f"f{i}": True for i in range(per_label)} | {f"m{i}": False for i in range(per_label)}
        wins = 0
        for _ in range(args.trials):
            truth = {q: rng.random() for q in labels}

            def sample(truth: dict[str, float] = truth) -> dict[str, float]:
                return {q: sum(rng.random() < p for _ in range(args.runs)) / args.runs for q, p in truth.items()}

            wins += choose(sample(), [sample() for _ in range(k)], labels).winner is not None
        print(f"  validation {2 * per_label:>2} queries: {wins / args.trials:.1%} of {args.trials} trials")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tunings", type=int, default=200)
    p.add_argument("--trials", type=int, default=2000)
    p.add_argument("--per-label", type=int, default=16)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--candidates", type=int, default=2)
    p.add_argument("--hit", type=float, default=0.9)
    p.add_argument("--miss", type=float, default=0.1)
    p.add_argument("--overfit", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    held_out(args)
    false_improvement(args)


if __name__ == "__main__":
    main()
