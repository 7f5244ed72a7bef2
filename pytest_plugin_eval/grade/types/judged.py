"""`llm` (a rubric judged by a model over one focus of the run) and `baseline` (the new trace judged against a
reference transcript). Both are paid graders: they call the judge model (judge.py).

What the judge sees is cut to a size it can read: a trace keeps its first and last 12 lines, any text over
100,000 characters keeps its first 80,000 and last 20,000, and every cut says how much was left out. Images
(detected from their bytes) are sent as images; PDFs, Office files and other binaries are refused without
a judge call.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ...core.problems import SpecError
from ...core.validate import require_str
from ...run.artefacts import TRACE
from ...run.output import RunOutput
from .. import ecmaregex
from ..base import GradeContext, GraderType, Verdict, register
from ..conversation import conversation_lines, is_conversation
from ..judge import ANSWER_LINE, JudgeUnavailable
from ..targets import (
    FileTarget,
    Target,
    TargetError,
    check_relative,
    parse_target,
    read_run_file,
    sniff_image,
    target_json,
    target_label,
    text_of,
)

EDGE_LINES = 12
TEXT_CAP, TEXT_HEAD, TEXT_TAIL = 100_000, 80_000, 20_000
LONG_FILE = 8_000
IMAGE_CAP = 5 * 1024 * 1024


def cut_lines(text: str) -> str:
    lines = text.split("\n")
    if len(lines) <= 2 * EDGE_LINES:
        return text
    hidden = len(lines) - 2 * EDGE_LINES
    return "\n".join(lines[:EDGE_LINES] + [f"[…{hidden} messages elided…]"] + lines[-EDGE_LINES:])


def cut_chars(text: str) -> str:
    if len(text) <= TEXT_CAP:
        return text
    hidden = len(text) - TEXT_HEAD - TEXT_TAIL
    return f"{text[:TEXT_HEAD]}\n[…{hidden} chars elided…]\n{text[-TEXT_TAIL:]}"


def binary_kind(data: bytes) -> str | None:
    """Why a file cannot be shown to the judge as text, or None for text."""
    if data.startswith(b"%PDF-"):
        return "a PDF document"
    if data.startswith(b"PK\x03\x04"):
        return "a ZIP archive (Office documents such as .docx/.xlsx/.pptx are ZIPs)"
    if b"\x00" in data[:8192]:
        return "a binary file"
    return None


@dataclass(frozen=True)
class Evidence:
    """What one judged grader shows the judge: content blocks, the text recorded as evidence, and a note."""

    blocks: list
    text: str
    note: str = ""


def focus_evidence(focus: Target, run: RunOutput, criteria: str) -> Evidence:
    """The judge's content for an llm grader. Raises TargetError when there is nothing it can be shown."""
    intro = f"Criterion:\n{criteria}\n\n"
    if isinstance(focus, FileTarget):
        data = read_run_file(run, focus.path)
        mime = sniff_image(data)
        if mime:
            if len(data) > IMAGE_CAP:
                raise TargetError(
                    f"file {focus.path} is an image of {len(data)} bytes; the judge takes images up to "
                    f"{IMAGE_CAP} bytes"
                )
            shown = f"[image shown to the judge: {focus.path} — sent as {mime}, {len(data)} bytes]"
            blocks = [
                {"type": "text", "text": f"{intro}Evidence — file {focus.path}, the attached image:"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime, "data": base64.b64encode(data).decode("ascii")},
                },
                {"type": "text", "text": ANSWER_LINE},
            ]
            return Evidence(blocks, shown, " (image)")
        kind = binary_kind(data)
        if kind:
            raise TargetError(
                f"file {focus.path} cannot be shown to the judge as text — it is {kind}, and not an "
                f"image the judge can see (PNG/JPEG/GIF/WebP); have the case render it to an image or "
                f"write its content as UTF-8 text, and grade that"
            )
        text = data.decode("utf-8", errors="replace")
        note = ""
        if len(text) > LONG_FILE:
            note = (
                f" — note: long file ({len(text)} chars); llm judges are noisy on long inputs, prefer a regex "
                f"grader for large artifacts"
            )
    elif focus == "last_message" and is_conversation(run.transcript):
        # A conversation's judge reads the conversation, not its last message alone (cut as a trace is).
        text = cut_lines("\n".join(conversation_lines(run.transcript)))
        note = ""
        focus = "conversation"
    else:
        text = text_of(focus, run)
        if focus == "trace":
            text = cut_lines(text)
        note = ""
    text = cut_chars(text)
    return Evidence([{"type": "text", "text": evidence_prompt(criteria, focus, text)}], text, note)


def evidence_prompt(criteria: str, focus: Target, text: str) -> str:
    """The llm judge's prompt for a text focus (also what calibrate's controls show it)."""
    return (
        f"Criterion:\n{criteria}\n\nEvidence — {target_label(focus)}:\n<evidence>\n{text}\n</evidence>\n\n{ANSWER_LINE}"
    )


