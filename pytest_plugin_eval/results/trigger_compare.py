"""Did my new description fire more? Two sessions' trigger sets compared query by query: each query's fire rate
then and now, with the interval of the change (Agresti–Caffo, as Δ's), and whether it moved the way the query's
label asks for — up for a should-fire query, down for a should-not-fire one. Beside it: whether the skill's
description changed between the sessions, since that is what Claude picks a skill by."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..stats import delta_interval
from .triggers import QueryResult, Rate, TriggerSetResult

BETTER, WORSE, NO_CHANGE = "better", "worse", "no_detectable_change"


@dataclass(frozen=True)
class QueryChange:
    id: str
    query: str
    should_fire: bool
    old: QueryResult | None
    new: QueryResult | None
    level: float = 0.95

    @property
    def status(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "compared"

    @property
    def interval(self) -> tuple[float, float] | None:
        """The interval of the new fire rate − the old one (None: a side without decided runs)."""
        if self.old is None or self.new is None or not self.old.decided or not self.new.decided:
            return None
        new = [1.0 if r.fired else 0.0 for r in self.new.decided]
        old = [1.0 if r.fired else 0.0 for r in self.old.decided]
        return delta_interval(new, old, self.level)

    @property
    def verdict(self) -> str | None:
        """better / worse — as the label asks — when the interval excludes 0; no detectable change otherwise."""
        interval = self.interval
        if interval is None:
            return None
        low, high = interval
        up = BETTER if self.should_fire else WORSE
        down = WORSE if self.should_fire else BETTER
        return up if low > 0 else down if high < 0 else NO_CHANGE

    def to_json(self) -> dict:
        interval = self.interval
        return {
            "id": self.id,
            "shouldFire": self.should_fire,
            "status": self.status,
            "old": {"fires": self.old.fires, "runs": len(self.old.decided)} if self.old else None,
            "new": {"fires": self.new.fires, "runs": len(self.new.decided)} if self.new else None,
            "interval": list(interval) if interval else None,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class TriggerSetChange:
    skill: str
    name: str
    old: TriggerSetResult | None
    new: TriggerSetResult | None
    queries: list[QueryChange] = field(default_factory=list)
    file: str = ""  # the set's file (the new session's): one skill may have a set in each of two files

    @property
    def description_changed(self) -> bool:
        return self.old is not None and self.new is not None and self.old.description != self.new.description

    @property
    def scripted_by_description(self) -> bool:
        """Both sessions' scripted answers follow the description (`description_has:`): scripted, they show its
        change."""
        return bool(self.old and self.new and self.old.scripted_by_description and self.new.scripted_by_description)

    @property
    def worse(self) -> list[QueryChange]:
        return [q for q in self.queries if q.verdict == WORSE]

    @property
    def better(self) -> list[QueryChange]:
        return [q for q in self.queries if q.verdict == BETTER]

    def to_json(self) -> dict:
        def rates(trigger_set: TriggerSetResult | None) -> dict[str, Any] | None:
            if trigger_set is None:
                return None
            return {"recall": _rate(trigger_set.recall), "falseFireRate": _rate(trigger_set.false_fire_rate)}

        out: dict[str, Any] = {"skill": self.skill, "name": self.name, "file": self.file}
        out["descriptionChanged"] = self.description_changed
        if self.description_changed:
            assert self.old is not None and self.new is not None
            out["description"] = {"old": self.old.description, "new": self.new.description}
        out |= {"old": rates(self.old), "new": rates(self.new), "queries": [q.to_json() for q in self.queries]}
        return out


def scripted_warning(old_scripted: bool, new_scripted: bool, changes: list[TriggerSetChange]) -> str | None:
    """Two scripted sessions answer from the same scripts whatever a description says — unless the scripts answer by
    the description's words (`description_has:`): say so beside a change they cannot show."""
    changed = [c.name for c in changes if c.description_changed and not c.scripted_by_description]
    if old_scripted and new_scripted and changed:
        return (
            f"both sessions ran --scripted: the scripted model does what its scripts say whatever a description "
            f"says, so the change of description of {', '.join(changed)} cannot show in them — run with a model"
        )
    return None


def _rate(rate: Rate) -> dict:
    return {"count": rate.count, "of": rate.of}


def compare_triggers(
    old: list[TriggerSetResult], new: list[TriggerSetResult], level: float = 0.95
) -> list[TriggerSetChange]:
    """The sets of both sessions matched by file and skill — two sets of one skill (a triggers.yaml and its
    trigger-eval.json) are two sets — and a skill's only set moved to another file is the same set; queries by id."""
    out = []
    for a, b in matched_sets(old, new):
        old_queries = {q.id: q for q in a.queries} if a else {}
        new_queries = {q.id: q for q in b.queries} if b else {}
        changes = []
        for query_id in [*new_queries, *(q for q in old_queries if q not in new_queries)]:
            was, now = old_queries.get(query_id), new_queries.get(query_id)
            some = now or was
            assert some is not None
            changes.append(QueryChange(query_id, some.query, some.should_fire, was, now, level))
        some_set = b or a
        assert some_set is not None
        out.append(TriggerSetChange(some_set.skill, some_set.name, a, b, changes, file=some_set.file))
    return out


def matched_sets(
    old: list[TriggerSetResult], new: list[TriggerSetResult]
) -> list[tuple[TriggerSetResult | None, TriggerSetResult | None]]:
    """(old, new) pairs: by (file, skill); a set left over on each side that is its skill's only one on both
    sides is the same set moved to another file."""
    unmatched = {s.key(): s for s in old}
    pairs: list[tuple[TriggerSetResult | None, TriggerSetResult | None]] = []
    for each in new:
        pairs.append((unmatched.pop(each.key(), None), each))
    for index, (a, b) in enumerate(pairs):
        if a is not None or b is None:
            continue
        olds = [s for s in unmatched.values() if s.skill == b.skill]
        if len(olds) == 1 and sum(1 for s in new if s.skill == b.skill) == 1:
            pairs[index] = (unmatched.pop(olds[0].key()), b)
    return pairs + [(a, None) for a in unmatched.values()]
