"""`plugin-eval tune SKILL [TARGET]`: a better description for a skill, proposed by Claude from its trigger set's
train failures, chosen on validation with a paired interval, scored once on test, checked against the siblings.

    plugin-eval tune commit-message . --trust-plugin [--rounds 3] [--candidates 2] [--seed 0] [--runs N|auto]
        [--max-cost-usd X] [--scripted] [--model M] [--apply [--force]] [--output-dir DIR] [--json PATH]

The loop: split (tune/rules.py) → measure the original on train and validation → rounds of candidates
(tune/propose.py), each measured on train and validation (tune/measure.py) → choose → siblings → test.
Nothing of the plugin is written unless `--apply` is given, and then only the description in SKILL.md.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import UsageError
from ..engine.option_values import parse_runs
from ..lint.prompt import named_queries
from ..load.on_disk import read_suite
from ..load.skills import Component
from ..load.suite import plugin_eval_dir
from ..load.triggers import TriggerSet
from ..results.registry import kind
from ..results.store import RESULTS_DIR
from .apply import rewrite_description
from .cost import TuneShape, estimate
from .measure import Measured, Measurer
from .propose import Attempt, Failure, Proposer, claude_asker, load_proposer_script, prompt
from .result import Candidate, Cost, Original, SiblingCheck, TuneResult, scored
from .rules import Labelled, choose, correctness, is_flat, paired, ranked, split

DEFAULT_ROUNDS = 3
DEFAULT_CANDIDATES = 2
SMALL_VALIDATION = 10  # below this many validation queries, say that only a sweeping gain can be proven
STEAL_SHARE = 0.5  # a sibling's should-fire query is stolen when the tuned skill takes more than this share


class TuneError(UsageError):
    """A tuning that cannot start: the skill, its trigger set or the options; the message says the fix."""


@dataclass
class Setup:
    root: Path
    eval_root: Path
    target: TriggerSet
    siblings: list[TriggerSet]
    skill: Component


def find_sets(args: argparse.Namespace) -> Setup:
    root = Path(args.target).absolute()
    if not root.is_dir():
        raise TuneError(f"✗ {args.target}: no such plugin folder")
    eval_root = plugin_eval_dir(root, args.eval_dir)
    suite = read_suite(root, eval_root, None, args.trigger_skill) if eval_root.is_dir() else None
    if suite is not None and suite.trigger_errors:
        raise TuneError(str(suite.trigger_errors[0][1]))
    sets = suite.trigger_sets if suite is not None else []
    mine = [s for s in sets if s.skill.answers_to(args.skill)]
    if not mine:
        known = sorted({s.name for s in sets}) or ["none"]
        raise TuneError(
            f"✗ no trigger set for {args.skill!r} in {eval_root} (sets for: {', '.join(known)}): write one with "
            "`plugin-eval init --triggers` (docs/triggers.md)"
        )
    if len(mine) > 1:
        files = ", ".join(s.rel_file for s in mine)
        raise TuneError(f"✗ {args.skill!r} has trigger sets in several files ({files}): keep one to tune on")
    target = mine[0]
    if target.skill.kind != "skill":
        raise TuneError(f"✗ {target.skill.name} is a command: tune rewrites a skill's SKILL.md description")
    refuse_named_queries(target)
    return Setup(root, eval_root, target, [s for s in sets if s is not target], target.skill)


def refuse_named_queries(target: TriggerSet) -> None:
    """A query that names the skill (or a sibling, or the plugin) tells Claude what to pick: it measures nothing
    about the description tune rewrites, and a description "improved" on it is noise (lint/prompt.py decides)."""
    named = named_queries(target)
    if named:
        listed = "; ".join(f'{qid}: names {label} ("{words}")' for qid, (label, words) in named)
        raise TuneError(
            f"✗ {target.rel_file}: {len(named)} quer{'y' if len(named) == 1 else 'ies'} of {target.name} name what "
            f"Claude should pick ({listed}) — tune measures whether the description alone makes Claude pick the "
            "skill: reword them as a user who never heard of the plugin would"
        )


def git_dirty(folder: Path) -> str | None:
    """What `git status` says is uncommitted under `folder` (None: clean); "" when it is no git work tree."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--", "."], cwd=folder, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if done.returncode != 0:
        return ""
    changed = [line for line in done.stdout.splitlines() if f"/{RESULTS_DIR}/" not in line]
    return "\n".join(changed) or None


