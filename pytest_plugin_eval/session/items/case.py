"""The pytest nodes: a case file collects into one item per arm × run, and what their reports carry. Items whose
work the run pool does are PooledItems: a new kind of item subclasses it (execute, carried, ended) and is pooled,
reported and interrupted like a run.

Node ids are anchored on the case's file, so one run can be picked out by id:
`evals/drafts-commit-message/prompt.md::drafts-commit-message[with-plugin-2]`. The arm labels are chosen so
that `-k with-plugin` and `-k no-plugin` each select one arm (neither contains the other). In a model matrix
(`--model A,B`) the model comes first, `drafts-commit-message[haiku-with-plugin-2]`, so `-k haiku` selects that
model's runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ...adaptive import STOP_REASONS
from ...core.errors import HarnessError, InvalidSpec
from ...core.kinds import Arm
from ...core.paths import display_path
from ...core.run_id import RunId, arm_label
from ...engine import wire
from ...engine.pool import Outcome
from ...engine.rounds import round_of
from ...load.case import Case, CaseLoadError
from ...results import rerun
from ...results.matrix import model_dirname
from ...results.model import RERUN_KINDS, UNFINISHED_KINDS, LoadErrorEntry, RunResult, SkippedRun
from ...results.scoring import passes_threshold
from ..eval_session import EvalSession, get_session
from ..pytest_internals import child_node_id
from ..verdicts import JUNIT_ATTR


class CaseLoadFailure(InvalidSpec):
    """Raised while collecting a case that does not load; reported as a collection error."""

    def __init__(self, error: CaseLoadError):
        super().__init__(str(error))
        self.error = error


class CaseFile(pytest.File):
    """A case folder, anchored on its prompt.md (or case.yaml when it has no prompt.md)."""

    what = "case"

    def __init__(self, *, eval_root: Path, **kwargs):
        super().__init__(**kwargs)
        self.eval_root = eval_root
        self.load_error: CaseLoadError | None = None

    @property
    def eval_session(self) -> EvalSession:
        return get_session(self.config)

    def collect(self):
        try:
            case = self.eval_session.load(self.path.parent, self.eval_root)
        except CaseLoadError as e:
            if e.identity_known and not self.eval_session.selected_name(e.name or "", e.tags):
                return  # --case/--tag left this case out (as the reference tool does, whatever else is wrong)
            self.load_error = e
            raise CaseLoadFailure(e) from None
        yield from run_items(self, case, self.eval_session.matrix_runs(case))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseLoadFailure):
            problems = excinfo.value.error.problems
            where = self.path.parent if self.what == "case" else self.path
            lines = [f"{self.what} {display_path(where)} does not load:"]
            lines += [f"  {p.render()}" for p in problems]
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def load_error_report(self) -> wire.LoadErrorReport | None:
        """What the collection report carries when the case did not load."""
        error = self.load_error
        if error is None:
            return None
        suite_root = self.eval_root.parent
        entry = LoadErrorEntry(
            case=error.name or error.case_dir.name,
            dir=os.path.relpath(error.case_dir, suite_root),
            message="; ".join(p.render(suite_root) for p in error.problems),
            problems=[p.to_json(suite_root) for p in error.problems],
        )
        return wire.LoadErrorReport(entry, str(self.eval_root))


class RunFailed(HarnessError):
    def __init__(self, result: RunResult):
        super().__init__(result.error or "graders failed")
        self.result = result


class PooledItem(pytest.Item):
    """An item whose work the session's run pool does (pool.py: on a thread, ahead of its turn with -j N) while
    pytest reports items in order. A kind of item the pool runs subclasses it."""

    def execute(self, upcoming: pytest.Item | None) -> Outcome:
        """Do the work, on a thread of the pool; `upcoming`: the item whose work begins next."""
        raise NotImplementedError

    def carry(self, report: pytest.TestReport, when: str) -> None:
        """Put on `report` (of this item's setup, call or teardown) what the controller gathers from it."""
        for attr, data in self.carried().items() if when == "call" else ():
            setattr(report, attr, data)

    def carried(self) -> dict[str, Any]:
        """What the call report carries to the controller: report attribute → plain JSON (wire.py)."""
        return {}

    def ended(self, outcome: Outcome) -> None:
        """The session was interrupted while the pool did this item's work, which came to `outcome`: take it as
        `runtest` would have, so that `carried()` says what it came to."""


def run_items(
    parent: pytest.Collector,
    case: Case,
    runs: Iterable[RunId],
    item: type[RunItem] | None = None,
    params: Callable[[RunId], str] = lambda run: run.label,
    structured_id: bool = True,
    **fields: Any,
) -> Iterator[RunItem]:
    """The items of `case`'s runs under `parent`, one per run: named `<case>[<params>]` (run_params), of class
    `item` (RunItem) with `fields` besides. `structured_id`: the node id pytest ≥ 9 keeps structured
    (pytest_internals.child_node_id)."""
    for run in runs:
        given = run_params(run, params(run))
        yield (item or RunItem).from_parent(
            parent,
            name=f"{case.name}[{given}]",
            case=case,
            run=run,
            **(child_node_id(parent, case.name, given) if structured_id else {}),
            **fields,
        )


def run_params(run: RunId, params: str) -> str:
    """A run item's parameters (`params`: `with-plugin-2` as its kind of item spells `run`), in a matrix with the
    run's model first (`haiku-with-plugin-2`)."""
    return params if run.model is None else f"{model_dirname(run.model)}-{params}"


class RunItem(PooledItem):
    """One run of a case in one arm (on one model of a matrix). It fails only when the harness could not run it;
    its case's verdict (score against the threshold, over all of the case's runs) is reported as a test of its
    own (verdicts.py)."""

    def __init__(self, *, case: Case, run: RunId, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.run_id = run
        self.result: RunResult | None = None
        self.skipped_run: SkippedRun | None = None  # set when the cost ceiling kept the run from starting
        self.unneeded: str | None = None  # --runs auto: why the case needed no more runs
        self.add_marker(pytest.mark.plugin_eval)
        for tag in case.tags:  # `-m smoke` selects as `--tag smoke` does
            register_marker(self.config, tag)
            self.add_marker(getattr(pytest.mark, tag))

    @property
    def arm(self) -> Arm:
        return self.run_id.arm

    @property
    def index(self) -> int:
        return self.run_id.index

    @property
    def model(self) -> str | None:
        """A matrix's model (None: the session's one model)."""
        return self.run_id.model

    def execute(self, upcoming: pytest.Item | None) -> Outcome:
        return get_session(self.config).execute(self, upcoming)

    def runtest(self) -> None:
        outcome = get_session(self.config).pool.outcome(self)
        if outcome.unneeded is not None:
            self.unneeded = outcome.unneeded
            pytest.skip(f"not needed: {STOP_REASONS.get(outcome.unneeded, outcome.unneeded)}")
        if outcome.skipped is not None:
            self.skipped_run = outcome.skipped
            pytest.skip(outcome.why_skipped)
        if outcome.result is None:
            pytest.skip("the session stopped before this run started")
        self.result = outcome.result
        if self.should_fail(self.result):
            raise RunFailed(self.result)

    def should_fail(self, result: RunResult) -> bool:
        """A run item fails only when the harness could not run it (the session then exits non-zero too);
        whether its graders passed is part of its case's verdict, reported under the case's own name."""
        return result.error_kind in UNFINISHED_KINDS

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RunFailed):
            return describe_run(excinfo.value.result, self.case)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        on = f" on {self.model}" if self.model is not None else ""
        return self.path, None, f"{self.case.name} [{arm_label(self.arm)} run {self.index}{on}]"

    def run_report(self) -> wire.RunReport | None:
        """What the call report carries to the controller."""
        if self.result is None:
            return None
        session = get_session(self.config)
        return wire.RunReport(
            case=session.case_result(self.case, self.model),
            run=self.result,
            suite=session.suite_info(self.case, self.model),
            eval_root=str(self.case.eval_root),
            label=session.suite_label(self.case.eval_root, self.model),
            notices=session.case_notices(self.case, self.model),
            model=self.model,
        )

    def carry(self, report: pytest.TestReport, when: str) -> None:
        """Every report: the run's JUnit names. The call report: the run (or why it was not made), and for the
        terminal and pytest-html the run's own time and its graders and transcript."""
        setattr(report, JUNIT_ATTR, self.junit_names())
        super().carry(report, when)
        if when == "call" and self.result is not None:
            report.duration = self.result.duration_seconds  # the run's own time, not the wait for it (-j)
            report.extras = [*getattr(report, "extras", []), *self.html_extras()]  # type: ignore[attr-defined]

    def carried(self) -> dict[str, Any]:
        run, skip = self.run_report(), self.skip_report()
        if run is not None:
            return {wire.RUN_ATTR: run.to_json()}
        if skip is not None:
            return {wire.SKIP_ATTR: skip.to_json()}
        if self.unneeded is not None:
            return {wire.UNNEEDED_ATTR: self.unneeded}
        return {}

    def ended(self, outcome: Outcome) -> None:
        self.result = outcome.result

    def skip_report(self) -> wire.SkipReport | None:
        if self.skipped_run is None:
            return None
        return wire.SkipReport(self.skipped_run, str(self.case.eval_root), model=self.model)

    def junit_names(self) -> list[str]:
        """[classname, name] of this run in JUnit XML: `<plugin>.<case>`, `with-plugin-2`."""
        label = get_session(self.config).suite_label(self.case.eval_root, self.model)
        return [f"{label}.{self.case.name}", self.run_id.label]

    def html_extras(self) -> list:
        """pytest-html: the run's graders and transcript in its row of the report."""
        if self.result is None or not getattr(self.config.option, "htmlpath", None):
            return []
        from pytest_html import extras

        from ...report.html import run_html

        return [extras.html(run_html(self.result, self.case.prompt))]


def collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """The case of the file a case is anchored on (prompt.md, else case.yaml), inside an eval dir."""
    eval_root = get_session(parent.config).case_file_root(file_path)
    return CaseFile.from_parent(parent, path=file_path, eval_root=eval_root) if eval_root is not None else None


def with_load_error(collector: pytest.Collector, report: pytest.CollectReport) -> pytest.CollectReport:
    """A case file's collection report carries its load error, if it did not load."""
    error = collector.load_error_report() if isinstance(collector, CaseFile) else None
    if error is not None:
        setattr(report, wire.LOAD_ERROR_ATTR, error.to_json())
    return report


def carried(item: pytest.Item, when: str, report: pytest.TestReport) -> pytest.TestReport:
    """An item's report, with what its kind carries to the controller."""
    if isinstance(item, PooledItem):
        item.carry(report, when)
    return report


def pooled(items: list[pytest.Item]) -> list[PooledItem]:
    """The items whose work the pool does, in the order they report."""
    return [item for item in items if isinstance(item, PooledItem)]


def before(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """One at a time: pytest runs `nextitem` after `item`, so its run is the one started ahead."""
    if isinstance(item, PooledItem):
        get_session(item.config).pool.upcoming(item, nextitem)


def choose(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The runs --case/--tag select, --shard's share, --lf's choice; in rounds with --runs auto."""
    deselect_unselected(config, items)
    this_shard(config, items)
    failed_last_time(config, items)
    in_rounds(config, items)


def register_marker(config, tag: str) -> None:
    """A case tag as a registered marker (no unknown-mark warning, allowed with --strict-markers)."""
    if not any(line.split(":")[0].strip() == tag for line in config.getini("markers")):
        config.addinivalue_line("markers", f"{tag}: eval cases tagged {tag}")


def deselect_unselected(config, items: list) -> None:
    """Leave out the runs of cases --case/--tag do not select."""
    session = get_session(config)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if not isinstance(item, RunItem) or session.selected(item.case) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def shares(cases: dict[str, int], shards: int) -> list[list[str]]:
    """Cases (key → runs) dealt into `shards` balanced shares: the largest first, each to the lightest share so far
    (ties to the lowest index). The same on every machine, since it depends on nothing else."""
    loads = [0] * shards
    out: list[list[str]] = [[] for _ in range(shards)]
    for key in sorted(cases, key=lambda k: (-cases[k], k)):
        lightest = loads.index(min(loads))
        out[lightest].append(key)
        loads[lightest] += cases[key]
    return out


def this_shard(config, items: list) -> None:
    """--shard K/N: keep the runs of this job's share of the cases, every run of a case in the same share."""
    session = get_session(config)
    if session.options.shard is None:
        return
    k, n = session.options.shard
    runs = [item for item in items if isinstance(item, RunItem)]
    per_case: dict[str, int] = {}
    for item in runs:
        per_case[item.case.rel_dir] = per_case.get(item.case.rel_dir, 0) + 1
    mine = set(shares(per_case, n)[k - 1])
    dropped = [item for item in runs if item.case.rel_dir not in mine]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
    session.shard_share = (len(mine), len(per_case), len(runs) - len(dropped), len(runs))


def in_rounds(config, items: list) -> None:
    """--runs auto: every case's first runs, then every case's next run in both arms, and so on (rounds.py)."""
    plan = get_session(config).options.auto_runs
    if plan is not None:
        items.sort(key=lambda item: round_of(item.index, plan) if isinstance(item, RunItem) else 0)


def failed_last_time(config, items: list) -> None:
    """--lf: of the cases whose verdict failed last time (pytest collects only their files), re-run the runs that
    failed — a with-arm run below a perfect score, or a run the harness could not finish — and, of a case changed
    since (its prompt or graders), every run, so that both arms are measured again; the controller takes the other
    runs from the last results. With --runs auto a failed case is run again whole: how many runs it needs is
    decided afresh, on runs of one session."""
    if not config.getoption("lf", False):
        return
    session = get_session(config)
    # Runs of cases; a trigger query's runs are cheap and are all made again (it has no earlier runs to reuse).
    runs = [item for item in items if isinstance(item, RunItem) and item.case.trigger is None]
    # a case on one model: in a model matrix each model's document says which of its runs failed
    now = {item.run_id.case_key: item.case for item in runs}
    again: set[RunId] = set()
    changed: set[str] = set()  # case keys (RunId.case_key)
    whole = session.options.auto_runs is not None
    for document, _ in rerun.previous_results(config):
        model = document.suite.model_override if session.options.matrix else None
        for case in document.cases:
            if passes_threshold(case, session.options.threshold):
                continue
            folder = Path(document.suite.root) / case.dir
            key = RunId.of(folder, "with", 1, model).case_key
            if key in now and (whole or not rerun.same_case(session.case_result(now[key], model), case)):
                changed.add(key)
            for run in case.runs():
                harness = run.error_kind in RERUN_KINDS
                if harness or (run.arm == "with" and (run.score is None or run.score < 1)):
                    again.add(RunId.of(folder, run.arm, run.index, model))
    chosen = [item for item in runs if item.run_id.case_key in changed or item.run_id in again]
    if not chosen:
        return  # nothing known to have failed: run what was collected
    dropped = [item for item in runs if item not in chosen]
    config.hook.pytest_deselected(items=dropped)
    items[:] = [item for item in items if item not in dropped]
    cases = {item.run_id.case_key for item in chosen}
    status = f"re-running {len(chosen)} run(s) of {len(cases)} failed case(s)"
    if whole:
        status += " whole (--runs auto decides their runs afresh)"
    elif changed & cases:
        status += f", {len(changed & cases)} of them changed since (both arms measured again)"
    session.rerun_status = status  # the runs reused are counted once, in the notice of the document they join


def describe_run(result: RunResult, case: Case) -> str:
    score = "not scored" if result.score is None else f"score {result.score:.2f}"
    lines = [f"{case.name} [{arm_label(result.arm)} run {result.index}]: {score}"]
    if result.error:
        lines.append(f"  error: {result.error}")
    for g in result.graders:
        if g.with_only:
            tag = " [with-only, not scored]"
        elif not g.scored:
            tag = " [not scored]"
        else:
            tag = f" (weight {g.weight:g})"
        lines.append(f"  {'✓' if g.passed else '✗'} {g.name}{tag}: {g.explanation}")
    if result.trace_path:
        lines.append(f"  trace: {display_path(Path(result.trace_path))}")
    return "\n".join(lines)
