"""How far each judged grader (`llm`, `baseline`) agrees with a person's labels, and what its errors do to the pass
rates it reports: `plugin-eval calibrate`'s numbers, pooled over the results folders given.

A grader is one grader of one case (its rubric is the case's own). Per grader: the labelled verdicts against the
judge's (TPR, TNR with Wilson intervals, agreement, Cohen's κ — `agreement.py`), the judge's raw pass rate per
arm over every run it judged, and the rates corrected for its errors (Rogan–Gladen) with intervals carrying the
TPR/TNR uncertainty, for WITH, W/OUT and Δ. A label whose rubric hash is no longer the grader's is stale: left
out, counted. A label that names no judged verdict in its folder (a run or grader that is not there, a verdict the
judge could not give) is left out and counted too; a label of a free grader's verdict (regex, files…) is a note
for the review page and plays no part here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from .. import agreement as stats
from ..core import prices
from .findings import Finding
from .jsonmap import EXTRA, Document, key
from .labels import JUDGED_TYPES, Labels, rubric_hash
from .model import CaseResult, GraderResult, SuiteResult

# Below this many labels of a kind (person PASS, person FAIL) the TPR or TNR rests on too little.
MIN_LABELS_PER_KIND = 10


def _rounded(value: Any) -> Any:
    return None if value is None else round(value, 4)


def _pair(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [round(value[0], 4), round(value[1], 4)]


@dataclass
class Rate(Document):
    """A rate (or Δ) corrected for the judge's errors, with its interval."""

    value: float = field(metadata=key("value", write=_rounded))
    low: float = field(metadata=key("low", write=_rounded))
    high: float = field(metadata=key("high", write=_rounded))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @classmethod
    def of(cls, corrected: stats.Corrected | None) -> Rate | None:
        return None if corrected is None else cls(corrected.value, corrected.low, corrected.high)


