"""Unit tests for the deterministic graders (regex, tool_used, tool_order, file_exists), their shared base,
and the targets they read (pytest_plugin_eval.targets)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.grade import ecmaregex
from pytest_plugin_eval.grade.base import Verdict, registry
from pytest_plugin_eval.grade.targets import (
    NO_MOCKS,
    FileTarget,
    TargetError,
    check_relative,
    parse_target,
    read_run_file,
    sniff_image,
    target_json,
    target_label,
    text_of,
)
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.grade.types.files import glob_match, glob_regex
from pytest_plugin_eval.load.graders import GraderSpec, parse_grader
from pytest_plugin_eval.run.output import RunOutput
from pytest_plugin_eval.run.transcript import Transcript

FINAL = "Found 3 files: a.py, b.py and c.py. Done."  # chat_run's last message
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


# ---- building runs -----------------------------------------------------------------------------------------


def init_line() -> dict:
    return {"type": "system", "subtype": "init"}


def text_line(text: str, mid: str = "m1", parent: str | None = None) -> dict:
    return {
        "type": "assistant",
        "message": {"id": mid, "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": parent,
    }


def tool_line(name: str, tool_input: dict, tid: str = "t1", mid: str = "m1", parent: str | None = None) -> dict:
    return {
        "type": "assistant",
        "message": {"id": mid, "content": [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}]},
        "parent_tool_use_id": parent,
    }


def result_line() -> dict:
    return {"type": "result", "subtype": "success", "num_turns": 2, "result": "done"}


def trace(*events: dict) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


def make_run(tmp_path: Path, *events: dict, created=(), mock_calls=None) -> RunOutput:
    return RunOutput(Transcript(trace(*events)), cwd=tmp_path, created_files=tuple(created), mock_calls=mock_calls)


def parse(kind: str, raw: dict, body: str = ""):
    return registry()[kind].parse(raw, body)


def grade(kind: str, raw: dict, run: RunOutput, body: str = "") -> Verdict:
    grader = registry()[kind]
    return grader.grade(grader.parse(raw, body), run)


def spec_error(kind: str, raw: dict, body: str = "") -> SpecError:
    with pytest.raises(SpecError) as info:
        parse(kind, raw, body)
    return info.value


@pytest.fixture
def chat_run(tmp_path):
    """Two text blocks around a tool call; the last one is the final answer."""
    return make_run(
        tmp_path,
        init_line(),
        text_line("Looking for the config first.", "m1"),
        tool_line("Glob", {"pattern": "*.py"}, "t1", "m1"),
        text_line("Found 3 files: a.py, b.py and c.py. Done.", "m2"),
        result_line(),
    )


@pytest.fixture
def tools_run(tmp_path):
    """Glob three times (one inside a subagent), Grep twice, a Read, and the Agent call itself."""
    return make_run(
        tmp_path,
        init_line(),
        tool_line("Glob", {"pattern": "*.py"}, "t1", "m1"),  # 0
        tool_line("Grep", {"pattern": "TODO", "path": "src"}, "t2", "m2"),  # 1
        tool_line("Agent", {"description": "search"}, "t3", "m3"),  # 2
        tool_line("Glob", {"pattern": "src/**/*.ts"}, "t4", "s1", parent="t3"),  # 3 (subagent)
        tool_line("Read", {"file_path": "a.py", "limit": 1.0}, "t5", "m4"),  # 4
        tool_line("Glob", {"pattern": "*.md"}, "t6", "m5"),  # 5
        tool_line("Grep", {"pattern": "FIXME"}, "t7", "m6"),  # 6
        tool_line("Globber", {"pattern": "*.py"}, "t8", "m7"),  # 7 (different name)
        text_line("done", "m8"),
        result_line(),
    )


# ---- the registry and base validators ------------------------------------------------------------------------


def test_registry_holds_the_built_in_types():
    assert set(registry()) >= {"regex", "tool_used", "tool_order", "file_exists", "llm", "baseline", "python"}
    assert registry()["regex"].name == "regex"
    assert registry()["regex"].keys == ("pattern", "target", "match", "flags")
    assert registry()["tool_used"].keys == ("tool", "input_match", "min", "max")
    assert registry()["tool_order"].keys == ("before", "after")
    assert registry()["file_exists"].keys == ("path", "exists")
    assert not any(registry()[k].paid for k in ("regex", "tool_used", "tool_order", "file_exists"))


def test_parse_target_named_and_file():
    for name in ("last_message", "trace", "files", "mock_calls"):
        assert parse_target(name, "target") == name
    target = parse_target({"source": "file", "path": "out/report.md"}, "focus")
    assert target == FileTarget("out/report.md")
    assert target_json(target) == {"source": "file", "path": "out/report.md"}
    assert target_json("trace") == "trace"
    assert target_label(target) == "file out/report.md"
    assert target_label("files") == "files"


@pytest.mark.parametrize(
    "value, key, message",
    [
        (
            "stdout",
            "t",
            "t: must be one of last_message, trace, files, mock_calls or {source: file, path: PATH} (got 'stdout')",
        ),
        (
            3,
            "t",
            "t: must be one of last_message, trace, files, mock_calls or {source: file, path: PATH} "
            "(got a whole number)",
        ),
        (
            {"source": "url", "path": "x"},
            "t.source",
            "t.source: must be `file` (the only object form is {source: file, path: PATH})",
        ),
        ({"path": "x"}, "t.source", None),
        (
            {"source": "file"},
            "t.path",
            "t.path: must name a file relative to the run's working directory (got nothing (null))",
        ),
        ({"source": "file", "path": "  "}, "t.path", None),
        (
            {"source": "file", "path": "x", "mode": "r"},
            "t.mode",
            "t.mode: is not a key of a file target (expected: source, path)",
        ),
        (
            {"source": "file", "path": "../secret"},
            "t.path",
            "t.path: '../secret' leaves the run's working directory "
            "(absolute or `..`); name a path inside it, such as "
            "out/report.md",
        ),
        ({"source": "file", "path": "/etc/passwd"}, "t.path", None),
        ({"source": "file", "path": "a/../../b"}, "t.path", None),
    ],
)
def test_parse_target_errors(value, key, message):
    with pytest.raises(SpecError) as info:
        parse_target(value, "t")
    assert info.value.key == key
    if message is not None:
        assert str(info.value) == message


def test_check_relative_allows_inner_paths():
    check_relative("out/report.md", "k")
    check_relative("./out/report.md", "k")
    check_relative("a..b/c", "k")  # `..` only as a whole part
    with pytest.raises(SpecError):
        check_relative("out/../..", "k")


def test_sniff_image_by_bytes():
    assert sniff_image(PNG) == "image/png"
    assert sniff_image(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert sniff_image(b"GIF87a...") == "image/gif"
    assert sniff_image(b"GIF89a...") == "image/gif"
    assert sniff_image(b"RIFF\x10\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_image(b"RIFF\x10\x00\x00\x00WAVEfmt ") is None
    assert sniff_image(b"PNG is a format") is None
    assert sniff_image(b"") is None


def test_read_run_file(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.txt").write_bytes(b"hello")
    run = make_run(tmp_path)
    assert read_run_file(run, "out/a.txt") == b"hello"
    with pytest.raises(TargetError) as info:
        read_run_file(run, "out/b.txt")
    assert str(info.value) == 'file "out/b.txt" does not exist in the run\'s working directory'
    with pytest.raises(TargetError) as info:
        read_run_file(run, "out")
    assert str(info.value) == '"out" is not a regular file'


def test_read_run_file_refuses_a_symlink_out_of_the_folder(tmp_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (tmp_path / "secret.txt").write_text("s3cret")
    os.symlink(tmp_path / "secret.txt", cwd / "link.txt")
    run = make_run(cwd)
    with pytest.raises(TargetError) as info:
        read_run_file(run, "link.txt")
    assert str(info.value) == 'file "link.txt" resolves outside the run\'s working directory'


def test_text_of_named_targets(tmp_path, chat_run):
    assert text_of("last_message", chat_run) == "Found 3 files: a.py, b.py and c.py. Done."
    assert text_of("trace", chat_run) == chat_run.transcript.text
    run = make_run(tmp_path, text_line("x"), created=("a.md", "b/c.md", "d.txt"))
    assert text_of("files", run) == "a.md\nb/c.md\nd.txt"
    assert text_of("files", make_run(tmp_path)) == ""
    with pytest.raises(TargetError) as info:
        text_of("mock_calls", run)
    assert str(info.value) == NO_MOCKS
    with pytest.raises(TargetError) as info:
        text_of("bogus", run)
    assert str(info.value) == "unknown target 'bogus'"


def test_text_of_mock_calls(tmp_path):
    calls = (
        {"tool": "mcp__db__query", "input": {"sql": "select é"}, "output": "ok"},
        {"tool": "mcp__db__query", "input": {}, "output": None},
    )
    run = make_run(tmp_path, created=(), mock_calls=calls)
    assert text_of("mock_calls", run) == (
        '{"tool":"mcp__db__query","input":{"sql":"select é"},"output":"ok"}\n'
        '{"tool":"mcp__db__query","input":{},"output":null}'
    )
    assert text_of("mock_calls", make_run(tmp_path, mock_calls=())) == ""


# ---- regex: targets ------------------------------------------------------------------------------------------


def test_regex_last_message_is_the_last_text_block_only(chat_run):
    assert grade("regex", {"pattern": "Done\\.$"}, chat_run) == Verdict(True, "matched Done\\.$")
    verdict = grade("regex", {"pattern": "config"}, chat_run)
    assert verdict == Verdict(False, f'pattern /config/ not found in last_message: "{FINAL}"')
    # The tool call's input is not part of the last message either.
    assert not grade("regex", {"pattern": "\\*\\.py"}, chat_run).passed


def test_regex_last_message_is_empty_without_text(tmp_path):
    run = make_run(tmp_path, init_line(), tool_line("Glob", {"pattern": "*"}), result_line())
    assert run.last_message == ""
    assert grade("regex", {"pattern": "^$"}, run).passed
    assert grade("regex", {"pattern": "."}, run) == Verdict(
        False, "pattern /./ not found in last_message, which is empty"
    )
    assert grade("regex", {"pattern": "x*", "match": "count:1"}, run) == Verdict(
        True, "found 1 match of /x*/ in last_message (expected 1)"
    )


def test_regex_last_message_ignores_empty_trace(tmp_path):
    run = RunOutput(Transcript(""), cwd=tmp_path)
    assert grade("regex", {"pattern": "a", "match": "not_contains"}, run) == Verdict(True, "pattern absent as expected")


def test_regex_trace_target_is_the_raw_text(chat_run):
    # The trace is matched byte for byte as written: json.dumps puts a space after ':'.
    assert grade("regex", {"pattern": '"name": "Glob"', "target": "trace"}, chat_run).passed
    assert not grade("regex", {"pattern": '"name":"Glob"', "target": "trace"}, chat_run).passed
    assert grade(
        "regex", {"pattern": '"type": "(?:system|result)"', "target": "trace", "match": "count:2"}, chat_run
    ) == Verdict(True, 'found 2 matches of /"type": "(?:system|result)"/ in trace (expected 2)')
    assert grade("regex", {"pattern": "config first", "target": "trace"}, chat_run) == Verdict(
        True, "matched config first"
    )
    # A failure shows the start of the text searched: 80 characters, on one line, cut with an ellipsis.
    start = json.dumps(text_of("trace", chat_run)[:80])[1:-1]
    assert start.startswith('{\\"type\\": \\"system\\"') and "\n" not in start
    assert grade("regex", {"pattern": "nowhere", "target": "trace"}, chat_run) == Verdict(
        False, f'pattern /nowhere/ not found in trace: "{start}…"'
    )


def test_regex_trace_target_keeps_non_json_lines(tmp_path):
    run = RunOutput(Transcript('{"type":"system","subtype":"init"}\nnot json at all\n'), cwd=tmp_path)
    assert grade("regex", {"pattern": "^not json at all$", "target": "trace", "flags": "m"}, run).passed
    assert grade("regex", {"pattern": "all$", "target": "trace"}, run).passed  # the final newline is dropped


def test_regex_files_target(tmp_path):
    run = make_run(tmp_path, text_line("ok"), created=("README.md", "docs/guide.md", "src/app.py"))
    assert grade("regex", {"pattern": "^docs/guide\\.md$", "target": "files", "flags": "m"}, run).passed
    assert not grade("regex", {"pattern": "^docs/guide\\.md$", "target": "files"}, run).passed
    assert grade("regex", {"pattern": "\\.md$", "target": "files", "flags": "m", "match": "count:2"}, run) == Verdict(
        True, "found 2 matches of /\\.md$/m in files (expected 2)"
    )
    assert grade("regex", {"pattern": "README\\.md\\ndocs", "target": "files"}, run).passed
    assert grade("regex", {"pattern": "\\.rs", "target": "files"}, run) == Verdict(
        False, 'pattern /\\.rs/ not found in files: "README.md\\ndocs/guide.md\\nsrc/app.py"'
    )
    assert registry()["regex"].reads_created_files(parse("regex", {"pattern": "a", "target": "files"}))
    assert not registry()["regex"].reads_created_files(parse("regex", {"pattern": "a", "target": "trace"}))


def test_regex_file_target(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.md").write_text("# Report\nstatus: green\n", encoding="utf-8")
    run = make_run(tmp_path, text_line("ok"))
    target = {"source": "file", "path": "out/report.md"}
    assert grade("regex", {"pattern": "^status: green$", "flags": "m", "target": target}, run).passed
    assert grade("regex", {"pattern": "red", "target": target}, run) == Verdict(
        False, 'pattern /red/ not found in file out/report.md: "# Report\\nstatus: green\\n"'
    )
    assert grade("regex", {"pattern": "red", "target": target, "match": "not_contains"}, run).passed


def test_regex_file_target_missing_or_directory(tmp_path):
    (tmp_path / "out").mkdir()
    run = make_run(tmp_path, text_line("ok"))
    missing = grade("regex", {"pattern": "x", "target": {"source": "file", "path": "out/none.md"}}, run)
    assert missing == Verdict(False, 'file "out/none.md" does not exist in the run\'s working directory')
    # A missing file fails every match mode, not_contains included.
    assert not grade(
        "regex", {"pattern": "x", "match": "not_contains", "target": {"source": "file", "path": "out/none.md"}}, run
    ).passed
    folder = grade("regex", {"pattern": "x", "target": {"source": "file", "path": "out"}}, run)
    assert folder == Verdict(False, '"out" is not a regular file')


def test_regex_file_target_image_detected_by_bytes(tmp_path):
    (tmp_path / "chart.txt").write_bytes(PNG)  # the name says text, the bytes say PNG
    (tmp_path / "notes.png").write_text("plain text")  # the name says PNG, the bytes say text
    run = make_run(tmp_path)
    verdict = grade("regex", {"pattern": "x", "target": {"source": "file", "path": "chart.txt"}}, run)
    assert not verdict.passed
    assert verdict.explanation == (
        "file chart.txt is an image (image/png); a regex grader needs text — grade what "
        "is visible with an llm grader (focus: {source: file, path: chart.txt})"
    )
    assert grade("regex", {"pattern": "^plain text$", "target": {"source": "file", "path": "notes.png"}}, run).passed


def test_regex_file_target_invalid_utf8_is_replaced(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"caf\xe9 ok")
    run = make_run(tmp_path)
    assert grade("regex", {"pattern": "caf\ufffd ok", "target": {"source": "file", "path": "a.txt"}}, run).passed


@pytest.mark.parametrize("path", ["../outside.md", "/tmp/x.md", "out/../../x.md"])
def test_regex_file_target_escaping_paths_refused_at_parse_time(path):
    error = spec_error("regex", {"pattern": "x", "target": {"source": "file", "path": path}})
    assert error.key == "target.path"
    assert "leaves the run's working directory" in error.message


def test_regex_mock_calls_target(tmp_path):
    no_mocks = make_run(tmp_path, text_line("ok"), mock_calls=None)
    verdict = grade("regex", {"pattern": "x", "target": "mock_calls"}, no_mocks)
    assert verdict == Verdict(False, NO_MOCKS)
    assert verdict.explanation.startswith("no mock stand-ins were active in this run")
    # Even not_contains fails: there is nothing to check.
    assert not grade("regex", {"pattern": "x", "target": "mock_calls", "match": "not_contains"}, no_mocks).passed

    mocked = make_run(tmp_path, text_line("ok"), mock_calls=({"tool": "mcp__pay__charge", "input": {"amount": 5}},))
    assert grade("regex", {"pattern": '"amount":5', "target": "mock_calls"}, mocked) == Verdict(
        True, 'matched "amount":5'
    )
    empty = make_run(tmp_path, text_line("ok"), mock_calls=())
    assert grade("regex", {"pattern": "charge", "target": "mock_calls"}, empty) == Verdict(
        False, "pattern /charge/ not found in mock_calls, which is empty"
    )


# ---- regex: match modes ----------------------------------------------------------------------------------------


def test_regex_match_modes_and_explanations(chat_run):
    assert grade("regex", {"pattern": "a\\.py"}, chat_run) == Verdict(True, "matched a\\.py")
    assert grade("regex", {"pattern": "z\\.py"}, chat_run) == Verdict(
        False, f'pattern /z\\.py/ not found in last_message: "{FINAL}"'
    )
    assert grade("regex", {"pattern": "z\\.py", "match": "not_contains"}, chat_run) == Verdict(
        True, "pattern absent as expected"
    )
    assert grade("regex", {"pattern": "a\\.py", "match": "not_contains"}, chat_run) == Verdict(
        False,
        'pattern /a\\.py/ found in last_message (expected absent): "a.py" on line 1, in "Found 3 files: a.py, b.py and c.py. Done."',
    )
    assert grade("regex", {"pattern": "Done", "match": "count:1"}, chat_run) == Verdict(
        True, "found 1 match of /Done/ in last_message (expected 1)"
    )
    assert grade("regex", {"pattern": "\\.py", "match": "count:2"}, chat_run) == Verdict(
        False, "found 3 matches of /\\.py/ in last_message (expected 2)"
    )
    assert grade("regex", {"pattern": "\\.py", "match": "count:3"}, chat_run) == Verdict(
        True, "found 3 matches of /\\.py/ in last_message (expected 3)"
    )
    assert grade("regex", {"pattern": "zzz", "match": "count:0"}, chat_run) == Verdict(
        True, "found 0 matches of /zzz/ in last_message (expected 0)"
    )
    assert grade("regex", {"pattern": "Done", "match": "count:0"}, chat_run) == Verdict(
        False, "found 1 match of /Done/ in last_message (expected 0)"
    )


def test_regex_failure_shows_the_pattern_and_the_start_of_the_text(tmp_path):
    long = "Renamed getUser to fetchUser in src/users.ts and updated the three call sites.\nNothing else changed."
    run = make_run(tmp_path, text_line(long))
    verdict = grade("regex", {"pattern": "^refactor", "flags": "m"}, run)
    # 80 characters, the newline written as \n so the excerpt stays on one line, then an ellipsis
    assert verdict == Verdict(
        False,
        "pattern /^refactor/m not found in last_message: "
        '"Renamed getUser to fetchUser in src/users.ts and updated the three call sites.\\nN…"',
    )
    short = make_run(tmp_path, text_line('Say "hi"'))
    assert grade("regex", {"pattern": "bye"}, short).explanation == (
        'pattern /bye/ not found in last_message: "Say \\"hi\\""'
    )


def test_regex_not_contains_failure_shows_where_it_matched(tmp_path):
    text = "Line one is fine.\nThis line has a TODO: remove the debug print before it ships to production."
    run = make_run(tmp_path, text_line(text))
    verdict = grade("regex", {"pattern": "TODO", "match": "not_contains"}, run)
    assert verdict == Verdict(
        False,
        'pattern /TODO/ found in last_message (expected absent): "TODO" on line 2, in '
        '"… one is fine.\\nThis line has a TODO: remove the debug print befor…"',  # 30 either side
    )
    # A long match is shown cut, without the text around it.
    wide = make_run(tmp_path, text_line("x" * 100))
    assert grade("regex", {"pattern": "x+", "match": "not_contains"}, wide).explanation == (
        f'pattern /x+/ found in last_message (expected absent): "{"x" * 40}…" on line 1'
    )


def test_regex_count_shows_the_pattern(chat_run):
    verdict = grade("regex", {"pattern": "\\.py", "flags": "g", "match": "count:1"}, chat_run)
    assert verdict == Verdict(False, "found 3 matches of /\\.py/g in last_message (expected 1)")


def test_regex_flags_apply(chat_run):
    assert not grade("regex", {"pattern": "done"}, chat_run).passed
    assert grade("regex", {"pattern": "done", "flags": "i"}, chat_run).passed
    assert grade("regex", {"pattern": "(?i:DONE)"}, chat_run).passed
    # count with an explicit g and a sticky flag
    assert grade("regex", {"pattern": "\\.py", "flags": "g", "match": "count:3"}, chat_run).passed
    assert grade("regex", {"pattern": "Found", "flags": "y", "match": "count:1"}, chat_run).passed
    assert grade("regex", {"pattern": "files", "flags": "y"}, chat_run) == Verdict(
        False, f'pattern /files/y not found in last_message: "{FINAL}"'
    )


def test_regex_defaults_and_expected_count():
    config = parse("regex", {"pattern": "a"})
    assert (config.pattern, config.target, config.match, config.flags) == ("a", "last_message", "contains", "")
    assert config.expected_count is None
    assert parse("regex", {"pattern": "a", "match": "not_contains"}).expected_count is None
    assert parse("regex", {"pattern": "a", "match": "count:12"}).expected_count == 12
    assert parse("regex", {"pattern": "a", "match": "count:0"}).expected_count == 0


def test_regex_pattern_from_the_body():
    config = parse("regex", {}, "\n  Done\\.$  \n\n")
    assert config.pattern == "Done\\.$"
    # A pattern key wins over the body.
    assert parse("regex", {"pattern": "key"}, "body").pattern == "key"


@pytest.mark.parametrize("body", ["", "   \n\t\n"])
def test_regex_missing_pattern(body):
    error = spec_error("regex", {}, body)
    assert error.key == "pattern"
    assert error.message == "is required (a `pattern:` key, or the pattern as the file's body)"


def test_regex_pattern_must_be_a_string():
    error = spec_error("regex", {"pattern": 42})
    assert (error.key, error.message) == ("pattern", "must be a string (got a whole number)")


@pytest.mark.parametrize(
    "match", ["count: 1", "count:-1", "equals", "count:", "count:1x", "Contains", "", 3, None, ["contains"]]
)
def test_regex_bad_match(match):
    error = spec_error("regex", {"pattern": "a", "match": match})
    assert error.key == "match"
    assert error.message == f"must be contains | not_contains | count:N (got {match!r})"


@pytest.mark.parametrize(
    "flags, message",
    [
        ("z", "must be JS RegExp flags (d g i m s u v y) (got 'z')"),
        ("I", "must be JS RegExp flags (d g i m s u v y) (got 'I')"),
        ("gi ", "must be JS RegExp flags (d g i m s u v y) (got 'gi ')"),
        (["g", "i"], "must be a string of JS RegExp flags (d g i m s u v y) (got ['g', 'i'])"),
        (None, "must be a string of JS RegExp flags (d g i m s u v y) (got None)"),
        (1, "must be a string of JS RegExp flags (d g i m s u v y) (got 1)"),
    ],
)
def test_regex_bad_flags(flags, message):
    error = spec_error("regex", {"pattern": "a", "flags": flags})
    assert error.key == "flags"
    assert error.message == message


@pytest.mark.parametrize(
    "pattern, flags, message",
    [
        (
            "(?i)fixed",
            "",
            "invalid regular expression /(?i)fixed/: expecting ':' — JavaScript has no inline flags like "
            "(?i): use `flags: i` (or a scoped group (?i:...))",
        ),
        (
            "(?im)x",
            "",
            "invalid regular expression /(?im)x/: expecting ':' — JavaScript has no inline flags like (?i): "
            "use `flags: i` (or a scoped group (?i:...))",
        ),
        (
            "(?P<x>a)",
            "",
            "invalid regular expression /(?P<x>a)/: invalid group — JavaScript names groups (?<name>...), "
            "without the P",
        ),
        (
            "a",
            "uv",
            "invalid regular expression /a/uv: invalid regular expression flags — each flag may appear once, "
            "and u and v cannot be combined",
        ),
        (
            "a",
            "ii",
            "invalid regular expression /a/ii: invalid regular expression flags — each flag may appear once, "
            "and u and v cannot be combined",
        ),
        ("(a", "", "invalid regular expression /(a/: expecting ')'"),
        ("a++", "", "invalid regular expression /a++/: nothing to repeat"),
        ("(?>a)", "", "invalid regular expression /(?>a)/: invalid group"),
        (r"\p{Nope}", "u", None),
    ],
)
def test_regex_invalid_patterns(pattern, flags, message):
    error = spec_error("regex", {"pattern": pattern, "flags": flags})
    assert error.key == "pattern"
    if message is None:
        assert error.message.startswith(f"invalid regular expression /{pattern}/{flags}: ")
    else:
        assert error.message == message


def test_regex_invalid_pattern_in_the_body_names_the_pattern_key():
    error = spec_error("regex", {}, "(?i)x")
    assert error.key == "pattern"
    assert "JavaScript has no inline flags" in error.message


def test_regex_valid_js_only_patterns_load():
    assert parse("regex", {"pattern": "(?<year>\\d{4})"}).pattern == "(?<year>\\d{4})"
    assert parse("regex", {"pattern": "[\\p{L}--[a-z]]", "flags": "v"}).flags == "v"
    assert parse("regex", {"pattern": "(?<=a)b"}).pattern == "(?<=a)b"


def test_regex_bad_target_key():
    error = spec_error("regex", {"pattern": "a", "target": "output"})
    assert error.key == "target"


# ---- tool_used -------------------------------------------------------------------------------------------------


def test_tool_calls_of_the_fixture(tools_run):
    assert [c.name for c in tools_run.tool_calls] == [
        "Glob",
        "Grep",
        "Agent",
        "Glob",
        "Read",
        "Glob",
        "Grep",
        "Globber",
    ]
    assert [c.index for c in tools_run.tool_calls] == list(range(8))
    assert tools_run.tool_calls[3].parent == "t3"


def test_tool_used_counts_exact_names_including_subagents(tools_run):
    assert grade("tool_used", {"tool": "Glob"}, tools_run) == Verdict(True, "Glob called 3x (expected 1..∞)")
    assert grade("tool_used", {"tool": "Grep", "min": 2, "max": 2}, tools_run) == Verdict(
        True, "Grep called 2x (expected 2..2)"
    )
    assert grade("tool_used", {"tool": "glob"}, tools_run) == Verdict(False, "glob called 0x (expected 1..∞)")
    kind, order = registry()["tool_used"], registry()["tool_order"]
    # Never called: it loads and runs as written (as in the reference tool, which a public suite relies on), and the
    # load warning says what it then does: a max: 0 passes whatever happens, a min fails whatever happens.
    assert kind.load_warnings(parse("tool_used", {"tool": "glob"})) == [
        "tool 'glob' is no tool of Claude Code's — did you mean Glob? The grader runs as written (tool names are "
        "exact): no call is ever named 'glob', so it fails every run (min 1)"
    ]
    assert kind.load_warnings(parse("tool_used", {"tool": "SkillTool", "min": 0, "max": 0})) == [
        "tool 'SkillTool' is no tool of Claude Code's — did you mean Skill? The grader runs as written (tool names "
        "are exact): no call is ever named 'SkillTool', so it passes every run (it allows 0 calls), and it is scored "
        "in both arms (only `tool: Skill` is the plugin-fired indicator)"
    ]
    assert kind.load_warnings(parse("tool_used", {"tool": "Globber"})) == []
    [said] = order.load_warnings(parse("tool_order", {"before": "Read", "after": "skill"}))
    assert said.startswith("tool 'skill' is no tool") and said.endswith("so it fails every run")
    assert grade("tool_used", {"tool": "Globber"}, tools_run) == Verdict(True, "Globber called 1x (expected 1..∞)")


def test_tool_used_min_and_max(tools_run):
    assert grade("tool_used", {"tool": "Glob", "max": 2}, tools_run) == Verdict(False, "Glob called 3x (expected 1..2)")
    assert grade("tool_used", {"tool": "Glob", "min": 4}, tools_run) == Verdict(False, "Glob called 3x (expected 4..∞)")
    assert grade("tool_used", {"tool": "Glob", "min": 3, "max": 3}, tools_run).passed
    assert grade("tool_used", {"tool": "Write", "min": 0, "max": 0}, tools_run) == Verdict(
        True, "Write called 0x (expected 0..0)"
    )
    assert grade("tool_used", {"tool": "Read", "min": 0, "max": 0}, tools_run) == Verdict(
        False, "Read called 1x (expected 0..0)"
    )
    assert grade("tool_used", {"tool": "Write", "min": 0}, tools_run) == Verdict(
        True, "Write called 0x (expected 0..∞)"
    )


def test_tool_used_input_match_is_on_compact_json(tools_run):
    assert grade("tool_used", {"tool": "Glob", "input_match": '"pattern":"\\*\\.py"'}, tools_run) == Verdict(
        True, "Glob called 1x (expected 1..∞)"
    )
    # The text matched is exactly `{"pattern":"*.py"}`: no space after the colon.
    assert ecmaregex.compact_json(tools_run.tool_calls[0].input) == '{"pattern":"*.py"}'
    assert grade("tool_used", {"tool": "Glob", "input_match": '"pattern": "\\*\\.py"'}, tools_run) == Verdict(
        False, "Glob called 0x (expected 1..∞)"
    )
    # Numbers as JavaScript writes them: 1.0 is 1.
    assert grade("tool_used", {"tool": "Read", "input_match": '"limit":1}'}, tools_run).passed
    assert not grade("tool_used", {"tool": "Read", "input_match": "1\\.0"}, tools_run).passed
    # Key order is the model's.
    assert grade(
        "tool_used", {"tool": "Grep", "input_match": '^\\{"pattern":"TODO","path":"src"\\}$'}, tools_run
    ).passed
    # input_match counts only the calls of that tool.
    assert grade("tool_used", {"tool": "Glob", "input_match": "pattern", "min": 3, "max": 3}, tools_run).passed
    assert grade("tool_used", {"tool": "Glob", "input_match": "\\.(?:md|ts)", "min": 2, "max": 2}, tools_run).passed


def test_tool_used_input_match_literal_unquoted_pattern(tools_run):
    # The brief's example: the compact JSON contains `"pattern":"*.py"`; a regex `.py"` style check works.
    assert grade("tool_used", {"tool": "Glob", "input_match": '"pattern":".\\.py"'}, tools_run).passed
    assert not grade("tool_used", {"tool": "Glob", "input_match": '"pattern": ".\\.py"'}, tools_run).passed


def test_tool_used_input_match_non_ascii(tmp_path):
    run = make_run(tmp_path, tool_line("Write", {"file_path": "café/naïve.md", "content": "a/b"}))
    assert grade("tool_used", {"tool": "Write", "input_match": '"file_path":"café/naïve\\.md"'}, run).passed
    assert grade("tool_used", {"tool": "Write", "input_match": '"content":"a/b"'}, run).passed


def test_tool_used_no_calls_without_tools(tmp_path):
    run = make_run(tmp_path, init_line(), text_line("hi"), result_line())
    assert grade("tool_used", {"tool": "Skill"}, run) == Verdict(False, "Skill called 0x (expected 1..∞)")


def test_tool_used_config_and_defaults():
    config = parse("tool_used", {"tool": "Glob"})
    assert (config.call.tool, config.call.input_match, config.min, config.max) == ("Glob", None, 1, None)
    config = parse("tool_used", {"max": 4, "tool": "Glob", "min": 2.0, "input_match": "x"})
    assert (config.min, config.max) == (2, 4)
    assert registry()["tool_used"].config_json(config) == {"tool": "Glob", "input_match": "x", "min": 2.0, "max": 4}
    assert list(registry()["tool_used"].config_json(config)) == ["tool", "input_match", "min", "max"]


def test_tool_used_min_above_max():
    error = spec_error("tool_used", {"tool": "Glob", "min": 3, "max": 1})
    assert error.key == "max"
    assert error.message == "is 1, below min 3: the grader could never pass"


def test_tool_used_max_zero_with_default_min():
    error = spec_error("tool_used", {"tool": "Write", "max": 0})
    assert error.key == "max"
    assert error.message == (
        "is 0 but min defaults to 1, so the grader could never pass — to check that Write is not "
        "called, write `min: 0` and `max: 0`"
    )
    # Written out, min 0 / max 0 is fine.
    assert parse("tool_used", {"tool": "Write", "min": 0, "max": 0}).max == 0


@pytest.mark.parametrize(
    "raw, key, message",
    [
        ({}, "tool", "is required"),
        ({"tool": ""}, "tool", "must be a non-empty string (got an empty string)"),
        ({"tool": "   "}, "tool", "must be a non-empty string (got an empty string)"),
        ({"tool": 7}, "tool", "must be a non-empty string (got a whole number)"),
        ({"tool": "Glob", "input_match": "(a"}, "input_match", "invalid regular expression /(a/: expecting ')'"),
        (
            {"tool": "Glob", "input_match": "(?i)x"},
            "input_match",
            "invalid regular expression /(?i)x/: expecting ':' — JavaScript has no inline flags like (?i): use `flags: i` "
            "(or a scoped group (?i:...))",
        ),
        ({"tool": "Glob", "input_match": ["x"]}, "input_match", "must be a string (got a list)"),
        ({"tool": "Glob", "min": -1}, "min", "must be a whole number ≥ 0 (got -1)"),
        ({"tool": "Glob", "min": 1.5}, "min", "must be a whole number ≥ 0 (got a number 1.5)"),
        ({"tool": "Glob", "max": True}, "max", "must be a whole number ≥ 0 (got a boolean)"),
        ({"tool": "Glob", "max": "2"}, "max", "must be a whole number ≥ 0 (got a string '2')"),
    ],
)
def test_tool_used_load_errors(raw, key, message):
    error = spec_error("tool_used", raw)
    assert (error.key, error.message) == (key, message)


def test_tool_used_required_tools_and_with_only():
    kind = registry()["tool_used"]
    assert kind.required_tools(parse("tool_used", {"tool": "Glob"})) == ("Glob",)
    assert kind.required_tools(parse("tool_used", {"tool": "Glob", "min": 0, "max": 0})) == ()
    assert kind.with_only_by_default(parse("tool_used", {"tool": "Skill"})) is True
    assert kind.with_only_by_default(parse("tool_used", {"tool": "Glob"})) is False
    assert kind.with_only_by_default(parse("tool_used", {"tool": "skill"})) is False


# ---- tool_order ------------------------------------------------------------------------------------------------


def test_tool_order_first_matching_calls(tools_run):
    assert grade("tool_order", {"before": "Glob", "after": "Grep"}, tools_run) == Verdict(
        True, "Glob@0 precedes Grep@1"
    )
    assert grade("tool_order", {"before": "Grep", "after": "Glob"}, tools_run) == Verdict(
        False, "Grep@1 does NOT precede Glob@0"
    )
    assert grade("tool_order", {"before": "Agent", "after": "Read"}, tools_run) == Verdict(
        True, "Agent@2 precedes Read@4"
    )
    # Subagent calls take part too.
    assert grade(
        "tool_order", {"before": {"tool": "Glob", "input_match": "src/"}, "after": "Read"}, tools_run
    ) == Verdict(True, "Glob@3 precedes Read@4")


def test_tool_order_never_called(tools_run):
    assert grade("tool_order", {"before": "Write", "after": "Grep"}, tools_run) == Verdict(
        False, '"before" tool Write never called'
    )
    assert grade("tool_order", {"before": "Glob", "after": "Write"}, tools_run) == Verdict(
        False, '"after" tool Write never called'
    )
    # Both missing: "before" is reported first.
    assert grade("tool_order", {"before": "Edit", "after": "Write"}, tools_run) == Verdict(
        False, '"before" tool Edit never called'
    )


def test_tool_order_input_match_objects(tools_run):
    raw = {"before": {"tool": "Grep", "input_match": "FIXME"}, "after": {"tool": "Glob", "input_match": "\\.md"}}
    assert grade("tool_order", raw, tools_run) == Verdict(False, "Grep@6 does NOT precede Glob@5")
    raw = {"before": {"tool": "Grep", "input_match": "TODO"}, "after": {"tool": "Glob", "input_match": "\\.md"}}
    assert grade("tool_order", raw, tools_run) == Verdict(True, "Grep@1 precedes Glob@5")
    raw = {"before": "Glob", "after": {"tool": "Grep", "input_match": "XXX"}}
    assert grade("tool_order", raw, tools_run) == Verdict(False, '"after" tool Grep no Grep call matched input_match')
    raw = {"before": {"tool": "Write", "input_match": "x"}, "after": "Grep"}
    assert grade("tool_order", raw, tools_run) == Verdict(False, '"before" tool Write never called')
    # An object without input_match behaves like the bare name.
    assert grade("tool_order", {"before": {"tool": "Glob"}, "after": {"tool": "Grep"}}, tools_run) == Verdict(
        True, "Glob@0 precedes Grep@1"
    )


def test_tool_order_same_tool_against_itself(tools_run):
    raw = {"before": {"tool": "Glob", "input_match": "\\*\\.py"}, "after": {"tool": "Glob", "input_match": "\\.md"}}
    assert grade("tool_order", raw, tools_run) == Verdict(True, "Glob@0 precedes Glob@5")
    raw = {"before": {"tool": "Glob", "input_match": "\\.md"}, "after": {"tool": "Glob", "input_match": "\\*\\.py"}}
    assert grade("tool_order", raw, tools_run) == Verdict(False, "Glob@5 does NOT precede Glob@0")
    # Without input_match both sides are the same first call.
    assert grade("tool_order", {"before": "Glob", "after": "Glob"}, tools_run) == Verdict(
        False, "Glob@0 does NOT precede Glob@0"
    )


def test_tool_order_config_json_and_required_tools():
    kind = registry()["tool_order"]
    config = parse("tool_order", {"before": "Read", "after": {"tool": "Edit", "input_match": "a\\.py"}})
    assert kind.config_json(config) == {"before": {"tool": "Read"}, "after": {"tool": "Edit", "input_match": "a\\.py"}}
    assert kind.required_tools(config) == ("Read", "Edit")
    assert kind.with_only_by_default(config) is False


@pytest.mark.parametrize(
    "raw, key, message",
    [
        ({"before": "A"}, "after", "must be a tool name or {tool: NAME, input_match: PATTERN} (got nothing (null))"),
        ({"after": "A"}, "before", "must be a tool name or {tool: NAME, input_match: PATTERN} (got nothing (null))"),
        (
            {"before": "", "after": "B"},
            "before",
            "must be a tool name or {tool: NAME, input_match: PATTERN} (got a string)",
        ),
        (
            {"before": "A", "after": ["B"]},
            "after",
            "must be a tool name or {tool: NAME, input_match: PATTERN} (got a list)",
        ),
        (
            {"before": 3, "after": "B"},
            "before",
            "must be a tool name or {tool: NAME, input_match: PATTERN} (got a whole number)",
        ),
        ({"before": {"tool": ""}, "after": "B"}, "before.tool", "must be a tool name (got a string)"),
        ({"before": {"input_match": "x"}, "after": "B"}, "before.tool", "must be a tool name (got nothing (null))"),
        (
            {"before": "A", "after": {"tool": "B", "input_match": "(?i)x"}},
            "after.input_match",
            "invalid regular expression /(?i)x/: expecting ':' — JavaScript has no inline flags like (?i): use `flags: i` "
            "(or a scoped group (?i:...))",
        ),
    ],
)
def test_tool_order_load_errors(raw, key, message):
    error = spec_error("tool_order", raw)
    assert (error.key, error.message) == (key, message)


def test_tool_order_input_match_of_the_wrong_type_names_the_side():
    error = spec_error("tool_order", {"before": {"tool": "A", "input_match": 3}, "after": "B"})
    assert (error.key, error.message) == ("before.input_match", "must be a string (got a whole number)")
    error = spec_error("tool_order", {"before": "A", "after": {"tool": "B", "input_match": ["x"]}})
    assert (error.key, error.message) == ("after.input_match", "must be a string (got a list)")


def test_tool_order_unknown_key_in_a_side():
    error = spec_error("tool_order", {"before": {"tool": "A", "min": 1}, "after": "B"})
    assert error.key == "before.min"
    assert error.message == "is not a key of `before:` (expected: tool, input_match)"


# ---- file_exists -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "glob, path, expected",
    [
        ("report.md", "report.md", True),
        ("report.md", "out/report.md", False),  # whole paths, not suffixes
        ("*.md", "a.md", True),
        ("*.md", ".hidden.md", True),  # `*` matches dot-names
        ("*", ".env", True),
        ("*.md", "docs/a.md", False),  # `*` excludes `/`
        ("docs/*.md", "docs/a.md", True),
        ("docs/*.md", "docs/sub/a.md", False),
        ("**/top.txt", "top.txt", True),  # `**/` is zero folders…
        ("**/top.txt", "a/top.txt", True),  # …or one…
        ("**/top.txt", "a/b/c/top.txt", True),  # …or many
        ("**/fix.md", "pre-fix.md", False),  # whole folders only
        ("**/fix.md", "a/pre-fix.md", False),
        ("src/**/*.py", "src/app.py", True),
        ("src/**/*.py", "src/a/b/app.py", True),
        ("src/**/*.py", "srcx/app.py", False),
        ("src/**", "src/a/b/c.txt", True),  # other `**` crosses `/`
        ("a**b", "a/x/y/b", True),
        ("**", "deep/ly/nested.txt", True),
        ("**.md", "a/b.md", True),
        ("a?b", "a/b", True),  # `?` matches `/`
        ("a?b", "axb", True),
        ("a?b", "ab", False),
        ("[st].md", "s.md", False),  # brackets are literal
        ("[st].md", "[st].md", True),
        ("{a,b}.md", "a.md", False),  # braces are literal
        ("{a,b}.md", "{a,b}.md", True),
        ("a.md", "axmd", False),  # `.` is literal
        ("a+b.md", "a+b.md", True),
        ("./x", "x", False),  # `./x` never matches a created path
        ("./x", "./x", True),  # (it is literal)
        ("out/", "out", False),
    ],
)
def test_glob_dialect(glob, path, expected):
    assert glob_match(glob, path) is expected


def test_glob_regex_translation():
    assert glob_regex("**/a?.md").pattern == "(?:.*/)?a.\\.md"
    assert glob_regex("x/*").pattern == "x/[^/]*"
    assert glob_regex("a**").pattern == "a.*"
    assert glob_match("a?b", "a\nb")  # DOTALL: `?` matches any one character


def test_file_exists_grading(tmp_path):
    run = make_run(tmp_path, text_line("ok"), created=("README.md", "out/report.md", "out/.cache/x.bin"))
    assert grade("file_exists", {"path": "out/*.md"}, run) == Verdict(True, "out/*.md exists as expected")
    assert grade("file_exists", {"path": "*.txt"}, run) == Verdict(False, "*.txt missing (expected present)")
    assert grade("file_exists", {"path": "**/x.bin", "exists": False}, run) == Verdict(
        False, "**/x.bin exists (expected absent)"
    )
    assert grade("file_exists", {"path": "*.log", "exists": False}, run) == Verdict(True, "*.log absent as expected")
    assert grade("file_exists", {"path": "./README.md"}, run) == Verdict(
        False, "./README.md missing (expected present)"
    )
    # Only the created files count, not what is on disk.
    (tmp_path / "on-disk.txt").write_text("x")
    assert not grade("file_exists", {"path": "on-disk.txt"}, run).passed


def test_file_exists_no_files(tmp_path):
    run = make_run(tmp_path, text_line("ok"))
    assert grade("file_exists", {"path": "**"}, run) == Verdict(False, "** missing (expected present)")
    assert grade("file_exists", {"path": "**", "exists": False}, run) == Verdict(True, "** absent as expected")


def test_file_exists_config():
    kind = registry()["file_exists"]
    config = parse("file_exists", {"path": "a.md"})
    assert (config.path, config.exists) == ("a.md", True)
    assert kind.config_json(config) == {"path": "a.md"}
    config = parse("file_exists", {"exists": False, "path": "a.md"})
    assert config.exists is False
    assert list(kind.config_json(config).items()) == [("path", "a.md"), ("exists", False)]
    assert kind.reads_created_files(parse("file_exists", {"path": "a"})) is True
    assert kind.reads_created_files(config) is False
    assert kind.with_only_by_default(config) is False


@pytest.mark.parametrize(
    "raw, key, message",
    [
        ({}, "path", "is required"),
        ({"path": ""}, "path", "must be a non-empty string (got an empty string)"),
        ({"path": 3}, "path", "must be a non-empty string (got a whole number)"),
        ({"path": "a", "exists": "no"}, "exists", "must be true or false (got a string)"),
        ({"path": "a", "exists": 0}, "exists", "must be true or false (got a whole number)"),
    ],
)
def test_file_exists_load_errors(raw, key, message):
    error = spec_error("file_exists", raw)
    assert (error.key, error.message) == (key, message)


# ---- specs via case.parse_grader: with_only_by_default, config_json --------------------------------------------


def spec(raw: dict, body: str = "", name: str = "g") -> GraderSpec:
    return parse_grader(raw, body, name, "evals/case/graders/g.md", grader_types())


def test_spec_fields():
    s = spec({"type": "regex", "pattern": "x", "weight": 2.5, "arm": "both"}, name="has-x")
    assert (s.name, s.type, s.weight, s.arm, s.source, s.body) == (
        "has-x",
        "regex",
        2.5,
        "both",
        "evals/case/graders/g.md",
        None,
    )
    assert s.kind is registry()["regex"]
    assert spec({"type": "regex", "pattern": "x"}).weight == 1
    assert spec({"type": "regex", "pattern": "x"}).arm is None


def test_with_only_by_default():
    cases = [
        ({"type": "tool_used", "tool": "Skill"}, True),
        ({"type": "tool_used", "tool": "Glob"}, False),
        ({"type": "regex", "pattern": "x", "target": "mock_calls"}, True),
        ({"type": "regex", "pattern": "x", "target": "trace"}, False),
        ({"type": "regex", "pattern": "x"}, False),
        ({"type": "tool_order", "before": "Skill", "after": "Read"}, False),
        ({"type": "file_exists", "path": "x"}, False),
    ]
    for raw, expected in cases:
        s = spec(raw)
        assert s.kind.with_only_by_default(s.config) is expected, raw


def test_config_json_shapes():
    assert spec({"type": "regex", "pattern": "a+", "flags": "i", "match": "count:2"}).config_json() == {
        "target": "last_message",
        "pattern": "a+",
        "flags": "i",
        "match": "count:2",
    }
    assert spec({"type": "regex", "pattern": "a", "target": {"source": "file", "path": "o.md"}}).config_json() == {
        "target": {"source": "file", "path": "o.md"},
        "pattern": "a",
        "flags": "",
        "match": "contains",
    }
    assert spec({"type": "regex", "pattern": "a", "arm": "with-only"}).config_json() == {
        "target": "last_message",
        "pattern": "a",
        "flags": "",
        "match": "contains",
        "arm": "with-only",
    }
    assert spec({"type": "tool_used", "tool": "Skill"}).config_json() == {"tool": "Skill"}
    assert spec({"type": "tool_used", "tool": "Glob", "min": 0, "max": 2, "arm": "both"}).config_json() == {
        "tool": "Glob",
        "min": 0,
        "max": 2,
        "arm": "both",
    }
    assert spec({"type": "tool_order", "before": "A", "after": {"tool": "B"}}).config_json() == {
        "before": {"tool": "A"},
        "after": {"tool": "B"},
    }
    assert spec({"type": "file_exists", "path": "x", "exists": False}).config_json() == {"path": "x", "exists": False}
    # weight and name are not part of the config
    assert "weight" not in spec({"type": "file_exists", "path": "x", "weight": 3}).config_json()


def test_parse_grader_common_errors():
    with pytest.raises(SpecError) as info:
        spec({"pattern": "x"})
    assert info.value.key == "type"
    with pytest.raises(SpecError) as info:
        spec({"type": "regexp", "pattern": "x"})
    assert info.value.key == "type"
    assert "'regexp' is not a grader type" in info.value.message
    with pytest.raises(SpecError) as info:
        spec({"type": "regex", "pattern": "x", "tool": "Glob"})
    assert info.value.key == "tool"
    assert (
        info.value.message
        == "is not a key of regex graders (expected: type, name, weight, arm, turn, pattern, target, "
        "match, flags)"
    )
    for weight in (0, -1, True, "2"):
        with pytest.raises(SpecError) as info:
            spec({"type": "regex", "pattern": "x", "weight": weight})
        assert info.value.key == "weight"
    with pytest.raises(SpecError) as info:
        spec({"type": "regex", "pattern": "x", "arm": "without"})
    assert (info.value.key, info.value.message) == ("arm", "must be one of with-only, both (got 'without')")


def test_a_python_graders_config_names_its_file_and_changes_when_the_file_is_edited(tmp_path):
    kind = registry()["python"]
    grader = tmp_path / "graders" / "short.py"
    grader.parent.mkdir()
    grader.write_text("def grade(run):\n    return True\n")
    written = kind.config_json(kind.parse({"file": "graders/short.py"}, "", tmp_path))
    grader.write_text("def grade(run):\n    return len(run.last_message) < 400\n")
    edited = kind.config_json(kind.parse({"file": "graders/short.py"}, "", tmp_path))
    assert written["file"] == edited["file"] == "graders/short.py"
    assert len(written["sha256"]) == 16 and edited["sha256"] != written["sha256"]  # --lf runs the case again whole
