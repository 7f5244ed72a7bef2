"""What a trigger set's runs come to, outside pytest: the report a trigger run carries to the controller (also
made up for a run a lost worker never reported), why the runs leave a session partial, and what fails a set
(--min-recall, --max-false-fire): read by the controller's gathering, the documents and the matrix's exit status."""

from __future__ import annotations

from ..core.run_id import RunId
from ..load.triggers import TriggerQuery, TriggerSet, query_case, scripted_by_description
from ..report import triggers as text
from ..results.model import PartialReason
from ..results.triggers import QueryResult, TriggerRun, TriggerSetResult
from . import wire
from .session_view import SessionView


def report_of(
    session: SessionView,
    trigger_set: TriggerSet,
    query: TriggerQuery,
    run: TriggerRun,
    run_id: RunId,
) -> wire.TriggerReport:
    """What a trigger run's call report carries to the controller: its arm (against for a run of --against's
    version) and a matrix's model of it are `run_id`'s."""
    case, model = query_case(trigger_set, query), run_id.model
    return wire.TriggerReport(
        eval_root=str(trigger_set.eval_root),
        label=session.suite_label(trigger_set.eval_root, model),
        trigger_set=set_header(trigger_set, session.options.for_model(model).model),
        query=QueryResult(query.id, query.query, query.should_fire),
        run=run,
        suite=session.suite_info(case, model),
        position=trigger_set.queries.index(query),
        model=model,
        arm=run_id.arm,
    )


def set_header(trigger_set: TriggerSet, model_override: str | None) -> TriggerSetResult:
    skill = trigger_set.skill
    return TriggerSetResult(
        skill=skill.qualified_name,
        name=skill.name,
        kind=skill.kind,
        description=skill.seen,
        file=trigger_set.rel_file,
        format=trigger_set.format,
        threshold=trigger_set.threshold,
        runs_per_query=trigger_set.runs,
        max_turns=trigger_set.max_turns,
        model=model_override or trigger_set.model,
        scripted_by_description=scripted_by_description(trigger_set),
    )


def partial_reason(sets: list[TriggerSetResult]) -> PartialReason | None:
    """Why the trigger runs leave the session partial: a run that erred decided nothing, so its query was measured
    on fewer runs (named as a case run's error would name it)."""
    kinds = {run.error_kind for s in sets for run in s.runs if run.fired is None}
    kinds.discard("interrupted")  # the session's own reason says it
    reasons: tuple[tuple[str, PartialReason], ...] = (
        ("worker_lost", "worker_lost"),
        ("auth", "auth_failed"),
        ("api", "api_error"),
    )
    for kind, reason in reasons:
        if kind in kinds:
            return reason
    return "trigger_run_error" if kinds else None


def set_failures(trigger_set: TriggerSetResult, options) -> list[str]:
    """What fails a trigger set: a query decided on the wrong side, recall or false-fire rate past its bound."""
    out = [f"{q.id}: {text.verdict_text(q, trigger_set)[1].splitlines()[0]}" for q in trigger_set.wrong]
    recall, false_fire = trigger_set.recall, trigger_set.false_fire_rate
    if options.min_recall is not None and recall.value is not None and recall.value < options.min_recall:
        out.append(f"recall {recall.count}/{recall.of} is below --min-recall {options.min_recall:g}")
    if (
        options.max_false_fire is not None
        and false_fire.value is not None
        and false_fire.value > options.max_false_fire
    ):
        out.append(
            f"false-fire rate {false_fire.count}/{false_fire.of} is above --max-false-fire {options.max_false_fire:g}"
        )
    return out


def query_properties(query: QueryResult, trigger_set: TriggerSetResult) -> list[tuple[str, object]]:
    return [
        ("query", query.query),  # what was asked: the testcase's name is only the query's cut slug
        ("shouldFire", query.should_fire),
        ("fires", query.fires),
        ("runs", len(query.decided)),
        ("verdict", query.verdict(trigger_set.threshold)),
    ]