@dataclass
class ArmRates(Document):
    """One arm: the judge's passes of the runs it judged, and the rate corrected for its errors."""

    passed: int = field(metadata=key("passed"))
    judged: int = field(metadata=key("judged"))
    _: KW_ONLY
    raw: float | None = field(default=None, metadata=key("raw", write=_rounded))
    corrected: Rate | None = field(default=None, metadata=key("corrected"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class GraderCalibration(Document):
    """One judged grader of one case against its labels."""

    case: str = field(metadata=key("case"))
    grader: str = field(metadata=key("grader"))
    type: str = field(metadata=key("type"))
    _: KW_ONLY
    judge_models: list[str] = field(default_factory=list, metadata=key("judgeModels"))
    n: int = field(default=0, metadata=key("n"))
    tp: int = field(default=0, metadata=key("tp"))
    fn: int = field(default=0, metadata=key("fn"))
    fp: int = field(default=0, metadata=key("fp"))
    tn: int = field(default=0, metadata=key("tn"))
    tpr: float | None = field(default=None, metadata=key("tpr", write=_rounded))
    tpr_ci: tuple[float, float] | None = field(default=None, metadata=key("tprCI", write=_pair))
    tnr: float | None = field(default=None, metadata=key("tnr", write=_rounded))
    tnr_ci: tuple[float, float] | None = field(default=None, metadata=key("tnrCI", write=_pair))
    agreement: float | None = field(default=None, metadata=key("agreement", write=_rounded))
    kappa: float | None = field(default=None, metadata=key("kappa", write=_rounded))
    stale: int = field(default=0, metadata=key("stale"))
    with_arm: ArmRates | None = field(default=None, metadata=key("with", omit="none"))
    without_arm: ArmRates | None = field(default=None, metadata=key("without", omit="none"))
    raw_delta: float | None = field(default=None, metadata=key("rawDelta", write=_rounded))
    corrected_delta: Rate | None = field(default=None, metadata=key("correctedDelta"))
    # the corrected pass rate of the WITH arm, at the top level for scripts (`corrected` above is per arm)
    corrected_pass_rate: Rate | None = field(default=None, metadata=key("correctedPassRate"))
    warnings: list[str] = field(default_factory=list, metadata=key("warnings"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @property
    def table(self) -> stats.Table:
        return stats.Table(self.tp, self.fn, self.fp, self.tn)


@dataclass
class ControlAnswer(Document):
    """The judge's answer to one control (`calibrate --controls`, grade/controls.py): `passed` None when it could not
    be asked (`error` says why)."""

    case: str = field(metadata=key("case"))
    grader: str = field(metadata=key("grader"))
    type: str = field(metadata=key("type"))
    control: str = field(metadata=key("control"))
    description: str = field(metadata=key("description"))
    passed: bool | None = field(metadata=key("passed"))
    _: KW_ONLY
    votes: list[bool] = field(default_factory=list, metadata=key("votes"))
    cost_usd: float = field(default=0.0, metadata=key("costUsd", write=lambda v: round(v, 6)))
    error: str | None = field(default=None, metadata=key("error", omit="falsy"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass
class Calibration(Document):
    """`plugin-eval calibrate`'s findings over one or more results folders."""

    _: KW_ONLY
    schema_version: int = field(default=1, metadata=key("schemaVersion"))
    folders: list[str] = field(default_factory=list, metadata=key("folders"))
    labels: int = field(default=0, metadata=key("labels"))  # read, in all
    stale: int = field(default=0, metadata=key("stale"))
    unmatched: int = field(default=0, metadata=key("unmatched"))
    graders: list[GraderCalibration] = field(default_factory=list, metadata=key("graders"))
    warnings: list[str] = field(default_factory=list, metadata=key("warnings"))
    controls: list[ControlAnswer] | None = field(default=None, metadata=key("controls", omit="none"))
    findings: list[Finding] = field(default_factory=list, metadata=key("findings", omit="falsy"))  # controls passed
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)


@dataclass(frozen=True)
class Session:
    """One results folder as calibrate reads it."""

    folder: Path
    document: SuiteResult
    labels: Labels


def judged_verdict(result: GraderResult) -> bool | None:
    """The judge's verdict, or None when it gave none (errored, skipped by the cost ceiling)."""
    return None if result.errored or result.skipped else result.passed


@dataclass
class _Tally:
    type: str = ""
    table: stats.Table = field(default_factory=stats.Table)
    stale: int = 0
    models: set[str] = field(default_factory=set)
    counts: dict[str, list[int]] = field(default_factory=lambda: {"with": [0, 0], "without": [0, 0]})


def _judged_graders(case: CaseResult) -> dict[str, Any]:
    return {g.name: g for g in case.graders if g.type in JUDGED_TYPES}


def calibrate(sessions: Sequence[Session], min_per_kind: int = MIN_LABELS_PER_KIND) -> Calibration:
    tallies: dict[tuple[str, str], _Tally] = defaultdict(_Tally)
    result = Calibration(folders=[str(s.folder) for s in sessions])
    same_model: set[str] = set()
    for session in sessions:
        cases = {case.name: case for case in session.document.cases}
        for case in session.document.cases:
            graders = _judged_graders(case)
            agent_model = case.effective_model or case.model or session.document.suite.model_override
            for run in case.runs():
                for grader in run.graders:
                    if grader.name not in graders:
                        continue
                    tally = tallies[(case.name, grader.name)]
                    tally.type = graders[grader.name].type
                    verdict = judged_verdict(grader)
                    if verdict is None:
                        continue
                    if grader.judge_model:
                        tally.models.add(grader.judge_model)
                        if agent_model and _same_model(agent_model, grader.judge_model):
                            same_model.add(grader.judge_model)
                    counts = tally.counts.setdefault(run.arm, [0, 0])
                    counts[0] += verdict
                    counts[1] += 1
        result.labels += len(session.labels.labels)
        for label in session.labels.labels:
            labelled = cases.get(label.case)
            defined = {g.name: g for g in labelled.graders} if labelled else {}
            info = defined.get(label.grader)
            if info is not None and info.type not in JUDGED_TYPES:
                continue  # a label of a free grader's verdict: a note for the review, nothing to calibrate
            found = _verdict_of(labelled, label.arm, label.run, label.grader) if labelled and info else None
            if info is None or found is None:
                result.unmatched += 1
                continue
            tally = tallies[(label.case, label.grader)]
            if label.rubric_hash is not None and label.rubric_hash != rubric_hash(info):
                tally.stale += 1
                result.stale += 1
                continue
            tally.table = tally.table.add(label.passed, found)
    for (case_name, grader_name), tally in sorted(tallies.items()):
        result.graders.append(_grader(case_name, grader_name, tally, min_per_kind))
    if same_model:
        result.warnings.append(
            f"the judge is the model under test ({', '.join(sorted(same_model))}): a model grading its own kind of "
            "answer shares its blind spots — judge with another model (--judge-model)"
        )
    if not result.labels and result.graders:
        result.warnings.append(
            "no labels: label the judged verdicts with `plugin-eval review RESULTS` (it writes the folder's "
            "labels.json; a script or an editor may too), then calibrate again"
        )
    if result.stale:
        result.warnings.append(
            f"{result.stale} label(s) are stale: their grader's rubric changed since they were given; they are "
            "left out — label those runs again (plugin-eval review)"
        )
    if result.unmatched:
        result.warnings.append(
            f"{result.unmatched} label(s) name no judged verdict in their results folder (a case, run or grader "
            "that is not there, or one the judge could not judge): left out"
        )
    return result


def _same_model(agent: str, judge: str) -> bool:
    try:
        return prices.resolve_model(agent) == prices.resolve_model(judge)
    except Exception:  # an unknown name: compare as written
        return agent == judge


def _verdict_of(case: CaseResult, arm: str, index: int, grader: str) -> bool | None:
    for run in case.arms.get(arm, []):  # type: ignore[call-overload]
        if run.index == index:
            found = next((g for g in run.graders if g.name == grader), None)
            return judged_verdict(found) if found else None
    return None


def _grader(case: str, grader: str, tally: _Tally, min_per_kind: int) -> GraderCalibration:
    table = tally.table
    out = GraderCalibration(
        case,
        grader,
        tally.type,
        judge_models=sorted(tally.models),
        n=table.n,
        tp=table.tp,
        fn=table.fn,
        fp=table.fp,
        tn=table.tn,
        tpr=stats.tpr(table),
        tpr_ci=stats.tpr_interval(table),
        tnr=stats.tnr(table),
        tnr_ci=stats.tnr_interval(table),
        agreement=stats.agreement(table),
        kappa=stats.cohen_kappa(table),
        stale=tally.stale,
    )
    arms = {}
    for arm, (passed, judged) in tally.counts.items():
        if judged:
            arms[arm] = ArmRates(
                passed,
                judged,
                raw=passed / judged,
                corrected=Rate.of(stats.corrected_rate(passed, judged, table)),
            )
    out.with_arm, out.without_arm = arms.get("with"), arms.get("without")
    out.corrected_pass_rate = out.with_arm.corrected if out.with_arm else None
    if out.with_arm and out.without_arm:
        w, o = out.with_arm, out.without_arm
        out.raw_delta = (w.raw or 0) - (o.raw or 0)
        out.corrected_delta = Rate.of(stats.corrected_delta((w.passed, w.judged), (o.passed, o.judged), table))
    for kind, count in (("PASS", table.positives), ("FAIL", table.negatives)):
        if table.n and count < min_per_kind:
            out.warnings.append(
                f"{count} label(s) of runs you passed" if kind == "PASS" else f"{count} label(s) of runs you failed"
            )
    if out.warnings:
        out.warnings = [
            f"few labels — {' and '.join(out.warnings)}; {min_per_kind} of each kind is a minimum for a TPR and a "
            "TNR worth reading"
        ]
    j = stats.youden(table)
    if j is not None and j <= 0:
        out.warnings.append(
            "the judge does no better than chance against your labels (TPR + TNR ≤ 1): its pass rates cannot be "
            "corrected — fix the rubric"
        )
    return out


def folder_calibration(folder: Path, document: SuiteResult) -> Calibration | None:
    """The calibration of one results folder by its own labels.json, or None when it has none (or one that cannot
    be read: calibrate and review say why)."""
    from ..core.problems import SpecError
    from .labels import labels_path, read_labels

    try:
        labels = read_labels(labels_path(folder))
    except SpecError:
        return None
    if not labels.labels:
        return None
    return calibrate([Session(folder, document, labels)])
