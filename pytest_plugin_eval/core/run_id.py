"""Which run: a case, on a model (a matrix's; None: the session's), in an arm, the n-th. One value names a run
wherever the stages meet — the items and their node ids, runs started ahead, --runs auto's rounds, runs lost
with a worker, --lf — so that a new dimension of a run is one more field here.

The arms: `with` and `without` the plugin; `against`, another version of the plugin (--against); and
`ablate:<component>`, the plugin minus one component (--ablate). Node ids spell an arm so that `-k with-plugin`,
`-k no-plugin`, `-k against` and `-k ablate` each select one kind of arm."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .kinds import ABLATE_PREFIX, Arm, ablated

# An arm as node ids and JUnit spell it (with-plugin-2); an ablation's arm is `ablate-<component>`.
ARM_LABELS: dict[str, str] = {"with": "with-plugin", "without": "no-plugin", "against": "against"}

# <case file>::<case name>[<model>-with-plugin-2]: a run item's parameters at the end of its node id.
NODE_PARAMS = re.compile(
    r"\[(?:(?P<model>[^\[\]]+)-)?(?P<arm>with-plugin|no-plugin|against|ablate-[^\[\]]+?)-(?P<index>\d+)\]$"
)


def arm_label(arm: Arm) -> str:
    """`with` → `with-plugin`, `ablate:hooks` → `ablate-hooks`."""
    return ARM_LABELS.get(arm) or arm.replace(ABLATE_PREFIX, "ablate-", 1)


def arm_of_label(label: str) -> Arm:
    """The inverse of arm_label."""
    for arm, spelt in ARM_LABELS.items():
        if spelt == label:
            return arm  # type: ignore[return-value]  # a key of ARM_LABELS is an arm
    return ablated(label.removeprefix("ablate-"))


@dataclass(frozen=True, order=True)
class RunId:
    """One run of a session. `case`: the case's folder, resolved (two runs of one case on one model share it); for
    a run stored in a results folder (analysis/regrade.py), its dir as the document names it."""

    case: str
    arm: Arm
    index: int  # 1-based
    model: str | None = None

    @classmethod
    def of(cls, case_dir: Path, arm: Arm, index: int, model: str | None = None) -> RunId:
        return cls(str(case_dir.resolve()), arm, index, model)

    @property
    def case_key(self) -> str:
        """The case on its model: a matrix decides (--runs auto) and starts ahead each model's runs apart."""
        return case_key(self.case, self.model)

    @property
    def label(self) -> str:
        """The run's arm and index as node ids and JUnit spell them: `with-plugin-2` (a matrix's item puts its
        model's folder name first: session/items/case.py)."""
        return f"{arm_label(self.arm)}-{self.index}"

    @property
    def folder_name(self) -> str:
        return run_folder_name(self.arm, self.index)


def run_folder_name(arm: str, index: int) -> str:
    """A run's artefacts' folder in the results folder's runs/<case>/: `with-2`, `ablate-hooks-2`."""
    return f"{arm.replace(ABLATE_PREFIX, 'ablate-', 1)}-{index}"


def case_key(case: str, model: str | None = None) -> str:
    return case if model is None else f"{case}\0{model}"


@dataclass(frozen=True)
class NodeRun:
    """What a run item's node id says of its run: the arm, the index, and a matrix's model as the id spells it
    (model_dirname: the session maps it back to the model)."""

    arm: Arm
    index: int
    model_spelt: str | None

    @classmethod
    def parse(cls, nodeid: str) -> NodeRun | None:
        """`…::greets[haiku-with-plugin-2]` → (with, 2, haiku); None for a node id that is not a run item's."""
        match = NODE_PARAMS.search(nodeid)
        if match is None:
            return None
        return cls(arm_of_label(match["arm"]), int(match["index"]), match["model"])