class Tuning:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        if not args.trust_plugin:
            raise TuneError(
                "✗ tune runs the plugin (its hooks, servers and skills) in many sessions as you: pass --trust-plugin"
            )
        self.setup = find_sets(args)
        if args.apply and not args.force:
            dirty = git_dirty(self.setup.root)
            if dirty == "":
                raise TuneError(
                    f"✗ --apply: {self.setup.root} is not in a git work tree, so the old SKILL.md could not be "
                    "restored: commit it first, or pass --force"
                )
            if dirty:
                raise TuneError(
                    f"✗ --apply: {self.setup.root} has uncommitted changes; commit or stash them, or pass --force:\n"
                    + dirty
                )
        t = self.setup.target
        self.labels = {q.id: q.should_fire for q in t.queries}
        self.split = split([Labelled(q.id, q.should_fire) for q in t.queries], args.seed, t.name, t.rel_file)
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
        default_out = self.setup.eval_root / RESULTS_DIR / f"tune-{t.name}-{stamp}"
        self.out = Path(args.output_dir).absolute() if args.output_dir else default_out
        self.spent = 0.0
        self.runs_used = 0

    # -- the loop ------------------------------------------------------------

    def run(self) -> int:
        args, t = self.args, self.setup.target
        shape = self.shape()
        guess = estimate(shape)
        result = TuneResult(
            skill=t.skill.qualified_name,
            name=t.name,
            file=t.rel_file,
            seed=args.seed,
            queries={
                q.id: {"query": q.query, "shouldFire": q.should_fire, "part": self.split.part_of(q.id)}
                for q in t.queries
            },
            original=Original(t.skill.description),
            cost=Cost(guess.cost_usd, guess.agent_runs, args.max_cost_usd),
        )
        print(
            f"tune {t.skill.qualified_name}: {len(self.split.train)} train · {len(self.split.validation)} validation"
            f" · {len(self.split.test)} test queries (seed {args.seed}); up to {args.rounds} round(s) × "
            f"{args.candidates} candidate(s)"
        )
        print(
            f"estimate: at most {guess.agent_runs} agent runs and {guess.proposer_calls} proposer calls, "
            f"${guess.cost_usd:.2f} at list prices"
            + (f"; ceiling ${args.max_cost_usd:.2f}" if args.max_cost_usd is not None else "")
            + (" (--scripted: answered offline, the spent figure prices the scripted tokens)" if args.scripted else "")
        )
        print(f"  {guess.arithmetic}")
        with tempfile.TemporaryDirectory(prefix="plugin-eval-tune-") as tmp:
            skipped = (self.setup.eval_root / RESULTS_DIR, self.out)
            self.measurer = Measurer(self.setup.root, t.skill.path, Path(tmp), self.inner_options(), skipped)
            with self.endpoint() as endpoint:
                self.proposer = Proposer(self.asker(endpoint, Path(tmp)))
                self.loop(result)
        result.cost.spent_usd = self.spent
        result.cost.agent_runs = self.runs_used
        result.cost.proposer_calls = self.proposer.calls
        return self.finish(result)

    def loop(self, result: TuneResult) -> None:
        t, sp = self.setup.target, self.split
        trainval = [*sp.train, *sp.validation]
        original = self.measure(t.skill.description, t, trainval, result, "the original on train and validation")
        if original is None:
            return
        result.original.train = scored(original.rates, self.labels, sp.train)
        result.original.validation = scored(original.rates, self.labels, sp.validation)
        best_train, best_rates, best_text = result.original.train.score, original.rates, t.skill.description
        result.stop = f"{self.args.rounds} round(s) done"
        if best_train >= 1.0:  # no failure to propose from: asking would only spend
            result.stop = "train is already perfect with the original: nothing to propose from"
            self.decide(result)
            return
        for round_number in range(1, self.args.rounds + 1):
            round_best, before = -1.0, best_train
            for _ in range(self.args.candidates):
                if self.over_ceiling(result):
                    return
                text = self.proposer_prompt(best_text, best_rates, result)
                taken = [t.skill.description, *(c.description for c in result.candidates)]
                proposal = self.proposer.propose(text, taken)
                self.spend(proposal.cost_usd)
                result.cost.proposer_usd += proposal.cost_usd
                if proposal.description is None:
                    why = "; ".join((*proposal.rejected, *proposal.errors))
                    result.notes.append(f"round {round_number}: the proposer gave no valid description ({why})")
                    continue
                measured = self.measure(proposal.description, t, trainval, result, f"round {round_number}'s candidate")
                if measured is None:
                    return
                candidate = Candidate(round_number, proposal.description, rejected=list(proposal.rejected))
                candidate.train = scored(measured.rates, self.labels, sp.train)
                candidate.validation = scored(measured.rates, self.labels, sp.validation)
                result.candidates.append(candidate)
                round_best = max(round_best, candidate.train.score)
                if candidate.train.score > best_train:
                    best_train, best_rates, best_text = candidate.train.score, measured.rates, candidate.description
            if best_train >= 1.0:
                result.stop = f"train is perfect after round {round_number}"
                break
            if round_best <= before:
                result.stop = f"nothing improved on train in round {round_number}"
                break
        self.decide(result)

    def decide(self, result: TuneResult) -> None:
        t, sp = self.setup.target, self.split
        if not result.candidates:
            result.outcome = "no_candidates" if self.proposer.calls else "nothing_better"
        else:
            original_val = result.original.validation.rates if result.original.validation else {}
            vals = [c.validation.rates if c.validation else {} for c in result.candidates]
            val_labels = {q: self.labels[q] for q in sp.validation}
            choice = choose(original_val, vals, val_labels)
            for candidate, comparison in zip(result.candidates, choice.comparisons, strict=True):
                candidate.vs_original = comparison
            result.winner = choice.winner
            result.outcome = choice.reason
            everything = [
                {**(result.original.train.rates if result.original.train else {}), **original_val},
                *(
                    {**(c.train.rates if c.train else {}), **(c.validation.rates if c.validation else {})}
                    for c in result.candidates
                ),
            ]
            if result.outcome != "improved":  # flat over everything measured, train included, not validation only
                result.outcome = "flat" if is_flat(everything) else "nothing_better"
        if result.outcome == "nothing_better" and result.candidates and len(sp.validation) < SMALL_VALIDATION:
            result.notes.append(
                f"validation has {len(sp.validation)} queries: only a candidate right on nearly all of them where the "
                "original is wrong can be proven better; add queries of each label to the trigger set to let smaller "
                "gains show"
            )
        if result.winner is not None:
            self.honest_winner(result)
        if result.outcome == "stopped":
            return
        winner = result.best
        original = self.measure(t.skill.description, t, list(sp.test), result, "the original on test")
        if original is None:
            return
        result.original.test = scored(original.rates, self.labels, sp.test)
        if winner is not None:
            measured = self.measure(winner.description, t, list(sp.test), result, "the winner on test")
            if measured is None:
                return
            result.winner_test = scored(measured.rates, self.labels, sp.test)
            test_labels = {q: self.labels[q] for q in sp.test}
            if result.winner_test.rates and result.original.test.rates:
                result.test_margin = paired(result.winner_test.rates, result.original.test.rates, test_labels)

    def honest_winner(self, result: TuneResult) -> None:
        """The best candidate that leaves the siblings' queries alone: one that takes them is passed over for the next
        better one. `result.siblings` keeps the checks of the winner (none left: of the best, which says why)."""
        first_checks: list[SiblingCheck] | None = None
        for index in ranked([c.vs_original for c in result.candidates]):
            result.siblings = []
            if self.siblings_ok(result.candidates[index].description, result):
                result.winner = index
                return
            if result.outcome == "stopped":
                return
            taken = ", ".join(f"{s.skill} ({len(s.stolen)})" for s in result.siblings if s.stolen)
            result.notes.append(f"candidate {index + 1} takes queries of {taken}: passed over")
            first_checks = result.siblings if first_checks is None else first_checks
        result.siblings = first_checks or []
        result.outcome, result.winner = "thief", None

    def siblings_ok(self, description: str, result: TuneResult) -> bool:
        """Each sibling's own trigger set, run with the winner: its should-fire queries must stay its own."""
        me = self.setup.skill.qualified_name
        clean = True
        for sibling in self.setup.siblings:
            ids = [q.id for q in sibling.queries if q.should_fire]
            if not ids:
                continue
            measured = self.measure(description, sibling, ids, result, f"{sibling.name}'s queries with the winner")
            if measured is None:
                return False
            stolen = [
                q
                for q, counts in measured.taken_by.items()
                if sum(counts.values()) and counts.get(me, 0) / sum(counts.values()) > STEAL_SHARE
            ]
            result.siblings.append(SiblingCheck(sibling.skill.qualified_name, len(ids), stolen))
            clean = clean and not stolen
        return clean

    # -- pieces ----------------------------------------------------------------

    def measure(
        self, description: str, trigger_set: TriggerSet, ids: list[str], result: TuneResult, what: str = ""
    ) -> Measured | None:
        """One inner trigger session; None once the loop has to stop (the ceiling, runs that decided nothing)."""
        if self.over_ceiling(result):
            return None
        if what:
            print(f"  measuring {what}: {len(ids)} queries (spent so far ${self.spent:.4f})", flush=True)
        left = None if self.args.max_cost_usd is None else self.args.max_cost_usd - self.spent
        measured = self.measurer.measure(description, trigger_set, ids, left)
        self.spend(measured.cost_usd)
        self.runs_used += measured.runs
        if measured.skipped:
            result.outcome = "stopped"
            if measured.ceiling_hit or self.over_ceiling(result, quiet=True):
                result.stop = f"stopped at the cost ceiling: ${self.spent:.4f} spent of ${self.args.max_cost_usd:.4f}"
            else:
                result.stop = f"stopped: {measured.skipped} query(ies) of {trigger_set.name} decided no run (errors)"
            return None
        if measured.errors:
            result.notes.append(f"{measured.errors} run(s) of {trigger_set.name} erred and were left out of the rates")
        return measured

    def over_ceiling(self, result: TuneResult, quiet: bool = False) -> bool:
        ceiling = self.args.max_cost_usd
        if ceiling is None or self.spent < ceiling:
            return False
        if not quiet:
            result.outcome = "stopped"
            result.stop = f"stopped at the cost ceiling: ${self.spent:.4f} spent of ${ceiling:.4f}"
        return True

    def spend(self, usd: float) -> None:
        self.spent += usd

    def proposer_prompt(self, current: str, rates: dict[str, float], result: TuneResult) -> str:
        t = self.setup.target
        by_id = {q.id: q for q in t.queries}
        failures = []
        for q in self.split.train:  # train only: validation and test never reach the proposer
            if q in rates and correctness(rates[q], self.labels[q]) < 1.0:
                runs = t.runs
                failures.append(Failure(by_id[q].query, self.labels[q], round(rates[q] * runs), runs))
        attempts = [
            Attempt(c.description, c.train.score, c.train.right, c.train.total) for c in result.candidates if c.train
        ]
        siblings = [c for c in t.components if c != t.skill]
        skill_md = t.skill.path.read_text(encoding="utf-8")
        return prompt(t.skill.qualified_name, skill_md, siblings, current, failures, attempts, t.skill.when_to_use)

    def shape(self) -> TuneShape:
        t = self.setup.target
        fixed, auto = parse_runs(self.args.runs, None)  # as the session of the trigger runs reads it
        runs = fixed or t.runs
        if auto is not None:
            runs *= 2  # `auto` adds runs to undecided queries: count them at most doubled
        sibling_queries = sum(1 for s in self.setup.siblings for q in s.queries if q.should_fire)
        return TuneShape(
            train=len(self.split.train),
            validation=len(self.split.validation),
            test=len(self.split.test),
            runs=runs,
            max_turns=t.max_turns,
            rounds=self.args.rounds,
            candidates=self.args.candidates,
            sibling_queries=sibling_queries,
            model=self.args.model or t.model,
        )

    def inner_options(self) -> list[str]:
        a = self.args
        options = ["--trust-plugin"]
        options += ["--scripted"] if a.scripted else []
        options += ["--runs", a.runs] if a.runs else []
        options += ["--model", a.model] if a.model else []
        options += ["--claude", a.claude] if a.claude else []
        options += ["--eval-dir", a.eval_dir] if a.eval_dir else []
        options += ["--trigger-skill", a.trigger_skill] if a.trigger_skill else []
        return options

    def endpoint(self):
        import contextlib

        if not self.args.scripted:
            return contextlib.nullcontext(None)
        from ..doubles.scripted import ScriptedEndpoint

        return ScriptedEndpoint()

    def asker(self, endpoint, work: Path):
        from ..run.agent import find_claude

        script = load_proposer_script(self.setup.eval_root) if self.args.scripted else None
        model = self.args.model or self.setup.target.model
        return claude_asker(find_claude(self.args.claude), model, script, endpoint, work)

    # -- the end -----------------------------------------------------------------

    def finish(self, result: TuneResult) -> int:
        from .report import html_page, terminal

        self.out.mkdir(parents=True, exist_ok=True)
        doc = kind("tune").text(result)  # as results.registry says tune.json is written
        (self.out / "tune.json").write_text(doc, encoding="utf-8")
        if self.args.json:
            Path(self.args.json).write_text(doc, encoding="utf-8")
        (self.out / "tune.html").write_text(html_page(result), encoding="utf-8")
        proposed = None
        winner = result.best
        skill_md = self.setup.skill.path
        if winner is not None:
            # bytes in, bytes out: line endings are the file's, not the platform's
            proposed = rewrite_description(skill_md.read_bytes().decode("utf-8"), winner.description, str(skill_md))
            (self.out / "SKILL.md").write_bytes(proposed.encode("utf-8"))
        print(terminal(result))
        print(f"Wrote {self.out / 'tune.json'} and {self.out / 'tune.html'}")
        if proposed is not None:
            if self.args.apply:
                skill_md.write_bytes(proposed.encode("utf-8"))
                print(f"Applied: {skill_md} has the new description (frontmatter only)")
            else:
                print(f"Proposed: {self.out / 'SKILL.md'} — `--apply` writes its description into {skill_md}")
        if result.outcome == "stopped":
            return 2
        return 0 if result.outcome == "improved" else 1
