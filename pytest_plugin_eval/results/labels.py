"""A person's verdicts on judged grader verdicts: `labels.json` in a results folder.

    {"schemaVersion": 1,
     "labels": [{"case": "greets", "arm": "with", "run": 2, "grader": "reads-well", "verdict": "fail",
                 "note": "answers in French", "codes": ["wrong-language"], "by": "ana", "at": "2026-12-03T…",
                 "rubricHash": "9f2c…", "judgeModel": "claude-haiku-4-5", "judgePassed": true}]}

A label says whether the run meets the grader's criterion in the person's eyes (`verdict`), whatever the judge
said. What the person saw is kept beside it: the rubric's hash (`rubricHash`, `rubric_hash` of the grader as the
results document records it), the judge model and the judge's verdict. A label whose rubric hash is no longer the
grader's is stale: the criterion changed since, so the label may not hold (calibrate leaves it out and counts it).
The review page writes the file; a person or a script may write it too, and every writer's file is read by the
one reader here, which names the file and the key of anything wrong.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..core.kinds import ARMS, Arm
from ..core.problems import SpecError, located
from ..core.validate import mapping, nonempty_string, one_of, string, string_list, whole_number
from .jsonmap import EXTRA, Document, key
from .model import GraderInfo
from .store import write_json

LABELS_FILE = "labels.json"
LABELS_SCHEMA_VERSION = 1
Verdict = Literal["pass", "fail"]
JUDGED_TYPES = ("llm", "baseline")


def rubric_hash(grader: GraderInfo) -> str:
    """What the person read the run against: the grader's configuration (criteria, focus, baseline digest)."""
    text = json.dumps({"type": grader.type, "config": grader.config}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Label(Document):
    """One person's verdict on one grader's verdict of one run."""

    case: str = field(metadata=key("case"))
    arm: Arm = field(metadata=key("arm"))
    run: int = field(metadata=key("run"))
    grader: str = field(metadata=key("grader"))
    verdict: Verdict = field(metadata=key("verdict"))
    _: KW_ONLY
    note: str | None = field(default=None, metadata=key("note", omit="falsy"))
    codes: tuple[str, ...] = field(default=(), metadata=key("codes", omit="falsy"))
    by: str | None = field(default=None, metadata=key("by", omit="none"))
    at: str | None = field(default=None, metadata=key("at", omit="none"))
    rubric_hash: str | None = field(default=None, metadata=key("rubricHash", omit="none"))
    judge_model: str | None = field(default=None, metadata=key("judgeModel", omit="none"))
    judge_passed: bool | None = field(default=None, metadata=key("judgePassed", omit="none"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    @property
    def where(self) -> tuple[str, str, int, str]:
        """What it labels: (case, arm, run, grader)."""
        return (self.case, self.arm, self.run, self.grader)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


@dataclass
class Labels(Document):
    _: KW_ONLY
    schema_version: int = field(default=LABELS_SCHEMA_VERSION, metadata=key("schemaVersion"))
    labels: list[Label] = field(default_factory=list, metadata=key("labels"))
    extra: dict[str, Any] = field(default_factory=dict, metadata=EXTRA)

    def find(self, case: str, arm: str, run: int, grader: str) -> Label | None:
        return next((label for label in self.labels if label.where == (case, arm, run, grader)), None)

    def put(self, label: Label) -> Labels:
        """These labels with `label` in place of one on the same verdict (or added)."""
        kept = [old for old in self.labels if old.where != label.where]
        return replace(self, labels=[*kept, label])

    def remove(self, case: Any, arm: Any, run: Any, grader: Any) -> Labels:
        return replace(self, labels=[old for old in self.labels if old.where != (case, arm, run, grader)])


_LABEL_KEYS = {
    "case": nonempty_string,
    "arm": one_of(*ARMS),
    "run": whole_number(1),
    "grader": nonempty_string,
    "verdict": one_of("pass", "fail"),
    "note": string,
    "codes": string_list,
    "by": string,
    "at": string,
    "rubricHash": string,
    "judgeModel": string,
}


def _check_label(raw: Any, where: str) -> dict:
    mapping(raw, where)
    for name in ("case", "arm", "run", "grader", "verdict"):
        if name not in raw:
            raise SpecError(f"{where}.{name}", "is required (a label names case, arm, run, grader and verdict)")
    for name, check in _LABEL_KEYS.items():
        if name in raw and not (raw[name] is None and name not in ("case", "arm", "run", "grader", "verdict")):
            check(raw[name], f"{where}.{name}")
    if raw.get("judgePassed") is not None and not isinstance(raw["judgePassed"], bool):
        raise SpecError(f"{where}.judgePassed", "must be true or false")
    return raw


def labels_from_json(data: Any) -> Labels:
    """The labels of a parsed document; a SpecError names the first bad key (`labels[2].verdict`)."""
    mapping(data, "")
    version = data.get("schemaVersion", LABELS_SCHEMA_VERSION)
    if version != LABELS_SCHEMA_VERSION:
        raise SpecError("schemaVersion", f"must be {LABELS_SCHEMA_VERSION} (got {version!r})")
    items = data.get("labels", [])
    if not isinstance(items, list):
        raise SpecError("labels", "must be a list of labels")
    seen: dict[tuple, int] = {}
    for i, raw in enumerate(items):
        _check_label(raw, f"labels[{i}]")
        where = (raw["case"], raw["arm"], int(raw["run"]), raw["grader"])
        if where in seen:
            raise SpecError(
                f"labels[{i}]",
                f"labels the same verdict as labels[{seen[where]}] (case {where[0]}, {where[1]} run {where[2]}, "
                f"grader {where[3]}): keep one",
            )
        seen[where] = i
    labels = Labels.from_json({**data, "labels": [{**raw, "run": int(raw["run"])} for raw in items]})
    for label in labels.labels:
        label.codes = tuple(label.codes)
    return labels


def read_labels(path: Path) -> Labels:
    """The labels file at `path`: no file is no labels. Raises SpecError naming the file and the key."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return Labels()
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError.at(path, "", f"cannot be read: {e}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise SpecError.at(path, "", f"is not JSON ({e})", structural=True) from None
    with located(path):
        return labels_from_json(data)


def write_labels(path: Path, labels: Labels) -> None:
    """Write the labels atomically (a reader never sees half a file), in a stable order."""
    ordered = sorted(labels.labels, key=lambda label: (label.case, label.arm, label.run, label.grader))
    write_json(path, replace(labels, labels=ordered).to_json())


def labels_path(results_folder: Path) -> Path:
    return Path(results_folder) / LABELS_FILE


def carry_labels(source: Path, target: Path) -> bool:
    """A regrade's results folder keeps the labels of the folder it regraded (labels are about runs, and the runs
    are the same; a label whose rubric changed is then stale). Nothing is replaced: True when copied."""
    found, kept = labels_path(source), labels_path(target)
    if not found.is_file() or kept.exists() or found.resolve() == kept.resolve():
        return False
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(found.read_bytes())
    return True
