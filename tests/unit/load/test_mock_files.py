"""Mock files (`mocks/<server>/<tool>.md`, `_server.md`): what they load as, and the load errors naming file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.load.mocks import load_mocks, responder_from, server_responders


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def refusal(file: Path, tool: str = "create_issue") -> SpecError:
    with pytest.raises(SpecError) as info:
        responder_from(file, tool)
    assert info.value.file == file  # every error names the mock file
    return info.value


def test_a_fixed_responder_with_guards(tmp_path):
    file = write(
        tmp_path / "create_issue.md",
        "---\nexpect:\n  priority: [low, high]\n  meta: {owner: string}\n"
        "  title: /^[A-Z]/i\nerror: false\n---\nCreated {{input.title}}\n",
    )
    responder = responder_from(file, "create_issue")
    assert (responder.kind, responder.body, responder.is_error) == ("fixed", "Created {{input.title}}", False)
    assert [(g.path, g.kind, g.value) for g in responder.guards] == [
        ("priority", "enum", ["low", "high"]),
        ("meta.owner", "type", "string"),
        ("title", "regex", {"source": "^[A-Z]", "flags": "i"}),
    ]


def test_an_agent_responder(tmp_path):
    file = write(tmp_path / "get_page.md", "---\ntype: agent\nabort_when: the caller deletes\n---\nA wiki.\n")
    responder = responder_from(file, "get_page")
    assert (responder.kind, responder.body, responder.abort_when) == ("agent", "A wiki.", "the caller deletes")


@pytest.mark.parametrize(
    "head, key, message",
    [
        ("colour: red", "colour", "is not a key of mock files (expected: type, expect, error, tools, abort_when)"),
        ("type: canned", "type", "must be one of fixed, agent (got 'canned')"),
        ("error: yes", "error", "must be true or false (got a string)"),
        ("type: agent\nabort_when: [a]", "abort_when", "must be a string (got a list)"),
        ("abort_when: x", "abort_when", "needs `type: agent` (a fixed answer cannot decide to abort)"),
        ("expect: [a]", "expect", "must be a mapping of input fields to guards (got a list)"),
        ("expect: {p: []}", "expect.p", "an empty list of allowed values can never be satisfied — list at least one"),
        (
            "expect: {a: {b: number7}}",
            "expect.a.b",
            "must be a type (string, number, bool, boolean, object, array), a "
            "list of allowed values, or /regex/ (got 'number7')",
        ),
        (
            "expect: {p: /a|b/}",
            "expect.p",
            "/a|b/ — expect: /regex/ guards use a small dialect without groups, | or "
            "lookaround, so that they mean the same everywhere; write a character class "
            "or several guards instead",
        ),
        ("tools: [a]", "tools", "belongs in _server.md (a tool file answers one tool: its own)"),
    ],
)
def test_tool_file_errors(tmp_path, head, key, message):
    error = refusal(write(tmp_path / "create_issue.md", f"---\n{head}\n---\nanswer\n"))
    assert (error.key, error.message) == (key, message)


def test_unreadable_frontmatter_and_placeholder_bodies(tmp_path):
    error = refusal(write(tmp_path / "a.md", "---\ntype: [fixed\n---\nx\n"))
    assert error.key == "frontmatter" and error.message.startswith("line ")
    error = refusal(write(tmp_path / "b.md", "TODO: write the answer\n"))
    assert (error.key, error.message) == (
        "",
        "still holds the placeholder — write the tool's canned answer as the body",
    )


def test_server_file(tmp_path):
    file = write(tmp_path / "_server.md", "---\ntype: agent\ntools: [get_page, list_pages]\n---\nA wiki.\n")
    assert sorted(server_responders(file)) == ["get_page", "list_pages"]
    bad = write(tmp_path / "bad" / "_server.md", "---\ntype: agent\ntools: get_page\n---\nA wiki.\n")
    with pytest.raises(SpecError) as info:
        server_responders(bad)
    assert (info.value.file, info.value.key) == (bad, "tools")


def test_load_mocks_reports_the_failing_file(tmp_path):
    eval_root = tmp_path / "evals"
    case = eval_root / "c"
    case.mkdir(parents=True)
    write(eval_root / "mocks" / "tracker" / "create_issue.md", "answer\n")
    bad = write(case / "mocks" / "tracker" / "get_issue.md", "---\nerror: 1\n---\nx\n")
    with pytest.raises(SpecError) as info:
        load_mocks(case, eval_root)
    assert (info.value.file, info.value.key, info.value.message) == (
        bad,
        "error",
        "must be true or false (got a whole number)",
    )
