"""`file_exists`: whether a file created during the run matches a glob (or, with `exists: false`, none does).

The glob dialect is the reference tool's, matched against whole paths relative to the run's working
directory: `*` is any run of characters except `/`; `**/` is zero or more whole folders; any other `**` is
any run of characters including `/`; `?` is any one character (`/` included); everything else is literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...core.validate import boolean, require_str
from ...run.output import RunOutput
from ..base import GradeContext, GraderType, Verdict, register


@lru_cache(maxsize=256)
def glob_regex(glob: str) -> re.Pattern:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append(".")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def glob_match(glob: str, path: str) -> bool:
    return glob_regex(glob).fullmatch(path) is not None


@dataclass(frozen=True)
class FileExistsConfig:
    path: str
    exists: bool = True
    written: tuple = ()


@register
class FileExistsGrader(GraderType):
    name = "file_exists"
    keys = ("path", "exists")

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> FileExistsConfig:
        path = require_str(raw, "path", nonempty=True)
        exists = boolean(raw.get("exists", True), "exists")
        return FileExistsConfig(path, exists, tuple((k, raw[k]) for k in self.keys if k in raw))

    def config_json(self, config: FileExistsConfig) -> dict:
        return dict(config.written)

    def reads_created_files(self, config: FileExistsConfig) -> bool:
        return config.exists

    def grade(self, config: FileExistsConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        found = any(glob_match(config.path, f) for f in run.created_files)
        if config.exists:
            return Verdict(
                found, f"{config.path} exists as expected" if found else f"{config.path} missing (expected present)"
            )
        return Verdict(
            not found, f"{config.path} exists (expected absent)" if found else f"{config.path} absent as expected"
        )
