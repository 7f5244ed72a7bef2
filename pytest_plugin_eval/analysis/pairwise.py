"""`plugin-eval compare OLD NEW --pairwise`: what it reads and whom it asks — each run's final output from the two
results folders, the case's task and rubric from the NEW session, and a judge model (the real API, or with
`--scripted` the scripted endpoint answering from each case's scripted.yaml `pairwise:`). The pairing, the two
orders and the counting are results.pairwise's; the prompt is grade.pairwise_judge's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.run_id import RunId
from ..grade import pairwise_judge
from ..grade.clients import command_judge_client, not_signed_in
from ..grade.judge import Judge, resolve_judge_model
from ..load.script import SCRIPT_FILENAME, Script, load_script
from ..load.skill_evals import VIRTUAL_DIR, eval_script
from ..results.comparison import Comparison
from ..results.model import CaseResult, RunResult, SuiteResult
from ..results.pairwise import (
    ORDERS,
    OrderAnswer,
    PairInput,
    PairwiseComparison,
    judge_pairs,
    pair_runs,
    preferred_side,
)
from ..run.transcript import Transcript
from .regrade import StoredResults, artefacts_problem, results_folder_problem


class PairwiseRefused(UsageError):
    """`--pairwise` cannot run on what it was given: printed, exit 1."""


def results_folder(source: str, side: str) -> StoredResults:
    """A session's results folder with its runs' traces (a results JSON file alone has no outputs to show)."""
    path = Path(source)
    if not path.is_dir():
        raise PairwiseRefused(
            f"Error: --pairwise shows the judge each run's final output, kept in the results folder: name {side}'s "
            f"folder (evals/results/<timestamp>/) rather than the file {source}"
        )
    problem = results_folder_problem(path)
    if problem is not None:
        raise PairwiseRefused(f"Error: {source}: {problem}")
    return StoredResults(path)


def check_judge(old: SuiteResult, new: SuiteResult, scripted: bool, environ=os.environ) -> None:
    """Scripted sessions are judged by the scripted endpoint; a real judge needs credentials."""
    made_scripted = [f"{side}'s" for side, doc in (("OLD", old), ("NEW", new)) if doc.suite.scripted]
    if made_scripted and not scripted:
        raise PairwiseRefused(
            f"Error: --pairwise: {' and '.join(made_scripted)} runs were made with --scripted; add --scripted so "
            f"that the pairwise judge answers from each case's {SCRIPT_FILENAME} (pairwise:) rather than a real model"
        )
    problem = None if scripted else not_signed_in("--pairwise", environ)
    if problem is not None:
        raise PairwiseRefused(problem)


def _output(stored: StoredResults, case: CaseResult, run: RunResult, side: str) -> tuple[str | None, str | None]:
    """(final output, None) or (None, why there is none)."""
    if run.error_kind or run.error:
        return None, f"{side} run {run.index} has no output ({run.error_kind or 'run error'})"
    kept = stored.runs.get(RunId(case.dir, "with", run.index))
    if kept is None:
        return None, f"{side} run {run.index} is not in its results folder"
    problem = artefacts_problem(kept)
    if problem is not None:
        return None, f"{side} run {run.index}: {problem}"
    return Transcript.from_file(kept.folder.trace).last_message, None


def rubric_of(case: CaseResult) -> list[str]:
    """The criteria of the case's llm graders (a skill-creator eval's expectations among them)."""
    return [g.markdown for g in case.graders if g.type == "llm" and g.markdown]


def script_of(root: str, case: CaseResult) -> Script | None:
    """The scripted answers of a case of NEW's suite, read where the session read them."""
    base = Path(root)
    parts = Path(case.dir).parts
    if case.source == "skill_creator" and VIRTUAL_DIR in parts and "/" in case.name:
        skill, eval_id = case.name.split("/", 1)
        return eval_script(base, skill, eval_id)
    path = base / case.dir / SCRIPT_FILENAME
    return load_script(path) if path.is_file() else None


