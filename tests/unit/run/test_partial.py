"""The partial-message lines are the supervisor's evidence only: taken out of the trace, the rest stays byte for
byte as Claude Code wrote it."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_plugin_eval.run import partial

INIT = '{"type":"system","subtype":"init","cwd":"/w"}'
REQUESTING = '{"type":"system","subtype":"status","status":"requesting"}'
DELTA = '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"text":"H"}}}'
COMPACTING = '{"type":"system","subtype":"status","status":"compacting"}'
TEXT = '{"type":"assistant","message":{"content":[{"type":"text","text":"say \\"stream_event\\" requesting"}]}}'


def test_stream_events_and_request_markers_are_taken_out_and_the_rest_kept_verbatim(tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join([INIT, REQUESTING, DELTA, TEXT, COMPACTING, "not json", DELTA]) + "\n")
    kept = partial.take_out(trace)
    assert kept == "\n".join([INIT, TEXT, COMPACTING, "not json"]) + "\n"
    assert trace.read_text() == kept
    assert list(tmp_path.iterdir()) == [trace]


def test_a_trace_without_partial_lines_is_left_alone(tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text(INIT + "\n")
    before = trace.stat().st_mtime_ns
    assert partial.take_out(trace) == INIT + "\n"
    assert trace.stat().st_mtime_ns == before
    assert partial.take_out(tmp_path / "missing.jsonl") == ""


def test_what_counts_as_partial():
    assert partial.is_partial(json.loads(DELTA)) and partial.is_partial(json.loads(REQUESTING))
    assert not partial.is_partial(json.loads(COMPACTING)) and not partial.is_partial(json.loads(TEXT))
