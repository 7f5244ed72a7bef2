"""What a suite will cost, before and after a pilot: pure arithmetic on list prices (core/prices.json).

Before the pilot nothing has run, so the bound is built from what the suite says: for every case and arm, one
run of at most `max_turns` model requests (each resending Claude Code's context, cached after the first), per
judged grader (llm, baseline), up to three judge votes and, for a conversation with a simulated user (`user:`), up
to `max_user_turns` calls of the user's model (its replies when the agent ends a turn and its answers to questions
no `answers:` pattern matches, which max_user_turns caps together). It is meant as a ceiling the pilot should stay
under —
the pilot command carries it as `--max-cost-usd` — not as a forecast: most runs use far fewer turns.

After the pilot the price of a full suite is measured, not guessed: each case's pilot cost (one run per arm)
times the runs its file asks for.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.prices import Usage, lookup, price
from ..results.model import SuiteResult

# One agent request: Claude Code's system prompt and tools (≈ 20k tokens, written to the cache by the first
# request of a run and read from it afterwards), what the run added since (fresh input) and the reply.
CONTEXT_TOKENS = 20_000
FRESH_INPUT_TOKENS = 2_000
OUTPUT_TOKENS = 800
# One judge vote: the rubric and the evidence in, a short verdict out. Votes stop when two agree; three at most.
JUDGE_INPUT_TOKENS = 4_000
JUDGE_OUTPUT_TOKENS = 300
JUDGE_VOTES = 3
# One simulated user's reply: the persona and the conversation so far in (each message cut at 4,000 characters,
# grade/simulated_user.py), the user's next message out.
USER_INPUT_TOKENS = 8_000
USER_OUTPUT_TOKENS = 300


@dataclass(frozen=True)
class CaseShape:
    """What of a case its cost depends on."""

    name: str
    runs: int  # per arm, as the case file says
    max_turns: int
    judged_graders: int  # llm and baseline graders
    arms: int = 2  # 1 for a single-arm case
    model: str | None = None  # the agent's model (None: the default model of the price table)
    trigger: bool = False  # a trigger query: no judge, stopped at its first skill call (max_turns bounds it)
    user_turns: int = 0  # a simulated user's replies per run, at most (`user.max_user_turns`; 0: no `user:`)
    user_model: str | None = None  # the model that writes them (None: the judge model)


@dataclass(frozen=True)
class Estimate:
    pilot_bound: float  # one run per case and arm: the pilot's --max-cost-usd
    full_bound: float  # every case's runs, per arm: the same ceiling for a full suite
    runs_in_pilot: int
    judge_calls_in_pilot: int  # at most
    models: int = 1  # the agent models the suite runs on (a model matrix: each case on each of its models)
    trigger_runs_in_pilot: int = 0  # one per trigger query, arm and model: the pilot runs the trigger sets too
    user_calls_in_pilot: int = 0  # the simulated users' replies and answers, at most (max_user_turns)


def agent_run_cost(model: str | None, max_turns: int) -> float:
    """A ceiling for one run: `max_turns` requests, the first writing the context to the cache."""
    turns = max(1, max_turns)
    first = Usage(
        input_tokens=FRESH_INPUT_TOKENS, cache_creation_input_tokens=CONTEXT_TOKENS, output_tokens=OUTPUT_TOKENS
    )
    later = Usage(input_tokens=FRESH_INPUT_TOKENS, cache_read_input_tokens=CONTEXT_TOKENS, output_tokens=OUTPUT_TOKENS)
    return price(model, first) + (turns - 1) * price(model, later)


def judge_call_cost(judge_model: str | None) -> float:
    return price(judge_model, Usage(input_tokens=JUDGE_INPUT_TOKENS, output_tokens=JUDGE_OUTPUT_TOKENS))


def user_call_cost(user_model: str | None) -> float:
    return price(user_model, Usage(input_tokens=USER_INPUT_TOKENS, output_tokens=USER_OUTPUT_TOKENS))


def case_run_cost(case: CaseShape, judge_model: str | None) -> float:
    """One run of the case in one arm, its judges and its simulated user included."""
    judges = case.judged_graders * JUDGE_VOTES * judge_call_cost(judge_model)
    user = case.user_turns * user_call_cost(case.user_model or judge_model)
    return agent_run_cost(case.model, case.max_turns) + judges + user


def round_up(usd: float) -> float:
    """Up to the next cent, never below one cent."""
    return max(0.01, math.ceil(round(usd * 100, 6)) / 100)


def estimate(cases: Iterable[CaseShape], judge_model: str | None, models: int = 1) -> Estimate:
    """The bounds over `cases` — in a model matrix, a shape per case and model it runs on."""
    cases = list(cases)
    pilot = sum(case.arms * case_run_cost(case, judge_model) for case in cases)
    full = sum(case.arms * case.runs * case_run_cost(case, judge_model) for case in cases)
    return Estimate(
        pilot_bound=round_up(pilot),
        full_bound=round_up(full),
        runs_in_pilot=sum(case.arms for case in cases if not case.trigger),
        judge_calls_in_pilot=sum(case.arms * case.judged_graders * JUDGE_VOTES for case in cases),
        models=models,
        trigger_runs_in_pilot=sum(case.arms for case in cases if case.trigger),
        user_calls_in_pilot=sum(case.arms * case.user_turns for case in cases),
    )


@dataclass(frozen=True)
class Prediction:
    """A full suite's price, from a pilot's results document."""

    total: float
    per_case: dict[str, float]
    pilot_cost: float
    missing: tuple[str, ...] = ()  # cases of the suite the pilot did not run


def predict_from_pilot(suites: Iterable[SuiteResult], runs_by_case: dict[str, int] | None = None) -> Prediction:
    """Each case's mean cost per run in each arm, times its runs (`runs_by_case`, else the document's
    `runsPerCase`, what the case file says — the pilot itself ran with --runs 1); each trigger query's likewise,
    under `triggers: <set>/<query id>` (`runs_by_case` under that name, else its set's `runsPerQuery`). `suites`:
    the pilot's document read by results.store.read_suites — a model matrix's pilot holds one suite per model, and
    they add up: a case's figure is over all of them."""
    per_case: dict[str, float] = {}
    pilot_cost = 0.0
    for suite in suites:
        for case in suite.cases:
            runs = (runs_by_case or {}).get(case.name) or case.runs_per_case or 3
            total = 0.0
            for arm_runs in case.arms.values():
                costs = [run.cost_usd for run in arm_runs]
                pilot_cost += sum(costs)
                if costs:
                    total += sum(costs) / len(costs) * runs
            per_case[case.name] = per_case.get(case.name, 0.0) + total
        for trigger_set in suite.triggers:
            for query in trigger_set.queries:
                name = trigger_key(trigger_set.name, query.id)
                runs = (runs_by_case or {}).get(name) or trigger_set.runs_per_query or 5
                costs = [run.cost_usd for run in query.runs]
                pilot_cost += sum(costs)
                if costs:
                    per_case[name] = per_case.get(name, 0.0) + sum(costs) / len(costs) * runs
    missing = tuple(sorted(set(runs_by_case or {}) - set(per_case)))
    return Prediction(sum(per_case.values()), per_case, pilot_cost, missing)


def trigger_key(set_name: str, query_id: str) -> str:
    """A trigger query's name among the cases of an estimate (no case folder can be called so)."""
    return f"triggers: {set_name}/{query_id}"


def known_price(model: str | None) -> bool:
    """Whether the price table has `model` (an unknown one is priced as the table's default)."""
    return model is None or lookup(model).known


def priced_as(model: str | None) -> str:
    """The price table's entry that prices `model` (the table's default for an unknown one)."""
    return lookup(model).model