def plan(comparison: Comparison, old: StoredResults, new: StoredResults, scripted: bool):
    """Per case both sessions have: its pairs with what the judge is shown, its note, and its script."""
    old_cases = {c.name: c for c in old.document.cases}
    new_cases = {c.name: c for c in new.document.cases}
    out, scripts, notes = [], {}, []
    for compared in comparison.compared:
        before, after = old_cases[compared.name], new_cases[compared.name]
        pairs = []
        paired, note = pair_runs(before, after)
        rubric = rubric_of(after)
        for old_run, new_run in paired:
            old_text, old_missing = _output(old, before, old_run, "OLD")
            new_text, new_missing = _output(new, after, new_run, "NEW")
            missing = "; ".join(m for m in (old_missing, new_missing) if m) or None
            pairs.append((old_run.index, new_run.index, PairInput(after.prompt, rubric, old_text, new_text, missing)))
        if before.prompt.strip() != after.prompt.strip():
            notes.append(f"{compared.name}: the prompt changed between the sessions; the judge is shown NEW's")
        out.append((compared.name, pairs, note))
        if scripted:
            scripts[compared.name] = script_of(new.document.suite.root, after)
    return out, scripts, notes


def contents(given: PairInput, order: str) -> list[dict]:
    first, second = (
        (given.old_output, given.new_output) if order == "old_first" else (given.new_output, given.old_output)
    )
    return pairwise_judge.pair_content(given.task, given.rubric, first or "", second or "")


def scripted_url(scripts: dict[str, Script | None]) -> Callable[[Any, str], str]:
    """The scripted endpoint's URL for one pairwise call; keys are `case\\0pair\\0order`."""

    def url_for(endpoint, key: str) -> str:
        case, pair, order = key.split("\0")
        return endpoint.pairwise_url(scripts.get(case), order, int(pair))

    return url_for


def estimate(judge_model: str, cases) -> tuple[int, int, float]:
    """Pairs to judge, calls, and the ceiling of their price."""
    pairs = [given for _, case_pairs, _ in cases for _, _, given in case_pairs if not given.missing]
    total = sum(pairwise_judge.call_ceiling(judge_model, contents(g, o)) for g in pairs for o in ORDERS)
    return len(pairs), 2 * len(pairs), total


def run_pairwise(
    comparison: Comparison,
    old_source: str,
    new_source: str,
    scripted: bool,
    judge_model_option: str | None,
    max_cost_usd: float | None,
    say: Callable[[str], None],
    claude: str | None = None,
) -> PairwiseComparison:
    old, new = results_folder(old_source, "OLD"), results_folder(new_source, "NEW")
    check_judge(old.document, new.document, scripted)
    model = resolve_judge_model(judge_model_option)
    cases, scripts, notes = plan(comparison, old, new, scripted)
    pairs, calls, ceiling = estimate(model, cases)
    say(
        f"pairwise: {pairs} pair(s) in {len(cases)} case(s), {calls} judge call(s) to {model}"
        + (" (the scripted endpoint)" if scripted else "")
        + f", estimated at most ${ceiling:.4f}"
    )
    if max_cost_usd is not None and ceiling > max_cost_usd:
        say(
            f"pairwise: the estimate is above --max-cost-usd ${max_cost_usd:g}: each pair is judged only while its "
            "ceiling still fits under it with what has been spent; the pairs after that are not judged"
        )
    client_for, stop = command_judge_client(scripted_url(scripts) if scripted else None, claude)
    judge = Judge(model, client_for)

    def ask(case: str, pair: int, order: str, given: PairInput) -> OrderAnswer:
        answer = pairwise_judge.ask(judge, f"{case}\0{pair}\0{order}", contents(given, order))
        return OrderAnswer(order, preferred_side(order, answer.preference), answer.reason, answer.cost_usd)

    def pair_ceiling(given: PairInput) -> float:
        return sum(pairwise_judge.call_ceiling(model, contents(given, o)) for o in ORDERS)

    try:
        judged, spent, stopped = judge_pairs(cases, ask, pair_ceiling, max_cost_usd)
    finally:
        stop()
    return PairwiseComparison(
        judge_model=model,
        level=comparison.level,
        cases=judged,
        estimate_usd=ceiling,
        cost_usd=spent,
        max_cost_usd=max_cost_usd,
        stopped=stopped,
        notes=notes,
    )
