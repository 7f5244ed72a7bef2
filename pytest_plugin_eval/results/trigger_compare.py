"""Did my new description fire more? Two sessions' trigger sets compared query by query: each query's fire rate
then and now, with the interval of the change (Agresti–Caffo, as Δ's), and whether it moved the way the query's
label asks for — up for a should-fire query, down for a should-not-fire one. Beside it: whether the skill's
description changed between the sessions, since that is what Claude picks a skill by."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from ..stats import delta_interval
from .jsonmap import Document, computed, key
from .triggers import QueryResult, TriggerSetResult

BETTER, WORSE, NO_CHANGE = "better", "worse", "no_detectable_change"


@dataclass(frozen=True)
class Fires(Document):
    """How often a query fired in a session, of its decided runs."""

    fires: int = field(metadata=key("fires"))
    runs: int = field(metadata=key("runs"))

    @classmethod
    def of(cls, query: QueryResult | None) -> Fires | None:
        return None if query is None else cls(query.fires, len(query.decided))


def fire_interval(old: Fires | None, new: Fires | None, level: float) -> tuple[float, float] | None:
    """The interval of the new fire rate − the old one (None: a side without decided runs)."""
    if old is None or new is None or not old.runs or not new.runs:
        return None
    before = [1.0] * old.fires + [0.0] * (old.runs - old.fires)
    after = [1.0] * new.fires + [0.0] * (new.runs - new.fires)
    return delta_interval(after, before, level)


def _interval(data: Any) -> tuple[float, float] | None:
    return None if data is None else (float(data[0]), float(data[1]))


@dataclass(frozen=True)
class QueryChange(Document):
    id: str = field(metadata=key("id"))
    should_fire: bool = field(metadata=key("shouldFire"))
    _status: None = field(default=None, init=False, compare=False, metadata=computed("status", lambda q: q.status))
    old: Fires | None = field(metadata=key("old"))
    new: Fires | None = field(metadata=key("new"))
    # the interval of the new fire rate − the old one, at the comparison's level (None: a side without decided runs)
    interval: tuple[float, float] | None = field(metadata=key("interval", read=_interval))
    _verdict: None = field(default=None, init=False, compare=False, metadata=computed("verdict", lambda q: q.verdict))
    query: str = ""  # its text, for the pages (not in the document)

    @classmethod
    def of(cls, query_id: str, old: QueryResult | None, new: QueryResult | None, level: float) -> QueryChange:
        some = new or old
        assert some is not None
        was, now = Fires.of(old), Fires.of(new)
        return cls(query_id, some.should_fire, was, now, fire_interval(was, now, level), some.query)

    @property
    def status(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "compared"

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


@dataclass(frozen=True)
class Count(Document):
    count: int = field(metadata=key("count"))
    of: int = field(metadata=key("of"))


@dataclass(frozen=True)
class SetRates(Document):
    """A trigger set's recall and false-fire rate in a session."""

    recall: Count = field(metadata=key("recall"))
    false_fire_rate: Count = field(metadata=key("falseFireRate"))

    @classmethod
    def of(cls, trigger_set: TriggerSetResult | None) -> SetRates | None:
        if trigger_set is None:
            return None
        recall, false = trigger_set.recall, trigger_set.false_fire_rate
        return cls(Count(recall.count, recall.of), Count(false.count, false.of))


@dataclass(frozen=True)
class Descriptions(Document):
    old: str = field(metadata=key("old"))
    new: str = field(metadata=key("new"))


@dataclass(frozen=True)
class TriggerSetChange(Document):
    skill: str = field(metadata=key("skill"))
    name: str = field(metadata=key("name"))
    _: KW_ONLY
    file: str = field(default="", metadata=key("file"))  # the set's file (the new session's): one skill may have a
    # set in each of two files
    _changed: None = field(
        default=None,
        init=False,
        compare=False,
        metadata=computed("descriptionChanged", lambda c: c.description_changed),
    )
    description: Descriptions | None = field(default=None, metadata=key("description", omit="none"))  # when changed
    old: SetRates | None = field(default=None, metadata=key("old"))
    new: SetRates | None = field(default=None, metadata=key("new"))
    queries: list[QueryChange] = field(default_factory=list, metadata=key("queries"))
    # both sessions' scripted answers follow the description (`description_has:`): scripted, they show its change
    scripted_by_description: bool = False

    @classmethod
    def of(
        cls, old: TriggerSetResult | None, new: TriggerSetResult | None, queries: list[QueryChange] | None = None
    ) -> TriggerSetChange:
        some = new or old
        assert some is not None
        changed = old is not None and new is not None and old.description != new.description
        return cls(
            some.skill,
            some.name,
            file=some.file,
            description=Descriptions(old.description, new.description) if changed and old and new else None,
            old=SetRates.of(old),
            new=SetRates.of(new),
            queries=list(queries or []),
            scripted_by_description=bool(old and new and old.scripted_by_description and new.scripted_by_description),
        )

    @property
    def description_changed(self) -> bool:
        return self.description is not None

    @property
    def worse(self) -> list[QueryChange]:
        return [q for q in self.queries if q.verdict == WORSE]

    @property
    def better(self) -> list[QueryChange]:
        return [q for q in self.queries if q.verdict == BETTER]


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


def compare_triggers(
    old: list[TriggerSetResult], new: list[TriggerSetResult], level: float = 0.95
) -> list[TriggerSetChange]:
    """The sets of both sessions matched by file and skill — two sets of one skill (a triggers.yaml and its
    trigger-eval.json) are two sets — and a skill's only set moved to another file is the same set; queries by id."""
    out = []
    for a, b in matched_sets(old, new):
        old_queries = {q.id: q for q in a.queries} if a else {}
        new_queries = {q.id: q for q in b.queries} if b else {}
        ids = [*new_queries, *(q for q in old_queries if q not in new_queries)]
        changes = [QueryChange.of(q, old_queries.get(q), new_queries.get(q), level) for q in ids]
        out.append(TriggerSetChange.of(a, b, changes))
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
