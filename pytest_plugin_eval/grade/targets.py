"""The texts a grader can read from a run: `last_message`, `trace`, `files`, `mock_calls`, or a file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..core.errors import HarnessError
from ..core.paths import inside
from ..core.problems import SpecError
from ..core.validate import known_keys, type_name

NAMED_TARGETS = ("last_message", "trace", "files", "mock_calls")
NO_MOCKS = (
    "no mock stand-ins were active in this run (--mocks off, or no mocks/ directory applies to this "
    "case) — a mock_calls grader has nothing to check"
)


@dataclass(frozen=True)
class FileTarget:
    """`{source: file, path: P}`: the current content of P, relative to the run's working directory."""

    path: str

    def to_json(self) -> dict:
        return {"source": "file", "path": self.path}

    def label(self) -> str:
        return f"file {self.path}"


Target = str | FileTarget


class TargetError(HarnessError):
    """The target cannot be read for this run (missing file, binary content, no mocks…)."""


def parse_target(value: object, key: str) -> Target:
    if isinstance(value, str):
        if value not in NAMED_TARGETS:
            raise SpecError(
                key, f"must be one of {', '.join(NAMED_TARGETS)} or {{source: file, path: PATH}} (got {value!r})"
            )
        return value
    if isinstance(value, dict):
        known_keys(value, ("source", "path"), key, "a file target")
        if value.get("source") != "file":
            raise SpecError(f"{key}.source", "must be `file` (the only object form is {source: file, path: PATH})")
        path = value.get("path")
        if not isinstance(path, str) or not path.strip():
            raise SpecError(
                f"{key}.path", f"must name a file relative to the run's working directory (got {type_name(path)})"
            )
        check_relative(path, f"{key}.path")
        return FileTarget(path)
    raise SpecError(
        key, f"must be one of {', '.join(NAMED_TARGETS)} or {{source: file, path: PATH}} (got {type_name(value)})"
    )


def check_relative(path: str, key: str) -> None:
    """Refuse paths that leave the folder they are resolved in (absolute, or with `..`)."""
    if PurePosixPath(path).is_absolute() or ".." in PurePosixPath(path).parts:
        raise SpecError(
            key,
            f"{path!r} leaves the run's working directory (absolute or `..`); "
            f"name a path inside it, such as out/report.md",
        )


def target_json(target: Target) -> object:
    return target.to_json() if isinstance(target, FileTarget) else target


def target_label(target: Target) -> str:
    return target.label() if isinstance(target, FileTarget) else target


IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image(data: bytes) -> str | None:
    """The image media type of `data`, judged by its first bytes (not its name), or None."""
    for signature, mime in IMAGE_SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_run_file(run, path: str) -> bytes:
    """The bytes of `path` inside the run's working directory; TargetError when it cannot be read."""
    full = os.path.realpath(os.path.join(run.cwd, path))
    if not inside(full, run.cwd):
        raise TargetError(f'file "{path}" resolves outside the run\'s working directory')
    if not os.path.exists(full):
        raise TargetError(f'file "{path}" does not exist in the run\'s working directory')
    if not os.path.isfile(full):
        raise TargetError(f'"{path}" is not a regular file')
    with open(full, "rb") as handle:
        return handle.read()


def text_of(target: Target, run) -> str:
    """The text a regex grader matches for `target` in `run` (see SPEC: raw text, no truncation)."""
    if isinstance(target, FileTarget):
        data = read_run_file(run, target.path)
        mime = sniff_image(data)
        if mime:
            raise TargetError(
                f"file {target.path} is an image ({mime}); a regex grader needs text — grade what "
                f"is visible with an llm grader (focus: {{source: file, path: {target.path}}})"
            )
        return data.decode("utf-8", errors="replace")
    if target == "last_message":
        return run.transcript.last_message
    if target == "trace":
        return run.transcript.text
    if target == "files":
        return "\n".join(run.created_files)
    if target == "mock_calls":
        if run.mock_calls is None:
            raise TargetError(NO_MOCKS)
        return "\n".join(run.mock_calls_text())
    raise TargetError(f"unknown target {target!r}")
