"""What a tuning loop will cost at most, before anything runs: pure arithmetic on list prices.

Runs: the original on train and validation, every candidate of every round on train and validation, and at the
end the original and the winner on test; the siblings' trigger sets once with the winner. Each run is priced
as the suite estimate prices one (suite_check/cost.py: `max_turns` requests at most), each proposer call as one
request with the skill, the failures and the earlier attempts in, a description out.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.prices import Usage, price
from ..suite_check.cost import agent_run_cost

PROPOSER_INPUT_TOKENS = 30_000  # Claude Code's context, SKILL.md, siblings, failures, earlier attempts
PROPOSER_OUTPUT_TOKENS = 600
PROPOSER_TRIES = 2  # an answer that is no description is asked again once


@dataclass(frozen=True)
class TuneShape:
    train: int
    validation: int
    test: int
    runs: int  # per query
    max_turns: int
    rounds: int
    candidates: int  # per round
    sibling_queries: int = 0
    model: str | None = None


@dataclass(frozen=True)
class TuneEstimate:
    agent_runs: int
    proposer_calls: int
    cost_usd: float
    arithmetic: str = ""  # how the figures are made, for the operator to check (and scale)


def estimate(shape: TuneShape) -> TuneEstimate:
    descriptions = 1 + shape.rounds * shape.candidates
    queries = descriptions * (shape.train + shape.validation) + 2 * shape.test + shape.sibling_queries
    runs = queries * shape.runs
    calls = shape.rounds * shape.candidates * PROPOSER_TRIES
    per_call = price(shape.model, Usage(input_tokens=PROPOSER_INPUT_TOKENS, output_tokens=PROPOSER_OUTPUT_TOKENS))
    per_run = agent_run_cost(shape.model, shape.max_turns)
    cost = runs * per_run + calls * per_call
    siblings = f" + {shape.sibling_queries} sibling" if shape.sibling_queries else ""
    arithmetic = (
        f"runs = ({descriptions} descriptions × {shape.train + shape.validation} train+validation queries + "
        f"2 × {shape.test} test{siblings}) × {shape.runs} runs = {runs}; cost = {runs} runs × ${per_run:.4f} + "
        f"{calls} proposer calls × ${per_call:.4f} = ${cost:.2f} — a ceiling: each run priced at "
        f"{max(1, shape.max_turns)} requests (max_turns), where a trigger run stops at the call that decides it"
    )
    return TuneEstimate(agent_runs=runs, proposer_calls=calls, cost_usd=cost, arithmetic=arithmetic)
