"""The report's trigger evals: per skill its recall, false-fire rate and precision, a grid of queries × runs
(each cell what the run consulted, titled with its deciding event), and each query's runs with their transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..results.triggers import VERDICT_WORDS, TriggerRun, TriggerSetResult
from . import triggers as text
from .conversation import Trace, trace


@dataclass(frozen=True)
class Cell:
    mark: str  # pass (fired as it should), fail (the other way), na (erred: decided nothing)
    symbol: str
    title: str


@dataclass(frozen=True)
class RunView:
    label: str
    mark: str
    facts: str
    error: str | None
    transcript: Trace


@dataclass(frozen=True)
class QueryRow:
    anchor: str
    mark: str  # pass | fail | na (undecided, or nothing decided)
    label: str
    id: str
    query: str
    fires: str
    interval: str
    verdict: str
    notes: str
    cells: list[Cell]
    runs: list[RunView]


@dataclass(frozen=True)
class TriggerSection:
    anchor: str
    name: str
    skill: str
    description: str
    file: str
    rates: str
    queries: list[QueryRow]
    columns: int


def cell(run: TriggerRun, should_fire: bool) -> Cell:
    if run.fired is None:
        return Cell("na", "!", f"run {run.index}: decided nothing ({run.error_kind}: {run.error})")
    mark = "pass" if run.fired == should_fire else "fail"
    what = run.skill or "no skill"
    return Cell(mark, "●" if run.fired else "○", f"run {run.index}: consulted {what} — {run.decided_by}")


def run_view(run: TriggerRun, should_fire: bool, prompt: str) -> RunView:
    consulted = run.skill or "no skill"
    facts = [consulted if run.fired is not None else "decided nothing"]
    if run.decided_by:
        facts.append(run.decided_by)
    facts += [f"{run.turns} turns", f"${run.cost_usd:.4f}", f"{run.duration_seconds:.1f} s"]
    return RunView(
        label=f"run {run.index}",
        mark=cell(run, should_fire).mark,
        facts=" · ".join(facts),
        error=f"{run.error_kind}: {run.error}" if run.error else None,
        transcript=trace(run.trace_path, prompt),
    )


def trigger_sections(sets: list[TriggerSetResult]) -> list[TriggerSection]:
    out = []
    for i, trigger_set in enumerate(sets, 1):
        rows = []
        for j, query in enumerate(trigger_set.queries, 1):
            correct = query.correct(trigger_set.threshold)
            rows.append(
                QueryRow(
                    anchor=f"trigger-{i}-{j}",
                    mark="pass" if correct else "fail" if correct is False else "na",
                    label="should fire" if query.should_fire else "should not fire",
                    id=query.id,
                    query=query.query,
                    fires=f"{query.fires}/{len(query.decided)}",
                    interval=text.interval(query.interval),
                    verdict=VERDICT_WORDS[query.verdict(trigger_set.threshold)],
                    notes=text.query_notes(query, trigger_set),
                    cells=[cell(run, query.should_fire) for run in query.runs],
                    runs=[run_view(run, query.should_fire, query.query) for run in query.runs],
                )
            )
        out.append(
            TriggerSection(
                anchor=f"triggers-{i}",
                name=trigger_set.name,
                skill=trigger_set.skill,
                description=trigger_set.description,
                file=trigger_set.file,
                rates=text.skill_line(trigger_set).split(" · ", 1)[1],
                queries=rows,
                columns=max([len(q.runs) for q in trigger_set.queries] + [1]),
            )
        )
    return out
