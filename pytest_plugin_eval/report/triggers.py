"""Trigger evals as text: per skill a line of recall, false-fire rate and precision, then a line per query (its
label, fires k/n with the 95% interval, its verdict, and what else the agent consulted for it)."""

from __future__ import annotations

from ..results.triggers import NONE, VERDICT_WORDS, QueryResult, Rate, TriggerSetResult


def interval(bounds: tuple[float, float] | None) -> str:
    return f"[{bounds[0]:.2f}, {bounds[1]:.2f}]" if bounds else "-"


def rate(r: Rate) -> str:
    return f"{r.count}/{r.of} {interval(r.interval)}" if r.of else "-"


def mark(query: QueryResult, threshold: float) -> str:
    correct = query.correct(threshold)
    return "✓" if correct else "✗" if correct is False else "?"


def consulted_elsewhere(query: QueryResult, skill: str, with_none: bool = True, none: str = NONE) -> str:
    """What the query's runs consulted other than the set's skill, e.g. `3× commit-craft:changelog, 2× none`
    (runs that consulted nothing only `with_none`, called `none`)."""
    others = {name: n for name, n in query.consulted.items() if name != skill and (with_none or name != NONE)}
    ranked = sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n}× {none if name == NONE else name}" for name, n in ranked)


def skill_line(trigger_set: TriggerSetResult) -> str:
    return (
        f"{trigger_set.name} ({trigger_set.skill}) · recall {rate(trigger_set.recall)} · false fire "
        f"{rate(trigger_set.false_fire_rate)} · precision {rate(trigger_set.precision)}"
    )


def query_notes(query: QueryResult, trigger_set: TriggerSetResult) -> str:
    notes = []
    if query.verdict(trigger_set.threshold) == "undecided":
        notes.append(f"straddles {trigger_set.threshold:g}: add runs")
    elsewhere = consulted_elsewhere(query, trigger_set.skill, with_none=query.should_fire)
    if elsewhere:
        notes.append(f"took: {elsewhere}")
    if query.errors:
        notes.append(f"{len(query.errors)} errored ({query.errors[0].error_kind})")
    return "; ".join(notes)


def table(sets: list[TriggerSetResult]) -> list[str]:
    if not sets:
        return []
    rows = [(s, q) for s in sets for q in s.queries]
    width = max([len(q.id) for _, q in rows] + [5]) + 2
    then = any(q.against_runs for _, q in rows)  # --against: the other version's fires beside
    head = f"  {'':2}{'LABEL':<12}{'QUERY':<{width}}{'FIRES':<7}{'95% CI':<14}{'VERDICT':<15}"
    lines = [head + ("THEN → NOW  " if then else "") + "NOTES"]
    for trigger_set in sets:
        lines.append(skill_line(trigger_set))
        for query in trigger_set.queries:
            label = "should fire" if query.should_fire else "should not"
            fires = f"{query.fires}/{len(query.decided)}"
            cells = (
                f"  {mark(query, trigger_set.threshold):<2}{label:<12}{query.id:<{width}}{fires:<7}"
                f"{interval(query.interval):<14}{VERDICT_WORDS[query.verdict(trigger_set.threshold)]:<15}"
            )
            cells += f"{then_now(query):<12}" if then else ""
            lines.append(f"{cells}{query_notes(query, trigger_set)}".rstrip())
    return lines


def then_now(query: QueryResult) -> str:
    """`2/3 → 3/3`: fires with --against's version, then with this one ("-" without runs of the other)."""
    then = query.then
    if then is None:
        return "-"
    return f"{then.fires}/{len(then.decided)} → {query.fires}/{len(query.decided)}"


def summary_line(sets: list[TriggerSetResult]) -> str:
    queries = [q for s in sets for q in s.queries]
    wrong = sum(len(s.wrong) for s in sets)
    undecided = sum(len(s.undecided) for s in sets)
    runs = sum(len(s.runs) for s in sets)
    cost = sum(s.cost_usd for s in sets)
    parts = [f"{len(sets)} trigger set(s)", f"{len(queries)} quer{'y' if len(queries) == 1 else 'ies'}"]
    parts += [f"{wrong} wrong", f"{undecided} undecided", f"{runs} run(s)", f"${cost:.4f}"]
    return " · ".join(parts)


def verdict_text(query: QueryResult, trigger_set: TriggerSetResult) -> tuple[str, str]:
    """(outcome, text) of a query's verdict test: passed, failed (decided on the wrong side) or skipped
    (undecided, or no run decided anything)."""
    threshold, verdict = trigger_set.threshold, query.verdict(trigger_set.threshold)
    fires = f"{query.fires}/{len(query.decided)} runs fired {trigger_set.skill}, 95% CI {interval(query.interval)}"
    want = "should fire" if query.should_fire else "should not fire"
    if verdict == "no_runs":
        return "skipped", f"no run decided anything ({len(query.errors)} errored)"
    if verdict == "undecided":
        return "skipped", f"undecided: {fires} straddles {threshold:g} — add runs (--runs N) to decide it"
    if query.correct(threshold):
        return "passed", f"{want}: {VERDICT_WORDS[verdict]} ({fires})"
    text = f"✗ {want}, but {VERDICT_WORDS[verdict]}: {fires}"
    if query.should_fire:
        elsewhere = consulted_elsewhere(query, trigger_set.skill, none="no skill")
        text += f"\n  the agent consulted: {elsewhere or 'no skill'}"
        text += "\n  Claude picks a skill by its description: say in it when to use the skill, in the words users use"
    else:
        text += "\n  the description claims this request: narrow it, or say when not to use the skill"
    return "failed", text