def judged(ctx: GradeContext, evidence: Evidence, record_evidence: bool) -> Verdict:
    """Ask the judge; an unavailable judge leaves the grader errored (left out of the score)."""
    judge = ctx.judge
    if judge is None:
        return Verdict(False, "judge unavailable: no judge is configured for this session", errored=True)
    details: dict = {"judgeModel": judge.model}
    try:
        ballot = judge.ballot(ctx.grader, evidence.blocks)
    except JudgeUnavailable as e:
        return Verdict(False, f"judge unavailable: {e}", errored=True, cost_usd=e.cost_usd, details=details)
    details["judgeVotes"] = ballot.votes
    if record_evidence:
        details["evidence"] = evidence.text
    return Verdict(ballot.passed, ballot.explanation() + evidence.note, cost_usd=ballot.cost_usd, details=details)


@dataclass(frozen=True)
class LlmConfig:
    criteria: str
    focus: Target = "last_message"


@register
class LlmGrader(GraderType):
    name = "llm"
    keys = ("focus",)
    paid = True
    uses_body = True

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> LlmConfig:
        criteria = body.strip()
        if not criteria:
            raise SpecError(
                "criteria", "is empty — write the rubric (what a passing run looks like) as the file's body"
            )
        return LlmConfig(criteria, parse_target(raw.get("focus", "last_message"), "focus"))

    def config_json(self, config: LlmConfig) -> dict:
        return {"criteria": config.criteria, "focus": target_json(config.focus)}

    def with_only_by_default(self, config: LlmConfig) -> bool:
        return config.focus == "mock_calls"

    def reads_created_files(self, config: LlmConfig) -> bool:
        return config.focus == "files" or isinstance(config.focus, FileTarget)

    def grade(self, config: LlmConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        try:
            evidence = focus_evidence(config.focus, run, config.criteria)
        except TargetError as e:
            return Verdict(False, str(e))
        return judged(ctx or GradeContext(), evidence, record_evidence=True)


@dataclass(frozen=True)
class BaselineConfig:
    criteria: str
    baseline_file: str
    lines: tuple[str, ...]  # the reference transcript, one compact JSON value per line


def read_baseline(case_dir: Path, rel: str) -> tuple[str, ...]:
    check_relative(rel, "baseline_file")
    path = case_dir / rel
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("baseline_file", f'"{rel}" does not exist in the case folder') from None
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError("baseline_file", f'"{rel}" cannot be read: {e}') from None
    lines = []
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            lines.append(ecmaregex.compact_json(json.loads(line)))
        except (ValueError, RecursionError) as e:  # RecursionError: JSON nested too deeply to read
            raise SpecError(
                "baseline_file",
                f'"{rel}" line {number} is not JSON ({e}); a baseline is a JSON Lines '
                f"transcript such as a run's {TRACE}",
            ) from None
    return tuple(lines)


def baseline_prompt(criteria: str, baseline: str, new: str) -> str:
    """The baseline judge's prompt: the reference trajectory, then the one graded (calibrate's controls swap them)."""
    baseline, new = cut_chars(cut_lines(baseline)), cut_chars(cut_lines(new))
    return (
        f"Criterion:\n{criteria}\n\nBASELINE trajectory (a reference run):\n<baseline>\n{baseline}\n"
        f"</baseline>\n\nNEW trajectory (the run being graded):\n<new>\n{new}\n</new>\n\nDoes the NEW "
        f"trajectory meet the criterion at least as well as the BASELINE? {ANSWER_LINE}"
    )


@register
class BaselineGrader(GraderType):
    name = "baseline"
    keys = ("baseline_file",)
    paid = True
    uses_body = True

    def parse(self, raw: dict, body: str, case_dir: Path | None = None) -> BaselineConfig:
        criteria = body.strip()
        if not criteria:
            raise SpecError(
                "criteria",
                "is empty — write what the new run must do at least as well as the baseline as the file's body",
            )
        rel = require_str(raw, "baseline_file", nonempty=True)
        lines = read_baseline(case_dir, rel) if case_dir is not None else ()
        return BaselineConfig(criteria, rel, lines)

    def config_json(self, config: BaselineConfig) -> dict:
        # the reference transcript's digest: an edited baseline makes the case a changed one (--lf, comparisons)
        digest = hashlib.sha256("\n".join(config.lines).encode()).hexdigest()[:16]
        return {"criteria": config.criteria, "baseline_file": config.baseline_file, "sha256": digest}

    def grade(self, config: BaselineConfig, run: RunOutput, ctx: GradeContext | None = None) -> Verdict:
        prompt = baseline_prompt(config.criteria, "\n".join(config.lines), run.transcript.text)
        return judged(ctx or GradeContext(), Evidence([{"type": "text", "text": prompt}], ""), record_evidence=False)
